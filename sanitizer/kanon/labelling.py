"""Distant labelling: gazetteer + inverted index + Algorithm 1 → character masks.

``label_document`` finds index terms in a text, decides with
:func:`~sanitizer.kanon.algorithm.terms_to_mask` which must go for k-anonymity,
and masks every occurrence of each masked term. ``label_documents`` and
``label_file`` do the same for a collection and produce
``{doc_id: [[start, end], ...]}`` plus an explanation record per document.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sanitizer.kanon.algorithm import MaskDecision, SelectionFunction, terms_to_mask
from sanitizer.kanon.gazetteer import Gazetteer, GazetteerMatch
from sanitizer.kanon.index import InvertedIndex, build_index
from sanitizer.kanon.kb import ProgressCallback, open_text, read_kb
from sanitizer.kanon.variants import TermExtractor, expand_all
from sanitizer.types import EntitySpan


@dataclass
class DistantLabels:
    """Masking decisions for one document."""

    doc_id: str
    masks: list[tuple[int, int]]
    occurrences: list[GazetteerMatch]
    explanations: list[MaskDecision]
    unresolved: list[tuple[tuple[str, ...], int]] = field(default_factory=list)

    @property
    def masked_terms(self) -> list[str]:
        """Masked terms, in the order Algorithm 1 chose them."""
        return [e.term for e in self.explanations]

    def explain_json(self) -> dict[str, Any]:
        """JSON-ready explanation: each masked term, the combination that forced it, its count."""
        return {
            "masked": [
                {
                    "term": e.term,
                    "combination": list(e.combination),
                    "count": e.count,
                    "explanation": e.explain(),
                }
                for e in self.explanations
            ],
            "found_terms": sorted({o.term for o in self.occurrences}),
            "unresolved": [{"combination": list(c), "count": n} for c, n in self.unresolved],
        }

    def entity_spans(self, text: str, label: str = "MISC") -> list[EntitySpan]:
        """Masks as :class:`EntitySpan` (``source="distant"``).

        The identifier type is ``DIRECT`` when the term alone singles out one
        person and ``QUASI`` otherwise; the semantic ``label`` is not known to
        distant supervision and defaults to ``MISC``.
        """
        by_term = {e.term: e for e in self.explanations}
        out: list[EntitySpan] = []
        for occ in self.occurrences:
            dec = by_term.get(occ.term)
            if dec is None:
                continue
            direct = len(dec.combination) == 1 and dec.count == 1
            out.append(
                EntitySpan(
                    start=occ.start,
                    end=occ.end,
                    label=label,
                    text=text[occ.start : occ.end],
                    source="distant",
                    identifier_type="DIRECT" if direct else "QUASI",
                    attrs={
                        "term": occ.term,
                        "combination": list(dec.combination),
                        "count": dec.count,
                    },
                )
            )
        return out


def _doc_seed(seed: int | None, doc_id: str) -> int | None:
    # Per-document seed so random selection does not depend on document order.
    if seed is None:
        return None
    return (seed * 1_000_003) ^ zlib.crc32(doc_id.encode("utf-8"))


def label_document(
    text: str,
    index: InvertedIndex,
    gazetteer: Gazetteer,
    k: int = 5,
    max_arity: int = 3,
    selection: str | SelectionFunction = "greedy",
    seed: int | None = 0,
    known_terms: Iterable[str] = (),
    doc_id: str = "",
) -> DistantLabels:
    """Mask the terms of ``text`` that break k-anonymity against ``index``.

    ``known_terms`` are normalised facts the adversary knows regardless of the
    text. Every occurrence of a masked term becomes one ``(start, end)`` mask.
    """
    occurrences = gazetteer.find(text)
    found = {o.term for o in occurrences}
    result = terms_to_mask(
        found,
        index,
        k=k,
        max_arity=max_arity,
        selection=selection,
        seed=_doc_seed(seed, doc_id),
        known_terms=known_terms,
    )
    masked = set(result.masked)
    masks = [(o.start, o.end) for o in occurrences if o.term in masked]
    explanations = [result.decisions[t] for t in result.masked]
    return DistantLabels(doc_id, masks, occurrences, explanations, result.unresolved)


def iter_documents(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Documents of a TAB-style JSON list (or dict keyed by id) or a JSONL file."""
    p = str(path)
    if p.endswith((".jsonl", ".jsonl.gz", ".jsonl.bz2")):
        with open_text(p) as fh:
            for line in fh:
                if line.strip():
                    yield json.loads(line)
        return
    with open_text(p) as fh:
        data = json.load(fh)
    if isinstance(data, dict):
        for doc_id, doc in data.items():
            yield (
                {"doc_id": doc_id, **doc}
                if isinstance(doc, dict)
                else {"doc_id": doc_id, "text": doc}
            )
    else:
        yield from data


def document_id(doc: Mapping[str, Any], position: int) -> str:
    """``doc["doc_id"]`` as a string, or the document's 1-based ``position`` when it has none."""
    return str(doc.get("doc_id", position))


