"""Inverted index: normalised term → roaring bitmap of dense person ids.

Building streams persons once. Postings are accumulated as two flat ``array('I')``
buffers (term id, person id) instead of per-posting Python objects; at the end one
stable numpy sort groups them by term and each group becomes a compressed
:class:`pyroaring.BitMap`. A person's dense id is its position in the stream.

On disk an index is a directory (format ``distant-index`` version
:data:`FORMAT_VERSION`)::

    meta.json      format, version, counts, normalisation, build options
    terms.txt      one normalised term per line, line number = term id
    counts.npy     uint32 posting-list length per term
    offsets.npy    uint64 byte offsets of each serialised bitmap in postings.bin
    postings.bin   concatenated ``BitMap.serialize()`` blobs
    persons.tsv    dense id order: external id <TAB> name

Loading memory-maps ``postings.bin`` and deserialises bitmaps on demand.
"""

from __future__ import annotations

import json
import mmap
import os
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pyroaring import BitMap

from sanitizer.kanon.kb import Person, ProgressCallback
from sanitizer.kanon.variants import TermExtractor, normalize

FORMAT_NAME = "distant-index"
FORMAT_VERSION = 1


class InvertedIndex:
    """Read-only term → persons index with Boolean AND queries.

    Terms passed to :meth:`count`, :meth:`query` and :meth:`postings` are
    normalised with :func:`~sanitizer.kanon.variants.normalize` first; unknown
    terms have an empty posting list.
    """

    def __init__(
        self,
        terms: list[str],
        counts: np.ndarray,
        offsets: np.ndarray,
        blob: bytes | mmap.mmap,
        person_ids: list[str],
        person_names: list[str],
        meta: dict[str, Any] | None = None,
        cache_min_count: int = 256,
    ) -> None:
        self.terms = terms
        self.term_to_id: dict[str, int] = {t: i for i, t in enumerate(terms)}
        self.counts = counts
        self.offsets = offsets
        self._blob = blob
        self.person_ids = person_ids
        self.person_names = person_names
        self.meta = dict(meta or {})
        # Frequent terms (dates, places, jobs) recur in most documents: keep their
        # deserialised bitmaps; rare ones are cheap to deserialise again.
        self._cache: dict[int, BitMap] = {}
        self._cache_min_count = cache_min_count

    # ------------------------------------------------------------------ queries

    @property
    def n_persons(self) -> int:
        """Number of persons indexed."""
        return len(self.person_ids)

    @property
    def n_terms(self) -> int:
        """Number of distinct terms."""
        return len(self.terms)

    def term_id(self, term: str) -> int | None:
        """Id of a (raw or normalised) term, or ``None`` if it is not indexed."""
        tid = self.term_to_id.get(term)
        if tid is None:
            tid = self.term_to_id.get(normalize(term))
        return tid

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self.term_id(term) is not None

    def postings_by_id(self, tid: int) -> BitMap:
        """Posting list of term id ``tid``. Do not mutate: it may be shared via the cache."""
        bm = self._cache.get(tid)
        if bm is not None:
            return bm
        start, end = int(self.offsets[tid]), int(self.offsets[tid + 1])
        bm = BitMap.deserialize(self._blob[start:end])
        if int(self.counts[tid]) >= self._cache_min_count:
            self._cache[tid] = bm
        return bm

    def postings(self, term: str) -> BitMap:
        """Posting list (dense person ids) of ``term``; empty if unknown. Do not mutate."""
        tid = self.term_id(term)
        return BitMap() if tid is None else self.postings_by_id(tid)

    def term_count(self, term: str) -> int:
        """How many persons have ``term`` (without deserialising its postings)."""
        tid = self.term_id(term)
        return 0 if tid is None else int(self.counts[tid])

    def query(self, terms: Iterable[str]) -> BitMap:
        """Persons having every term (Boolean AND); all persons for an empty query."""
        bitmaps = sorted((self.postings(t) for t in terms), key=len)
        if not bitmaps:
            return BitMap(range(self.n_persons))
        result = BitMap(bitmaps[0])
        for bm in bitmaps[1:]:
            if not result:
                break
            result &= bm
        return result

    def count(self, terms: Iterable[str]) -> int:
        """Number of persons having every term."""
        terms = list(terms)
        if len(terms) == 1:
            return self.term_count(terms[0])
        if len(terms) == 2:
            return self.postings(terms[0]).intersection_cardinality(self.postings(terms[1]))
        return len(self.query(terms))

    def persons(self, ids: Iterable[int]) -> list[tuple[str, str]]:
        """``(external id, name)`` of dense person ids."""
        return [(self.person_ids[i], self.person_names[i]) for i in ids]

    # ------------------------------------------------------------------ persistence

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Write the index to ``directory`` (created if needed); returns its path."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        with open(d / "terms.txt", "w", encoding="utf-8") as fh:
            fh.write("\n".join(self.terms))
        np.save(d / "counts.npy", np.asarray(self.counts, dtype=np.uint32))
        np.save(d / "offsets.npy", np.asarray(self.offsets, dtype=np.uint64))
        with open(d / "postings.bin", "wb") as fh:
            fh.write(self._blob[: int(self.offsets[-1])])
        with open(d / "persons.tsv", "w", encoding="utf-8") as fh:
            for pid, name in zip(self.person_ids, self.person_names, strict=True):
                fh.write(f"{_tsv_clean(pid)}\t{_tsv_clean(name)}\n")
        meta = {
            **self.meta,
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "n_terms": self.n_terms,
            "n_persons": self.n_persons,
            "normalisation": "fold_chars+collapse_whitespace/v1",
        }
        (d / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        return d

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> InvertedIndex:
        """Load an index written by :meth:`save`; ``postings.bin`` is memory-mapped."""
        d = Path(directory)
        meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT_NAME or meta.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"{d} holds {meta.get('format')} v{meta.get('version')}, "
                f"expected {FORMAT_NAME} v{FORMAT_VERSION}"
            )
        text = (d / "terms.txt").read_text(encoding="utf-8")
        terms = text.split("\n") if text else []
        counts = np.load(d / "counts.npy")
        offsets = np.load(d / "offsets.npy")
        blob: bytes | mmap.mmap
        size = (d / "postings.bin").stat().st_size
        if size:
            with open(d / "postings.bin", "rb") as fh:
                blob = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        else:
            blob = b""
        ids: list[str] = []
        names: list[str] = []
        with open(d / "persons.tsv", encoding="utf-8") as fh:
            for line in fh:
                pid, _, name = line.rstrip("\n").partition("\t")
                ids.append(pid)
                names.append(name)
        if len(terms) != meta["n_terms"] or len(ids) != meta["n_persons"]:
            raise ValueError(f"{d}: files disagree with meta.json")
        return cls(terms, counts, offsets, blob, ids, names, meta)


