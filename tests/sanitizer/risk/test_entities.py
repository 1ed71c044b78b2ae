"""Mentions → entities, the DIRECT rule and the person to protect."""

from __future__ import annotations

from sanitizer.risk.entities import group_entities, normalise, person_to_protect
from tests.sanitizer.risk.helpers import spans_for

TEXT = (
    "The applicant, Mr Cengiz Polat, is a teacher. Polat lives in Diyarbakır. "
    "Mr Polat and the teacher met in diyarbakır. Ayşe Kaya and Ali Kaya testified; Mr Kaya "
    "lodged application no. 40593/04."
)


def _entities() -> dict[str, tuple[str, str | None, list[str]]]:
    spans = spans_for(
        TEXT,
        ("Cengiz Polat", "PERSON"),
        ("Mr Polat", "PERSON"),
        ("teacher", "DEM"),
        ("Diyarbakır", "LOC"),
        ("diyarbakır", "LOC"),
        ("Ayşe Kaya", "PERSON"),
        ("Ali Kaya", "PERSON"),
        ("Mr Kaya", "PERSON"),
        ("40593/04", "CODE"),
    )
    entities = group_entities(spans)
    return {
        e.entity_id: (e.label, e.identifier_type, [m.text for m in e.mentions]) for e in entities
    }


def test_normalise_ignores_case_titles_and_punctuation() -> None:
    assert normalise("The  Court.") == "court"
    assert normalise("Mr Polat") == normalise("polat") == "polat"
    assert normalise("the") == "the"  # a lone title word stays what it is


def test_mentions_of_one_surface_form_and_surnames_are_one_entity() -> None:
    groups = sorted(tuple(m) for _, _, m in _entities().values())
    # "Mr Polat" joins the one longer name containing it; both spellings of Diyarbakır join.
    assert ("Cengiz Polat", "Mr Polat") in groups
    assert ("Diyarbakır", "diyarbakır") in groups
    assert ("teacher", "teacher") in groups
    # "Kaya" is contained in two longer names: it stays its own entity.
    assert ("Ayşe Kaya",) in groups and ("Ali Kaya",) in groups
    assert ("Mr Kaya",) in groups


def test_entity_ids_follow_first_mentions_and_direct_rule() -> None:
    entities = _entities()
    assert list(entities) == [f"e{i}" for i in range(1, len(entities) + 1)]
    assert entities["e1"][2][0] == "Cengiz Polat"
    kinds = {m[0]: (label, kind) for label, kind, m in entities.values()}
    assert kinds["Cengiz Polat"] == ("PERSON", "DIRECT")
    assert kinds["40593/04"] == ("CODE", "DIRECT")
    assert kinds["teacher"] == ("DEM", "QUASI")
    assert kinds["Diyarbakır"] == ("LOC", "QUASI")


def test_person_to_protect_prefers_the_applicant_then_the_most_mentioned() -> None:
    spans = spans_for(
        TEXT, ("Cengiz Polat", "PERSON"), ("Mr Polat", "PERSON"), ("Ali Kaya", "PERSON")
    )
    entities = group_entities(spans)
    assert person_to_protect(entities, {"applicant": "Ali Kaya"}) == ("Ali Kaya", "e2")
    assert person_to_protect(entities, {"applicant": "Nobody Else"}) == ("Nobody Else", None)
    # Without meta: the PERSON entity with most mentions, named by its longest mention.
    assert person_to_protect(entities, None) == ("Cengiz Polat", "e1")
    assert person_to_protect([], None) == ("", None)