def label_each(
    documents: Iterable[Mapping[str, Any]],
    index: InvertedIndex,
    gazetteer: Gazetteer,
    k: int = 5,
    max_arity: int = 3,
    selection: str | SelectionFunction = "greedy",
    seed: int | None = 0,
    known_facts: Iterable[str] = (),
) -> Iterator[tuple[str, Mapping[str, Any], DistantLabels]]:
    """``(doc_id, document, labels)`` for each document, in order.

    A document without ``doc_id`` is named by its 1-based position. ``known_facts`` are raw
    attribute values (expanded to their variants) known for every document.
    """
    known = expand_all(known_facts) if known_facts else set()
    for i, doc in enumerate(documents, 1):
        doc_id = document_id(doc, i)
        labels = label_document(
            doc["text"], index, gazetteer, k, max_arity, selection, seed, known, doc_id
        )
        yield doc_id, doc, labels


def label_documents(
    documents: Iterable[dict[str, Any]],
    index: InvertedIndex,
    gazetteer: Gazetteer,
    k: int = 5,
    max_arity: int = 3,
    selection: str | SelectionFunction = "greedy",
    seed: int | None = 0,
    known_facts: Iterable[str] = (),
    progress: ProgressCallback | None = None,
) -> tuple[dict[str, list[list[int]]], dict[str, Any]]:
    """Label documents (dicts with ``doc_id`` and ``text``).

    ``known_facts`` are raw attribute values (expanded to their variants) known
    for every document. Returns ``({doc_id: [[start, end], ...]}, explain)``.
    """
    masks: dict[str, list[list[int]]] = {}
    explain: dict[str, Any] = {}
    labelled = label_each(documents, index, gazetteer, k, max_arity, selection, seed, known_facts)
    for i, (doc_id, _, labels) in enumerate(labelled, 1):
        masks[doc_id] = [[s, e] for s, e in labels.masks]
        explain[doc_id] = labels.explain_json()
        if progress is not None and i % 1000 == 0:
            progress(i, None, "documents labelled")
    return masks, explain


def load_or_build(
    kb_path: str | os.PathLike[str] | None = None,
    index_dir: str | os.PathLike[str] | None = None,
    kb_format: str | None = None,
    max_df: float | int | None = None,
    extractor: TermExtractor | None = None,
    progress: ProgressCallback | None = None,
) -> tuple[InvertedIndex, Gazetteer]:
    """Index and gazetteer from a saved index directory, or built from a knowledge base.

    If ``index_dir`` holds an index it is loaded (``kb_path`` is then ignored);
    otherwise the index is built from ``kb_path`` and, when ``index_dir`` is
    given, saved there together with the gazetteer automaton.
    """
    if index_dir is not None and (Path(index_dir) / "meta.json").exists():
        index = InvertedIndex.load(index_dir)
        auto = Path(index_dir) / "gazetteer.pkl"
        gaz = (
            Gazetteer.load(auto, index.terms)
            if auto.exists()
            else Gazetteer.from_terms(index.terms)
        )
        return index, gaz
    if kb_path is None:
        raise ValueError("need a knowledge base (kb_path) or a saved index (index_dir)")
    index = build_index(read_kb(kb_path, kb_format), extractor, max_df=max_df, progress=progress)
    gaz = Gazetteer.from_terms(index.terms)
    if index_dir is not None:
        index.save(index_dir)
        gaz.save(Path(index_dir) / "gazetteer.pkl")
    return index, gaz


def label_file(
    input_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    kb_path: str | os.PathLike[str] | None = None,
    explain_path: str | os.PathLike[str] | None = None,
    index_dir: str | os.PathLike[str] | None = None,
    k: int = 5,
    max_arity: int = 3,
    selection: str = "greedy",
    seed: int | None = 0,
    kb_format: str | None = None,
    max_df: float | int | None = None,
    known_facts: Iterable[str] = (),
    progress: ProgressCallback | None = None,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """End-to-end: knowledge base (or saved index) + documents file → masks JSON.

    Writes ``{doc_id: [[start, end], ...]}`` to ``output_path`` and, if
    ``explain_path`` is given, the per-document explanations. Returns a summary
    (document count, mask count, timings).
    """
    t0 = time.perf_counter()
    index, gaz = load_or_build(kb_path, index_dir, kb_format, max_df, progress=progress)
    t1 = time.perf_counter()
    if log:
        log(f"index ready: {index.n_persons} persons, {index.n_terms} terms in {t1 - t0:.1f}s")
    masks, explain = label_documents(
        iter_documents(input_path), index, gaz, k, max_arity, selection, seed, known_facts, progress
    )
    t2 = time.perf_counter()
    Path(output_path).write_text(json.dumps(masks, ensure_ascii=False), encoding="utf-8")
    if explain_path is not None:
        payload = {
            "k": k,
            "max_arity": max_arity,
            "selection": selection,
            "seed": seed,
            "documents": explain,
        }
        Path(explain_path).write_text(
            json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8"
        )
    summary = {
        "documents": len(masks),
        "masks": sum(len(v) for v in masks.values()),
        "index_s": t1 - t0,
        "label_s": t2 - t1,
    }
    if log:
        log(
            f"labelled {summary['documents']} documents, {summary['masks']} masks in {t2 - t1:.1f}s"
        )
    return summary
