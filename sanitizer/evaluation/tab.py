"""Text Anonymization Benchmark (TAB) metrics for a masking decision.

Definitions follow Pilán et al. (2022) and the benchmark's ``evaluation.py``:

* Gold: TAB JSON documents; each annotator's ``entity_mentions`` form a separate
  gold standard. An *entity* is an ``entity_id`` of one annotator; it needs
  masking if any of its mentions is DIRECT or QUASI, and only those mentions
  (not its NO_MASK ones) must be masked.
* A span counts as masked when each of its characters is masked by the system
  or ignorable (punctuation, whitespace, TAB's function words and titles, judged
  inside the span: see :mod:`sanitizer.evaluation.spans`).
* Entity-level recall ``ER_*``: share of entities whose mentions to mask are all
  masked; ``ER_direct`` over entities with a DIRECT mention, ``ER_quasi`` over
  the others. Token-level recall: share of ``\\w+`` tokens of the mentions to
  mask that are masked (a token made only of an ignorable word counts as
  masked, as in TAB, so that even empty masks get some token recall; with
  ``drop_ignorable_tokens`` such tokens are left out of the count instead).
  Mention-level recall likewise per mention. Recall
  ``token_recall_by_type`` groups tokens by the entity's type (its first
  mention's ``entity_type``, as TAB).
* Several annotators: micro-average. Recall pools the entities/tokens of all
  annotators. Precision (TAB's definition): the system's masked characters are
  split into ``\\w+`` tokens; each token adds ``w * |A(token)|`` to the true
  positives and ``w * n_annotators`` to the total, where ``A(token)`` are the
  annotators having a mention to mask that fully contains the token and ``w``
  the token's weight (1 for the uniform precision). So a token masked by 2 of 4
  annotators is 0.5 correct, not correct because "any" annotator masked it.
* ``F1`` = harmonic mean of the uniform token precision and ``ER_all`` (seed 001,
  Table 3). A ratio with a zero denominator is reported as 0.0, as in TAB; the
  ``counts`` tell such cases apart.

Deliberate deviations from TAB's script:
overlapping system spans are merged before tokenising (TAB would count a token
twice); token/mention recall ignores NO_MASK mentions of an entity that needs
masking (TAB counts them, although its entity recall does not); an entity is
direct when any of its mentions to mask is DIRECT (TAB: its first mention);
``n_annotators`` counts every annotator listed for the document, including one
who annotated nothing (TAB counts only annotators with entities); whitespace of
every kind is ignorable (TAB: only the space); gold documents absent from the
masks are scored as "nothing masked" unless ``skip_missing_documents``;
``mention_precision`` judges the merged system spans, not each span as given.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sanitizer.evaluation.spans import (
    DEFAULT_IGNORABLE,
    IgnorableText,
    LabeledSpan,
    SpanLike,
    is_span_masked,
    to_labeled_span,
    word_tokens,
)
from sanitizer.evaluation.weighting import DEFAULT_WEIGHTING, TokenWeighting, make_weighting
from sanitizer.intervals import coverage_mask, mask_runs
from sanitizer.metrics import harmonic_mean, ratio
from sanitizer.types import IDENTIFIER_TYPES


@dataclass(frozen=True, slots=True)
class GoldMention:
    """One annotated mention (character offsets, end exclusive)."""

    start: int
    end: int
    entity_type: str
    identifier_type: str

    @property
    def needs_masking(self) -> bool:
        """DIRECT and QUASI mentions must be masked, NO_MASK ones not."""
        return self.identifier_type != "NO_MASK"


@dataclass(frozen=True)
class GoldEntity:
    """All mentions one annotator gave the same ``entity_id``."""

    annotator: str
    entity_id: str
    entity_type: str
    mentions: tuple[GoldMention, ...]

    @property
    def mentions_to_mask(self) -> tuple[GoldMention, ...]:
        """The mentions that must be masked for the entity to count as masked."""
        return tuple(m for m in self.mentions if m.needs_masking)

    @property
    def needs_masking(self) -> bool:
        """Whether any mention is DIRECT or QUASI."""
        return any(m.needs_masking for m in self.mentions)

    @property
    def is_direct(self) -> bool:
        """Whether any mention is a DIRECT identifier."""
        return any(m.identifier_type == "DIRECT" for m in self.mentions)


@dataclass(frozen=True)
class GoldDocument:
    """A TAB document: its text and the entities of every annotator."""

    doc_id: str
    text: str
    annotators: tuple[str, ...]
    entities: tuple[GoldEntity, ...]

    @classmethod
    def from_tab(cls, doc: Mapping[str, Any]) -> GoldDocument:
        """Read one TAB JSON document (``doc_id``, ``text``, ``annotations``).

        Raises ``ValueError`` on offsets outside the text, an unknown
        ``identifier_type`` or a mention without the required keys.
        """
        doc_id = str(doc["doc_id"])
        text = doc["text"]
        annotations = doc.get("annotations") or {}
        entities: list[GoldEntity] = []
        for annotator, ann in annotations.items():
            by_id: dict[str, list[GoldMention]] = {}
            types: dict[str, str] = {}
            for m in ann.get("entity_mentions", []):
                try:
                    start, end = int(m["start_offset"]), int(m["end_offset"])
                    identifier_type = m["identifier_type"]
                    entity_id = str(m["entity_id"])
                except KeyError as exc:
                    raise ValueError(f"{doc_id}: mention without {exc.args[0]!r}: {m!r}") from None
                if not 0 <= start < end <= len(text):
                    raise ValueError(f"{doc_id}: invalid mention offsets {start}..{end}")
                if identifier_type not in IDENTIFIER_TYPES:
                    raise ValueError(f"{doc_id}: unknown identifier_type {identifier_type!r}")
                entity_type = str(m.get("entity_type", ""))
                types.setdefault(entity_id, entity_type)
                by_id.setdefault(entity_id, []).append(
                    GoldMention(start, end, entity_type, identifier_type)
                )
            entities.extend(
                GoldEntity(str(annotator), eid, types[eid], tuple(ms)) for eid, ms in by_id.items()
            )
        return cls(doc_id, text, tuple(str(a) for a in annotations), tuple(entities))


@dataclass
class TabCounts:
    """Raw counts behind the ratios of :class:`TabMetrics` (pooled over annotators)."""

    n_documents: int = 0
    n_documents_without_masks: int = 0
    n_annotations: int = 0
    entities: int = 0
    entities_masked: int = 0
    direct_entities: int = 0
    direct_entities_masked: int = 0
    quasi_entities: int = 0
    quasi_entities_masked: int = 0
    mentions: int = 0
    mentions_masked: int = 0
    tokens: int = 0
    tokens_masked: int = 0
    tokens_by_type: dict[str, int] = field(default_factory=dict)
    tokens_masked_by_type: dict[str, int] = field(default_factory=dict)
    system_tokens: int = 0
    system_spans: int = 0
    precision_tp: float = 0.0
    precision_total: float = 0.0
    weighted_precision_tp: float = 0.0
    weighted_precision_total: float = 0.0
    mention_precision_tp: float = 0.0
    mention_precision_total: float = 0.0


@dataclass
class TabMetrics:
    """TAB evaluation of one set of system masks against a gold corpus."""

    er_all: float
    er_direct: float
    er_quasi: float
    token_recall: float
    token_recall_by_type: dict[str, float]
    mention_recall: float
    token_precision: float
    token_precision_weighted: float
    mention_precision: float
    f1: float
    weighting: str
    counts: TabCounts

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict using the metric names of the TAB paper / seed 001."""
        return {
            "ER_all": self.er_all,
            "ER_direct": self.er_direct,
            "ER_quasi": self.er_quasi,
            "token_recall": self.token_recall,
            "token_recall_by_type": dict(self.token_recall_by_type),
            "mention_recall": self.mention_recall,
            "token_precision": self.token_precision,
            "token_precision_weighted": self.token_precision_weighted,
            "mention_precision": self.mention_precision,
            "F1": self.f1,
            "weighting": self.weighting,
            "counts": asdict(self.counts),
        }


