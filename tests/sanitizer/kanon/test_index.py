"""Inverted index: building, Boolean AND queries, persistence."""

from pathlib import Path

import pytest
from pyroaring import BitMap

from sanitizer.kanon.index import IndexBuilder, InvertedIndex, build_index
from sanitizer.kanon.kb import Person
from sanitizer.kanon.variants import TermExtractor

PEOPLE = [
    Person("A", "Ana Silva", [], {"place of birth": ["Lisbon"], "occupation": ["lawyer"]}),
    Person("B", "Bruno Costa", [], {"place of birth": ["Lisbon"], "occupation": ["singer"]}),
    Person("C", "Carla Silva", [], {"place of birth": ["Porto"], "occupation": ["lawyer"]}),
    Person("D", "Duarte Sousa", ["Duda"], {"place of birth": ["Lisbon"], "occupation": ["lawyer"]}),
]


def test_counts_and_queries() -> None:
    index = build_index(PEOPLE)
    assert index.n_persons == 4
    assert index.count(["Lisbon"]) == 3
    assert index.count(["lisbon", "LAWYER"]) == 2
    assert index.query(["lisbon", "lawyer"]) == BitMap([0, 3])
    assert index.query(["silva"]) == BitMap([0, 2])
    assert index.count(["silva", "lisbon", "lawyer"]) == 1
    assert index.count(["unknown term"]) == 0
    assert index.count(["duda"]) == 1
    assert index.persons(index.query(["porto"])) == [("C", "Carla Silva")]


def test_df_cutoff_drops_generic_terms() -> None:
    index = build_index(PEOPLE, max_df=2)
    assert "lisbon" not in index  # 3 people > 2
    assert "lawyer" not in index
    assert index.count(["silva"]) == 2
    assert index.meta["dropped_terms"] == 2
    frac = build_index(PEOPLE, max_df=0.5)
    assert "lisbon" not in frac and "silva" in frac


def test_round_trip(tmp_path: Path) -> None:
    index = build_index(PEOPLE)
    index.save(tmp_path / "idx")
    again = InvertedIndex.load(tmp_path / "idx")
    assert again.terms == index.terms
    assert again.person_ids == ["A", "B", "C", "D"]
    for term in index.terms:
        assert again.postings(term) == index.postings(term)
    assert again.count(["lisbon", "lawyer"]) == 2
    assert again.meta["version"] == 1


def test_load_rejects_other_versions(tmp_path: Path) -> None:
    d = build_index(PEOPLE).save(tmp_path / "idx")
    meta = (d / "meta.json").read_text().replace('"version": 1', '"version": 99')
    (d / "meta.json").write_text(meta)
    with pytest.raises(ValueError, match="expected distant-index v1"):
        InvertedIndex.load(d)


def test_builder_keeps_posting_lists_sorted() -> None:
    builder = IndexBuilder(TermExtractor(name_generators=()))
    for i in range(50):
        builder.add(Person(str(i), f"p{i}", [], {"group": [f"g{i % 3}"]}))
    index = builder.build()
    assert list(index.postings("g1")) == list(range(1, 50, 3))
    assert index.count(["g0"]) == 17