def _tsv_clean(value: str) -> str:
    return value.replace("\t", " ").replace("\n", " ")


class IndexBuilder:
    """Accumulates persons' terms and produces an :class:`InvertedIndex`.

    ``max_df`` drops terms shared by more than that many persons (an int) or that
    fraction of them (a float in (0, 1]); such terms are too generic to identify
    anyone and would only slow queries down.
    """

    def __init__(
        self,
        extractor: TermExtractor | None = None,
        max_df: float | int | None = None,
    ) -> None:
        self.extractor = extractor or TermExtractor()
        self.max_df = max_df
        self._term_to_id: dict[str, int] = {}
        self._terms: list[str] = []
        self._post_terms = array("I")
        self._post_persons = array("I")
        self.person_ids: list[str] = []
        self.person_names: list[str] = []

    def add(self, person: Person) -> int:
        """Index one person; returns its dense id."""
        pid = len(self.person_ids)
        self.person_ids.append(person.id)
        self.person_names.append(person.name)
        ids = self._term_to_id
        tids = []
        for term in self.extractor.terms(person):
            tid = ids.get(term)
            if tid is None:
                tid = ids[term] = len(self._terms)
                self._terms.append(term)
            tids.append(tid)
        self._post_terms.extend(tids)
        self._post_persons.extend([pid] * len(tids))
        return pid

    def add_all(
        self,
        persons: Iterable[Person],
        progress: ProgressCallback | None = None,
        progress_every: int = 100_000,
    ) -> int:
        """Index a stream of persons; returns how many were added."""
        n = 0
        for person in persons:
            self.add(person)
            n += 1
            if progress is not None and n % progress_every == 0:
                progress(n, None, "persons indexed")
        return n

    def build(self, progress: ProgressCallback | None = None) -> InvertedIndex:
        """Group postings by term into roaring bitmaps. Frees the builder's buffers."""
        n_terms = len(self._terms)
        t = np.frombuffer(self._post_terms, dtype=np.uint32)
        p = np.frombuffer(self._post_persons, dtype=np.uint32)
        counts = np.bincount(t, minlength=n_terms).astype(np.int64)
        # Persons were added in increasing id order, so a stable sort by term keeps
        # each posting list sorted.
        order = np.argsort(t, kind="stable")
        p_sorted = p[order]
        del order, t, p
        self._post_terms = array("I")
        self._post_persons = array("I")
        starts = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])

        keep = np.ones(n_terms, dtype=bool)
        limit = _df_limit(self.max_df, len(self.person_ids))
        if limit is not None:
            keep &= counts <= limit
        terms: list[str] = []
        kept_counts: list[int] = []
        offsets = [0]
        chunks: list[bytes] = []
        total = 0
        starts_l = starts.tolist()
        for tid in np.flatnonzero(keep).tolist():
            blob = BitMap(p_sorted[starts_l[tid] : starts_l[tid + 1]]).serialize()
            chunks.append(blob)
            total += len(blob)
            offsets.append(total)
            terms.append(self._terms[tid])
            kept_counts.append(starts_l[tid + 1] - starts_l[tid])
            if progress is not None and len(terms) % 1_000_000 == 0:
                progress(len(terms), n_terms, "posting lists compressed")
        del p_sorted
        self._terms = []
        self._term_to_id = {}
        meta = {"max_df": self.max_df, "dropped_terms": int(n_terms - len(terms))}
        return InvertedIndex(
            terms,
            np.asarray(kept_counts, dtype=np.uint32),
            np.asarray(offsets, dtype=np.uint64),
            b"".join(chunks),
            self.person_ids,
            self.person_names,
            meta,
        )


