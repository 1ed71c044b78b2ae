"""The masking tagger of seed 000 §3.3: a B-MASK/I-MASK/O model trained on distant labels.

Distant labels (Algorithm 1 run against a knowledge base, see
:mod:`sanitizer.kanon.labelling`) say which character ranges of a document must be
masked for k-anonymity. This module turns them into ``(text, [EntitySpan("MASK")])``
training examples, fine-tunes the token tagger of :mod:`sanitizer.training` on them
(:func:`train_masker`), and scores a tagger against gold masks the way seed 000
Tables 2-3 do (:func:`evaluate_masker`): SemEval-2013 *exact* and *partial*
entity-level P/R/F1 (via :func:`sanitizer.evaluation.semeval_scores`), plus
word-token and character level P/R/F1 of the masked text.

How the raw masks become spans is a registered *span policy*
(:data:`span_policies`): ``as_labelled`` keeps one span per masked term
occurrence; ``join_whitespace`` also fuses masks separated only by whitespace
("[Gatto] [Calgari]" → "[Gatto Calgari]"), which masks the same words but gives a
sequence tagger one entity instead of two adjacent ones. Gold and training spans
must use the same policy for exact scores to be meaningful.

Plain Python: no Django import.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from sanitizer.evaluation import semeval_scores, token_scores_by_type
from sanitizer.evaluation.spans import SpanLike, to_labeled_span
from sanitizer.intervals import Interval, merge_intervals
from sanitizer.kanon.algorithm import SelectionFunction
from sanitizer.kanon.gazetteer import Gazetteer
from sanitizer.kanon.index import InvertedIndex
from sanitizer.kanon.labelling import document_id, label_each
from sanitizer.metrics import Prf
from sanitizer.registry import Registry
from sanitizer.training.config import TrainingConfig
from sanitizer.training.encoding import mask_labels
from sanitizer.training.trainer import TrainingResult, train
from sanitizer.types import EntitySpan

MASK_LABEL = "MASK"
SOURCE = "distant"

Example = tuple[str, list[EntitySpan]]
ProgressCallback = Callable[[int, int, str], None]
SpanPolicy = Callable[[str, Sequence[Interval]], list[Interval]]
"""``(text, raw mask intervals) -> sorted, non-overlapping intervals``."""

span_policies: Registry[SpanPolicy] = Registry("span policy")


@span_policies.register("as_labelled")
def as_labelled(text: str, masks: Sequence[Interval]) -> list[Interval]:
    """One span per masked occurrence (overlapping or touching masks fused)."""
    # Overlapping or touching intervals cover one stretch of masked characters; a BIO
    # sequence cannot encode overlaps anyway, so they are fused.
    return merge_intervals(masks)


@span_policies.register("join_whitespace")
def join_whitespace(text: str, masks: Sequence[Interval]) -> list[Interval]:
    """Like ``as_labelled``, and masks separated only by whitespace become one span.

    The characters masked are the same up to the whitespace in between, so the
    anonymised text reveals nothing more; the tagger no longer has to guess where
    one masked term ends and the next begins inside a run of masked words.
    """
    out: list[Interval] = []
    for start, end in merge_intervals(masks):
        if out and text[out[-1][1] : start].isspace():
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def masks_to_spans(
    text: str,
    masks: Iterable[Sequence[int]],
    span_policy: str | SpanPolicy = "as_labelled",
    label: str = MASK_LABEL,
    identifier_types: Sequence[str | None] | None = None,
) -> list[EntitySpan]:
    """Character masks ``[[start, end], ...]`` of ``text`` as sorted ``MASK`` spans.

    ``identifier_types`` (one per mask, e.g. ``DIRECT``/``QUASI``) are carried over to
    the spans; a span fused from several masks is ``DIRECT`` if any of them is, else
    the first type found. Raises ``ValueError`` for a mask outside the text.
    """
    policy = span_policies.get(span_policy) if isinstance(span_policy, str) else span_policy
    raw = [(int(m[0]), int(m[1])) for m in masks]
    if identifier_types is not None and len(identifier_types) != len(raw):
        raise ValueError("need one identifier type per mask")
    for start, end in raw:
        if not 0 <= start <= end <= len(text):
            raise ValueError(f"mask {start}..{end} outside a text of {len(text)} characters")
    out: list[EntitySpan] = []
    for s, e in policy(text, raw):
        kind: str | None = None
        if identifier_types is not None:
            inside = [t for (ms, me), t in zip(raw, identifier_types, strict=True) if s <= ms < e]
            kind = "DIRECT" if "DIRECT" in inside else next((t for t in inside if t), None)
        out.append(
            EntitySpan(
                start=s, end=e, label=label, text=text[s:e], source=SOURCE, identifier_type=kind
            )
        )
    return out


def distant_examples(
    docs: Iterable[Mapping[str, Any]],
    index: InvertedIndex,
    gazetteer: Gazetteer,
    k: int = 5,
    max_arity: int = 3,
    selection: str | SelectionFunction = "greedy",
    seed: int | None = 0,
    known_facts: Iterable[str] = (),
    span_policy: str | SpanPolicy = "as_labelled",
) -> tuple[list[Example], dict[str, list[EntitySpan]]]:
    """Label ``docs`` (dicts with ``text`` and ``doc_id``) with Algorithm 1.

    Returns the training examples ``(text, [MASK spans])`` in document order and the
    same spans as gold masks ``{doc_id: [span, ...]}`` (after ``span_policy``), ready
    for :func:`evaluate_masker`. Each span's ``identifier_type`` is ``DIRECT`` when its
    term alone singles out one person, else ``QUASI`` (seed 000 Table 4 breaks recall
    down by these). ``known_facts`` are raw attribute values the adversary knows for
    every document. Document ids must be unique.
    """
    examples: list[Example] = []
    gold: dict[str, list[EntitySpan]] = {}
    labelled = label_each(docs, index, gazetteer, k, max_arity, selection, seed, known_facts)
    for doc_id, doc, labels in labelled:
        if doc_id in gold:
            raise ValueError(f"duplicate document id {doc_id!r}")
        text = doc["text"]
        typed = labels.entity_spans(text, label=MASK_LABEL)
        spans = masks_to_spans(
            text,
            [(s.start, s.end) for s in typed],
            span_policy,
            identifier_types=[s.identifier_type for s in typed],
        )
        examples.append((text, spans))
        gold[doc_id] = spans
    return examples, gold


def masker_config(**overrides: Any) -> TrainingConfig:
    """A :class:`TrainingConfig` for the masking tagger (labels ``["MASK"]``).

    Any field can be overridden; ``labels`` is always the single ``MASK`` label.
    """
    settings: dict[str, Any] = {"name": "distant-masker", "max_length": 128, "window_overlap": 32}
    settings.update(overrides)
    settings["labels"] = mask_labels()
    return TrainingConfig(**settings)


@dataclass
class LabelStats:
    """How much Algorithm 1 masked in a set of documents."""

    documents: int
    masks: int
    masked_chars: int
    chars: int

    @property
    def masks_per_doc(self) -> float:
        """Mean number of mask spans per document."""
        return self.masks / self.documents if self.documents else 0.0

    @property
    def masked_share(self) -> float:
        """Share of the documents' characters that are masked."""
        return self.masked_chars / self.chars if self.chars else 0.0