class _Containment:
    """Answers "does one of these intervals contain [s, e)?" in O(log n)."""

    def __init__(self, intervals: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(intervals)
        self.starts = [s for s, _ in ordered]
        self.max_end: list[int] = []
        best = -1
        for _, e in ordered:
            best = max(best, e)
            self.max_end.append(best)

    def contains(self, start: int, end: int) -> bool:
        idx = bisect.bisect_right(self.starts, start) - 1
        return idx >= 0 and self.max_end[idx] >= end


def load_gold(docs: Iterable[Mapping[str, Any] | GoldDocument]) -> list[GoldDocument]:
    """Parse TAB JSON documents (already-parsed :class:`GoldDocument` pass through).

    Raises ``ValueError`` on a repeated ``doc_id``.
    """
    out: list[GoldDocument] = []
    seen: set[str] = set()
    for doc in docs:
        gold = doc if isinstance(doc, GoldDocument) else GoldDocument.from_tab(doc)
        if gold.doc_id in seen:
            raise ValueError(f"document {gold.doc_id} appears twice in the gold corpus")
        seen.add(gold.doc_id)
        out.append(gold)
    return out


def parse_masks(raw: Mapping[str, Sequence[SpanLike]]) -> dict[str, list[LabeledSpan]]:
    """Normalise ``{doc_id: [[start, end] | [start, end, label] | {...}, ...]}``."""
    if not isinstance(raw, Mapping):
        raise ValueError("masks must map document ids to lists of spans")
    return {str(doc_id): [to_labeled_span(s) for s in spans] for doc_id, spans in raw.items()}


def evaluate_tab(
    gold: Sequence[Mapping[str, Any] | GoldDocument],
    masks: Mapping[str, Sequence[SpanLike]],
    weighting: str | TokenWeighting = DEFAULT_WEIGHTING,
    weighting_options: Mapping[str, Any] | None = None,
    ignorable: IgnorableText = DEFAULT_IGNORABLE,
    skip_missing_documents: bool = False,
    drop_ignorable_tokens: bool = False,
) -> TabMetrics:
    """Compute the TAB metrics of ``masks`` against the ``gold`` documents.

    ``weighting`` is a registered scheme name (built on the gold texts with
    ``weighting_options``) or a ready :class:`TokenWeighting`; it only affects
    ``token_precision_weighted``. Span labels in ``masks`` are ignored here.
    ``drop_ignorable_tokens`` leaves tokens that are wholly ignorable (e.g.
    "the", "Mr") out of token recall rather than counting them as masked.
    Raises ``ValueError`` for masks of unknown documents or outside the text.
    """
    docs = load_gold(gold)
    mask_spans = parse_masks(masks)
    by_id = {d.doc_id: d for d in docs}
    unknown = sorted(set(mask_spans) - set(by_id))
    if unknown:
        raise ValueError(f"masks for documents absent from the gold corpus: {unknown[:5]}")
    if isinstance(weighting, str):
        scheme = make_weighting(weighting, [d.text for d in docs], **(weighting_options or {}))
    else:
        scheme = weighting

    c = TabCounts()
    for doc in docs:
        if doc.doc_id not in mask_spans:
            if skip_missing_documents:
                continue
            c.n_documents_without_masks += 1
        spans = mask_spans.get(doc.doc_id, [])
        for s in spans:
            if s.end > len(doc.text):
                raise ValueError(f"{doc.doc_id}: mask {s.start}..{s.end} beyond the text end")
        c.n_documents += 1
        c.n_annotations += len(doc.annotators)
        masked = coverage_mask(len(doc.text), ((s.start, s.end) for s in spans))
        _count_recall(doc, masked, ignorable, drop_ignorable_tokens, c)
        _count_precision(doc, masked, scheme, c)

    by_type = {t: ratio(c.tokens_masked_by_type[t], n) for t, n in sorted(c.tokens_by_type.items())}
    token_precision = ratio(c.precision_tp, c.precision_total)
    er_all = ratio(c.entities_masked, c.entities)
    return TabMetrics(
        er_all=er_all,
        er_direct=ratio(c.direct_entities_masked, c.direct_entities),
        er_quasi=ratio(c.quasi_entities_masked, c.quasi_entities),
        token_recall=ratio(c.tokens_masked, c.tokens),
        token_recall_by_type=by_type,
        mention_recall=ratio(c.mentions_masked, c.mentions),
        token_precision=token_precision,
        token_precision_weighted=ratio(c.weighted_precision_tp, c.weighted_precision_total),
        mention_precision=ratio(c.mention_precision_tp, c.mention_precision_total),
        f1=harmonic_mean(token_precision, er_all),
        weighting=getattr(scheme, "name", type(scheme).__name__),
        counts=c,
    )


def _count_recall(
    doc: GoldDocument,
    masked: np.ndarray,
    ignorable: IgnorableText,
    drop_ignorable_tokens: bool,
    c: TabCounts,
) -> None:
    """Add the recall counts of ``doc`` to ``c`` (mutates ``c``)."""
    text = doc.text
    for entity in doc.entities:
        to_mask = entity.mentions_to_mask
        if not to_mask:
            continue
        entity_masked = True
        for mention in to_mask:
            mention_masked = is_span_masked(text, mention.start, mention.end, masked, ignorable)
            c.mentions += 1
            c.mentions_masked += mention_masked
            entity_masked &= mention_masked
            for ts, te in word_tokens(text, mention.start, mention.end):
                if drop_ignorable_tokens and ignorable.is_ignorable(text[ts:te]):
                    continue
                token_masked = is_span_masked(text, ts, te, masked, ignorable)
                c.tokens += 1
                c.tokens_masked += token_masked
                t = entity.entity_type
                c.tokens_by_type[t] = c.tokens_by_type.get(t, 0) + 1
                c.tokens_masked_by_type[t] = c.tokens_masked_by_type.get(t, 0) + token_masked
        c.entities += 1
        c.entities_masked += entity_masked
        if entity.is_direct:
            c.direct_entities += 1
            c.direct_entities_masked += entity_masked
        else:
            c.quasi_entities += 1
            c.quasi_entities_masked += entity_masked


def _count_precision(
    doc: GoldDocument, masked: np.ndarray, scheme: TokenWeighting, c: TabCounts
) -> None:
    """Add the (weighted) precision counts of ``doc`` to ``c`` (mutates ``c``)."""
    n_annotators = len(doc.annotators)
    # Overlapping or touching system masks are merged so that no character counts twice.
    intervals = mask_runs(masked)
    if not intervals:
        return
    per_annotator: dict[str, list[tuple[int, int]]] = {a: [] for a in doc.annotators}
    for entity in doc.entities:
        per_annotator.setdefault(entity.annotator, []).extend(
            (m.start, m.end) for m in entity.mentions_to_mask
        )
    coverers = [_Containment(spans) for spans in per_annotator.values()]

    tokens = [tok for s, e in intervals for tok in word_tokens(doc.text, s, e)]
    weights = scheme.weights(doc.text, tokens) if tokens else []
    for (ts, te), w in zip(tokens, weights, strict=True):
        agree = sum(cov.contains(ts, te) for cov in coverers)
        c.precision_tp += agree
        c.precision_total += n_annotators
        c.weighted_precision_tp += agree * w
        c.weighted_precision_total += n_annotators * w
    c.system_tokens += len(tokens)
    c.system_spans += len(intervals)
    for s, e in intervals:
        c.mention_precision_tp += sum(cov.contains(s, e) for cov in coverers)
        c.mention_precision_total += n_annotators


def evaluate_files(
    gold_path: str | Path,
    masks_path: str | Path,
    weighting: str = DEFAULT_WEIGHTING,
    weighting_options: Mapping[str, Any] | None = None,
    skip_missing_documents: bool = False,
    drop_ignorable_tokens: bool = False,
) -> dict[str, Any]:
    """Evaluate a masks JSON file against a TAB JSON file; return :meth:`TabMetrics.to_dict`.

    ``gold_path``: a JSON list of TAB documents. ``masks_path``: a JSON object
    ``{doc_id: [[start, end], ...]}`` (a third element or a ``label`` key per span
    is accepted and ignored).
    """
    with open(gold_path, encoding="utf-8") as fh:
        gold = json.load(fh)
    with open(masks_path, encoding="utf-8") as fh:
        masks = json.load(fh)
    if not isinstance(gold, list):
        raise ValueError(f"{gold_path}: expected a JSON list of TAB documents")
    metrics = evaluate_tab(
        gold,
        masks,
        weighting=weighting,
        weighting_options=weighting_options,
        skip_missing_documents=skip_missing_documents,
        drop_ignorable_tokens=drop_ignorable_tokens,
    )
    return metrics.to_dict()