def _df_limit(max_df: float | int | None, n_persons: int) -> int | None:
    if max_df is None:
        return None
    if isinstance(max_df, float) and 0 < max_df <= 1:
        return int(max_df * n_persons)
    return int(max_df)


def build_index(
    persons: Iterable[Person],
    extractor: TermExtractor | None = None,
    max_df: float | int | None = None,
    progress: ProgressCallback | None = None,
) -> InvertedIndex:
    """Build an index from a stream of persons (see :class:`IndexBuilder`)."""
    builder = IndexBuilder(extractor, max_df=max_df)
    builder.add_all(persons, progress=progress)
    return builder.build(progress=progress)


def index_from_postings(
    postings: dict[str, Sequence[int]], n_persons: int | None = None
) -> InvertedIndex:
    """Index straight from ``{term: person ids}`` (terms normalised; for tests and tools)."""
    merged: dict[str, set[int]] = {}
    for term, ids in postings.items():
        merged.setdefault(normalize(term), set()).update(ids)
    n = (
        n_persons
        if n_persons is not None
        else 1 + max((max(s) for s in merged.values() if s), default=-1)
    )
    terms = sorted(merged)
    blobs = [BitMap(sorted(merged[t])).serialize() for t in terms]
    offsets = np.zeros(len(terms) + 1, dtype=np.uint64)
    np.cumsum([len(b) for b in blobs], out=offsets[1:])
    counts = np.asarray([len(merged[t]) for t in terms], dtype=np.uint32)
    person_ids = [str(i) for i in range(n)]
    return InvertedIndex(terms, counts, offsets, b"".join(blobs), person_ids, list(person_ids), {})
