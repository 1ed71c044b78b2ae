"""Profiles as "key || value" rows, the KB fingerprint and the target of a document."""

from __future__ import annotations

from pathlib import Path

from sanitizer.reid.profiles import (
    kb_fingerprint,
    load_profiles,
    profile_rows,
    profile_text,
    target_of,
)
from tests.sanitizer.reid.helpers import profiles, write_kb


def test_rows_start_with_the_name_and_render_iso_dates_as_prose() -> None:
    person = profiles()[0]
    rows = profile_rows(person)
    assert rows[0] == "name || Ana Ribeiro Silva"
    assert "date of birth || 12 March 1987 (1987-03-12)" in rows
    assert "place of birth || Braga" in rows
    assert profile_text(person) == "\n".join(rows)


def test_fingerprint_changes_with_the_profiles(tmp_path: Path) -> None:
    people = load_profiles(write_kb(tmp_path / "kb.jsonl"))
    assert [p.id for p in people] == [p.id for p in profiles()]
    assert kb_fingerprint(people) == kb_fingerprint(profiles())
    people[1].attributes["occupation"] = ["painter"]
    assert kb_fingerprint(people) != kb_fingerprint(profiles())


def test_target_prefers_the_top_level_field_then_meta() -> None:
    assert target_of({"target": "p1", "meta": {"target": "p2", "person_id": "p3"}}) == "p1"
    assert target_of({"meta": {"target": "p2", "person_id": "p3"}}) == "p2"
    assert target_of({"meta": {"person_id": "p3"}}) == "p3"
    assert target_of({"text": "no one"}) is None