def label_stats(examples: Sequence[Example]) -> LabelStats:
    """Counts of :class:`LabelStats` over ``examples``."""
    return LabelStats(
        documents=len(examples),
        masks=sum(len(spans) for _t, spans in examples),
        masked_chars=sum(s.end - s.start for _t, spans in examples for s in spans),
        chars=sum(len(t) for t, _s in examples),
    )


@dataclass
class MaskerTrainingResult:
    """Outcome of :func:`train_masker`: the training run and the distant labels it used."""

    training: TrainingResult
    train_gold: dict[str, list[EntitySpan]]
    dev_gold: dict[str, list[EntitySpan]]
    train_stats: LabelStats
    dev_stats: LabelStats

    @property
    def output_dir(self) -> str:
        """Directory of the saved model (load it with :func:`sanitizer.training.load_tagger`)."""
        return self.training.output_dir


def train_masker(
    config: TrainingConfig,
    train_docs: Iterable[Mapping[str, Any]],
    dev_docs: Iterable[Mapping[str, Any]],
    index: InvertedIndex,
    gazetteer: Gazetteer,
    k: int,
    max_arity: int,
    selection: str | SelectionFunction,
    output_dir: str | Path,
    progress: ProgressCallback | None = None,
    *,
    seed: int | None = 0,
    known_facts: Iterable[str] = (),
    span_policy: str | SpanPolicy = "as_labelled",
) -> MaskerTrainingResult:
    """Label train and dev documents with Algorithm 1 and fine-tune the masking tagger.

    ``config.labels`` must be ``["MASK"]`` (build it with :func:`masker_config`).
    Both document sets are labelled against the same ``index``/``gazetteer``, whose
    knowledge base should contain the people the documents are about. ``seed`` drives
    the ``random`` selection function (per document); ``known_facts`` are facts the
    adversary is assumed to know for every document.

    Side effects: those of :func:`sanitizer.training.train` (writes the model to
    ``output_dir``, sets torch threads, seeds RNGs).
    """
    if list(config.labels) != mask_labels():
        raise ValueError(f"the masking tagger needs labels {mask_labels()}, got {config.labels}")
    known = list(known_facts)
    report = progress or (lambda done, total, message: None)
    train_list = list(train_docs)
    dev_list = list(dev_docs)
    report(0, len(train_list) + len(dev_list), "distant labelling")
    train_examples, train_gold = distant_examples(
        train_list, index, gazetteer, k, max_arity, selection, seed, known, span_policy
    )
    dev_examples, dev_gold = distant_examples(
        dev_list, index, gazetteer, k, max_arity, selection, seed, known, span_policy
    )
    train_stats = label_stats(train_examples)
    dev_stats = label_stats(dev_examples)
    report(
        len(train_list) + len(dev_list),
        len(train_list) + len(dev_list),
        f"labelled: {train_stats.masks_per_doc:.2f} masks/doc in train, "
        f"{dev_stats.masks_per_doc:.2f} in dev",
    )
    result = train(config, train_examples, dev_examples, output_dir, progress)
    return MaskerTrainingResult(result, train_gold, dev_gold, train_stats, dev_stats)


