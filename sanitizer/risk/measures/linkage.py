"""``linkage``: seed 001's Algorithm 1 (§3.2.2) with a local BM25 index in place of the web.

The adversary searches the background documents (the collection's other documents, or a
corpus the user uploads; nothing leaves the machine). Searches are conjunctive, as a web
search for several terms is: a document is retrieved for a query when it contains every
word of every query entity, ranked by BM25 (``bm25s``), top ``top_docs`` kept.

1. ``person_docs`` = documents retrieved for the person's name;
2. for every combination of candidate entities up to ``max_arity``, the documents retrieved
   for it; when they include one of ``person_docs``, the combination links the text to
   documents about the person and is risky. Score: how many such documents.

Supersets of a risky combination are not searched (they are implied), and neither are
combinations whose documents cannot reach ``person_docs`` at all (a superset only narrows
the documents), so the search stays small.

Config keys: ``background`` (a :class:`BackgroundIndex`; without one the measure finds
nothing), ``max_arity``, ``top_docs``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN

from sanitizer.risk import RiskDocument, RiskEntity, RiskyCombination, risk_measures
from sanitizer.risk.entities import entity_text
from sanitizer.risk.measures.common import (
    DEFAULT_MAX_ARITY,
    candidates,
    counted,
    minimal_combinations,
    quoted,
    risky_combination,
)

DEFAULT_TOP_DOCS = 10
_TOKEN = re.compile(r"(?u)\b\w\w+\b")
_STOP = frozenset(STOPWORDS_EN)


def search_tokens(text: str) -> list[str]:
    """Lower-cased words of two characters or more, English stop words removed (bm25s-style)."""
    folded = unicodedata.normalize("NFC", text).casefold()
    return [t for t in _TOKEN.findall(folded) if t not in _STOP]


class BackgroundIndex:
    """BM25 index of background documents plus, per word, the documents containing it."""

    def __init__(self, documents: Sequence[tuple[str, str]]) -> None:
        """``documents``: ``(doc_id, text)`` pairs."""
        self.doc_ids = [doc_id for doc_id, _ in documents]
        tokens = [search_tokens(text) for _, text in documents]
        self._postings: dict[str, set[int]] = {}
        for i, toks in enumerate(tokens):
            for tok in set(toks):
                self._postings.setdefault(tok, set()).add(i)
        self._bm25: bm25s.BM25 | None = None
        if any(tokens):
            self._bm25 = bm25s.BM25()
            self._bm25.index([t or [""] for t in tokens], show_progress=False)

    def __len__(self) -> int:
        return len(self.doc_ids)

    def matching(self, words: Sequence[str]) -> set[int]:
        """Documents containing every word (all documents for no words)."""
        result: set[int] | None = None
        for word in sorted(set(words), key=lambda w: len(self._postings.get(w, ()))):
            docs = self._postings.get(word, set())
            result = set(docs) if result is None else result & docs
            if not result:
                return set()
        return set(range(len(self.doc_ids))) if result is None else result

    def search(self, words: Sequence[str], top: int, exclude: str | None = None) -> list[int]:
        """Top ``top`` documents (indices) containing every word, best BM25 score first."""
        docs = self.matching(words)
        if exclude is not None:
            docs = {i for i in docs if self.doc_ids[i] != exclude}
        if len(docs) <= top or self._bm25 is None:
            return sorted(docs)
        scores = np.asarray(self._bm25.get_scores(list(words)))
        return sorted(sorted(docs, key=lambda i: (-scores[i], i))[:top])


@risk_measures.register("linkage")
def linkage_risk(document: RiskDocument, config: Mapping[str, Any]) -> list[RiskyCombination]:
    """Combinations whose search results reach documents about the person (Algorithm 1)."""
    index: BackgroundIndex | None = config.get("background")
    person_words = search_tokens(document.person)
    if index is None or not len(index) or not person_words:
        return []
    top = int(config.get("top_docs", DEFAULT_TOP_DOCS))
    max_arity = int(config.get("max_arity", DEFAULT_MAX_ARITY))
    person_docs = set(index.search(person_words, top, exclude=document.doc_id))
    if not person_docs:
        return []
    words = {e.entity_id: search_tokens(entity_text(e)) for e in candidates(document)}
    # Only entities found in some document about the person can ever link to it.
    pool = [
        e
        for e in candidates(document)
        if words[e.entity_id] and index.matching(words[e.entity_id]) & person_docs
    ]
    hits: dict[frozenset[str], int] = {}

    def combo_words(combo: tuple[RiskEntity, ...]) -> list[str]:
        return [w for e in combo for w in words[e.entity_id]]

    def reaches(combo: tuple[RiskEntity, ...]) -> bool:
        return bool(index.matching(combo_words(combo)) & person_docs)

    def risky(combo: tuple[RiskEntity, ...]) -> bool:
        found = set(index.search(combo_words(combo), top, exclude=document.doc_id))
        hits[frozenset(e.entity_id for e in combo)] = len(found & person_docs)
        return bool(found & person_docs)

    about = (
        "the applicant"
        if document.attrs.get("person_source") == "applicant"
        else (f"'{document.person}'")
    )
    out: list[RiskyCombination] = []
    for combo in minimal_combinations(pool, max_arity, risky, reaches):
        n = hits[frozenset(e.entity_id for e in combo)]
        reason = f"linkage: {quoted(combo)} → {counted(n, 'document')} about {about}"
        out.append(risky_combination(combo, "linkage", float(n), reason))
    return out
