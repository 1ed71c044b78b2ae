"""``bm25``: BM25 (``bm25s``) of the document's unmasked words against each profile's text.

The query is the document's lower-cased words minus stopwords, masked words removed, each
occurrence counted (``bm25s`` sums a term's score once per query occurrence). A profile's
score is therefore ``sum_t count(t) * w[t, profile]`` with ``w`` the BM25 index, which makes
the greedy search's question exact and cheap: masking a candidate subtracts its terms'
score vectors (:meth:`BM25Model.candidate_drops`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import bm25s
import numpy as np
import scipy.sparse as sp

from sanitizer.kanon.kb import Person
from sanitizer.reid.base import Span, reid_models
from sanitizer.reid.profiles import kb_fingerprint, profile_rows, profile_text
from sanitizer.reid.words import STOPWORDS, masked_flags, terms, word_spans

# bm25s logs an info line for every empty query; a fully masked document is ordinary here.
logging.getLogger("bm25s").setLevel(logging.WARNING)


def _target_log_prob(scores: np.ndarray, t: int, n_zero: int) -> np.ndarray:
    """``log p(column t)`` of each row, with ``n_zero`` more profiles scoring exactly 0.

    ``-log1p(sum_{j != t} exp(s_j - s_t))`` (see :func:`sanitizer.reid.base.target_log_prob`).
    """
    gaps = scores - scores[:, t : t + 1]
    gaps[:, t] = -np.inf
    if n_zero:
        gaps = np.concatenate([gaps, np.log(n_zero) - scores[:, t : t + 1]], axis=1)
    top = gaps.max(axis=1, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    lse = top[:, 0] + np.log(np.exp(gaps - top).sum(axis=1))
    out: np.ndarray = -np.logaddexp(0.0, lse)
    return out


class BM25Model:
    """BM25 over ``profile_text`` rows; ``softmax(score / temperature)`` is p(person)."""

    name = "bm25"

    def __init__(
        self,
        profiles: Sequence[Person],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        temperature: float = 1.0,
        fingerprint: str | None = None,
    ) -> None:
        """``fingerprint``: ``kb_fingerprint(profiles)`` if the caller has it (else computed)."""
        self.profiles = list(profiles)
        self.profile_ids = [p.id for p in self.profiles]
        self.temperature = float(temperature)
        fp = kb_fingerprint(self.profiles) if fingerprint is None else fingerprint
        self.version = f"bm25s-{bm25s.__version__}-k1={k1}-b={b}-kb={fp}"
        retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
        retriever.index(
            [terms(profile_text(p)) or [""] for p in self.profiles], show_progress=False
        )
        index = retriever.scores
        n_terms = len(index["indptr"]) - 1
        # Rows are terms, columns profiles: w[t] is term t's score vector.
        self.weights = sp.csr_matrix(
            (index["data"], index["indices"], index["indptr"]),
            shape=(n_terms, int(index["num_docs"])),
            dtype=np.float32,
        )
        self._last: tuple[str, list[Span], np.ndarray] | None = None
        self.vocab: dict[str, int] = {
            str(t): int(i) for t, i in retriever.vocab_dict.items() if t != ""
        }

    # ------------------------------------------------------------------ scoring

    def _term_ids(self, text: str) -> tuple[list[Span], np.ndarray]:
        """Word spans and each word's term id (−1: stopword or unknown to every profile).

        The greedy search asks about the same text at every step: the last one is kept.
        """
        last = self._last  # one read: another thread may replace it (never mutates it)
        if last is not None and last[0] == text:
            return last[1], last[2]
        spans = word_spans(text)
        ids = np.fromiter(
            (
                -1 if (w := text[s:e].lower()) in STOPWORDS else self.vocab.get(w, -1)
                for s, e in spans
            ),
            dtype=np.int64,
            count=len(spans),
        )
        self._last = (text, spans, ids)
        return spans, ids

    def _raw_scores(self, text: str, masks: Sequence[Span]) -> np.ndarray:
        spans, ids = self._term_ids(text)
        keep = ids[(ids >= 0) & ~np.asarray(masked_flags(spans, masks), dtype=bool)]
        if keep.size == 0:
            return np.zeros(len(self.profile_ids), dtype=np.float32)
        counts = np.bincount(keep, minlength=self.weights.shape[0]).astype(np.float32)
        return np.asarray(self.weights.T @ counts, dtype=np.float32).ravel()

    def scores(self, texts: Sequence[str], masks: Sequence[Sequence[Span]]) -> np.ndarray:
        """``[n_docs, n_profiles]`` BM25 scores divided by the temperature."""
        out = np.zeros((len(texts), len(self.profile_ids)), dtype=np.float32)
        for i, (text, m) in enumerate(zip(texts, masks, strict=True)):
            out[i] = self._raw_scores(text, m)
        return out / np.float32(self.temperature)

    def candidate_drops(
        self,
        text: str,
        masks: Sequence[Span],
        target_index: int,
        candidates: Sequence[Sequence[Span]],
    ) -> np.ndarray:
        """Exact decrease of log p(target) for each candidate, all at once.

        Each candidate removes its newly masked words' terms from the query, so its scores
        are ``current - removed_counts @ w[query terms]``. Only the profiles sharing a term
        with the query can move; the others keep score 0 and enter the normaliser as one
        term, ``n_untouched * exp(0 - s_target)``.
        """
        spans, ids = self._term_ids(text)
        n_cand = len(candidates)
        if n_cand == 0:
            return np.zeros(0, dtype=np.float64)
        active = (ids >= 0) & ~np.asarray(masked_flags(spans, masks), dtype=bool)
        query_terms, local = np.unique(ids[active], return_inverse=True)
        if query_terms.size == 0:
            return np.zeros(n_cand, dtype=np.float64)
        word_local = np.full(len(spans), -1, dtype=np.int64)
        word_local[np.flatnonzero(active)] = local
        removed = self._removed_counts(spans, word_local, candidates, query_terms.size)
        # The query's term rows, restricted to the profiles they touch (plus the target).
        block = self.weights[query_terms]
        touched = np.union1d(block.indices, [target_index])
        column = np.full(len(self.profile_ids), -1, dtype=np.int64)
        column[touched] = np.arange(touched.size)
        sub = sp.csr_matrix(
            (block.data.astype(np.float64), column[block.indices], block.indptr),
            shape=(query_terms.size, touched.size),
        )
        counts = np.bincount(local, minlength=query_terms.size).astype(np.float64)
        current = np.asarray(sub.T @ counts).ravel() / self.temperature
        after = current[None, :] - np.asarray(sub.T @ removed.T).T / self.temperature
        t = int(column[target_index])
        n_untouched = len(self.profile_ids) - touched.size
        before = _target_log_prob(current[None, :], t, n_untouched)[0]
        return np.asarray(before - _target_log_prob(after, t, n_untouched), dtype=np.float64)

    @staticmethod
    def _removed_counts(
        spans: Sequence[Span],
        word_local: np.ndarray,
        candidates: Sequence[Sequence[Span]],
        n_terms: int,
    ) -> np.ndarray:
        """``[n_candidates, n_terms]``: query occurrences each candidate would remove."""
        starts = np.fromiter((s for s, _ in spans), dtype=np.int64, count=len(spans))
        ends = np.fromiter((e for _, e in spans), dtype=np.int64, count=len(spans))
        owner = np.fromiter((c for c, cand in enumerate(candidates) for _ in cand), dtype=np.int64)
        flat = [span for cand in candidates for span in cand]
        removed = np.zeros((len(candidates), n_terms), dtype=np.float64)
        if not flat or not spans:
            return removed
        lo = np.searchsorted(ends, np.fromiter((s for s, _ in flat), np.int64, len(flat)), "right")
        hi = np.searchsorted(starts, np.fromiter((e for _, e in flat), np.int64, len(flat)), "left")
        n = np.maximum(hi - lo, 0)
        # Every (candidate, word) pair once, however many of its spans touch the word.
        cand = np.repeat(owner, n)
        word = np.repeat(lo, n) + (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n))
        pairs = np.unique(cand * len(spans) + word)
        cand, word = pairs // len(spans), pairs % len(spans)
        cols = word_local[word]
        keep = cols >= 0
        np.add.at(removed, (cand[keep], cols[keep]), 1.0)
        return removed

    # ------------------------------------------------------------------ explanations

    def links(self, text: str, masks: Sequence[Span], index: int, limit: int = 5) -> list[str]:
        """Profile ``index``'s rows sharing a term with the unmasked text, strongest first."""
        spans, ids = self._term_ids(text)
        flags = masked_flags(spans, masks)
        query = {int(t) for t, m in zip(ids, flags, strict=True) if t >= 0 and not m}
        column = self.weights[:, index].toarray().ravel()
        ranked: list[tuple[float, int, str]] = []
        for order, row in enumerate(profile_rows(self.profiles[index])):
            shared = {self.vocab[t] for t in terms(row) if t in self.vocab} & query
            if shared:
                ranked.append((-float(sum(column[t] for t in shared)), order, row))
        return [row for _w, _o, row in sorted(ranked)[:limit]]


@reid_models.register("bm25")
def bm25(profiles: Sequence[Person], *, model_dir: str | None = None, **options: Any) -> BM25Model:
    """BM25 needs no trained model: ``model_dir`` is ignored."""
    return BM25Model(profiles, **options)