# --------------------------------------------------------------------------- evaluation


class SpanPredictor(Protocol):
    """Anything that predicts spans for a batch of texts (a loaded ``Tagger`` does)."""

    def predict_batch(self, texts: Sequence[str]) -> list[list[EntitySpan]]: ...


@dataclass
class MaskerEvaluation:
    """Scores of predicted masks against gold masks (seed 000 Tables 2-3).

    ``exact``/``partial`` are SemEval-2013 entity-level scores (labels ignored);
    ``token`` scores ``\\w+`` tokens as masked or not (a token is masked when a span
    overlaps it); ``char`` scores non-whitespace characters. ``counts`` holds the
    SemEval counts per scheme; ``predictions`` the predicted masks per document.
    ``recall_by_identifier_type`` (seed 000 Table 4) maps each identifier type found on
    the gold spans (``DIRECT``, ``QUASI``) to its exact and partial entity recall and
    its number of gold spans.
    """

    exact: Prf
    partial: Prf
    token: Prf
    char: Prf
    documents: int
    gold_spans: int
    predicted_spans: int
    counts: dict[str, dict[str, float | int]] = field(default_factory=dict)
    predictions: dict[str, list[list[int]]] = field(default_factory=dict)
    recall_by_identifier_type: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready scores (without the predictions)."""
        return {
            "exact": dataclasses.asdict(self.exact),
            "partial": dataclasses.asdict(self.partial),
            "token": dataclasses.asdict(self.token),
            "char": dataclasses.asdict(self.char),
            "documents": self.documents,
            "gold_spans": self.gold_spans,
            "predicted_spans": self.predicted_spans,
            "recall_by_identifier_type": self.recall_by_identifier_type,
        }


def _intervals(spans: Sequence[SpanLike]) -> list[list[int]]:
    out = []
    for s in spans:
        ls = to_labeled_span(s)
        out.append([ls.start, ls.end])
    return out


def _identifier_type(span: SpanLike) -> str | None:
    if isinstance(span, EntitySpan):
        return span.identifier_type
    if isinstance(span, Mapping):
        value = span.get("identifier_type")
        return str(value) if value is not None else None
    return None


def _recall_by_type(
    gold_masks: Mapping[str, Sequence[SpanLike]],
    pred: Mapping[str, list[list[int]]],
    docs: Iterable[str],
) -> dict[str, dict[str, float]]:
    by_type: dict[str, dict[str, list[list[int]]]] = {}
    for doc_id in docs:
        for span in gold_masks.get(doc_id, []):
            kind = _identifier_type(span)
            if kind is not None:
                ls = to_labeled_span(span)
                by_type.setdefault(kind, {}).setdefault(doc_id, []).append([ls.start, ls.end])
    out: dict[str, dict[str, float]] = {}
    for kind, gold in sorted(by_type.items()):
        # Only the recall is meaningful: predictions of other types' spans are not errors.
        sem = semeval_scores(gold, {d: pred.get(d, []) for d in gold}, use_labels=False)
        out[kind] = {
            "exact": sem.recall("exact"),
            "partial": sem.recall("partial"),
            "support": float(sum(len(v) for v in gold.values())),
        }
    return out


def _char_prf(
    texts: Mapping[str, str],
    gold: Mapping[str, Sequence[Sequence[int]]],
    pred: Mapping[str, Sequence[Sequence[int]]],
) -> Prf:
    # Whitespace is excluded: whether the space between two masked words is masked
    # says nothing about what was hidden.
    y_true: list[np.ndarray] = []
    y_pred: list[np.ndarray] = []
    for doc_id, text in texts.items():
        visible = np.fromiter((not c.isspace() for c in text), dtype=bool, count=len(text))
        for side, store in ((gold, y_true), (pred, y_pred)):
            masked = np.zeros(len(text), dtype=bool)
            for start, end in side.get(doc_id, []):
                masked[start:end] = True
            store.append(masked[visible])
    t = np.concatenate(y_true) if y_true else np.zeros(0, dtype=bool)
    p = np.concatenate(y_pred) if y_pred else np.zeros(0, dtype=bool)
    return Prf.from_counts(int((t & p).sum()), int(p.sum()), int(t.sum()))


def score_masks(
    texts: Mapping[str, str],
    gold_masks: Mapping[str, Sequence[SpanLike]],
    pred_masks: Mapping[str, Sequence[SpanLike]],
) -> MaskerEvaluation:
    """Score predicted masks against gold masks for the documents of ``texts``.

    ``texts`` is ``{doc_id: text}``; masks are ``{doc_id: spans}`` with spans as
    ``[start, end]`` pairs, dicts or :class:`EntitySpan` (labels are ignored; gold
    identifier types, when given, feed ``recall_by_identifier_type``). A
    document missing from a mask mapping has no masks there; masks of documents not
    in ``texts`` raise ``ValueError``.
    """
    unknown = sorted((set(gold_masks) | set(pred_masks)) - set(texts))
    if unknown:
        raise ValueError(f"masks for documents without text: {unknown[:5]}")
    gold = {d: _intervals(gold_masks.get(d, [])) for d in texts}
    pred = {d: _intervals(pred_masks.get(d, [])) for d in texts}
    sem = semeval_scores(gold, pred, use_labels=False)
    tok = token_scores_by_type(texts, gold, pred).untyped
    return MaskerEvaluation(
        exact=Prf.from_ratios(sem.precision("exact"), sem.recall("exact")),
        partial=Prf.from_ratios(sem.precision("partial"), sem.recall("partial")),
        token=Prf(tok.precision, tok.recall, tok.f1),
        char=_char_prf(texts, gold, pred),
        documents=len(texts),
        gold_spans=sum(len(v) for v in gold.values()),
        predicted_spans=sum(len(v) for v in pred.values()),
        counts=sem.to_dict(),
        predictions=pred,
        recall_by_identifier_type=_recall_by_type(gold_masks, pred, texts),
    )


def evaluate_masker(
    tagger: SpanPredictor,
    docs: Iterable[Mapping[str, Any]],
    gold_masks: Mapping[str, Sequence[SpanLike]],
    batch_size: int = 64,
) -> MaskerEvaluation:
    """Run ``tagger`` on ``docs`` (dicts with ``doc_id`` and ``text``) and score its masks.

    Every predicted span counts as a mask, whatever its label. ``gold_masks`` is
    ``{doc_id: spans}`` (e.g. from :func:`distant_examples`, with the span policy the
    tagger was trained with). See :func:`score_masks` for the scores.
    """
    doc_list = list(docs)
    texts: dict[str, str] = {}
    for i, d in enumerate(doc_list, 1):
        doc_id = document_id(d, i)
        if doc_id in texts:
            raise ValueError(f"duplicate document id {doc_id!r}")
        texts[doc_id] = d["text"]
    ids = list(texts)
    pred: dict[str, list[EntitySpan]] = {}
    for b in range(0, len(ids), batch_size):
        chunk = ids[b : b + batch_size]
        for doc_id, spans in zip(
            chunk, tagger.predict_batch([texts[d] for d in chunk]), strict=True
        ):
            pred[doc_id] = list(spans)
    return score_masks(texts, gold_masks, pred)
