"""Knowledge-base readers: Wikidata JSON dump and JSONL profiles."""

import bz2
import gzip
import json
from pathlib import Path

import pytest

from sanitizer.kanon.kb import Person, read_jsonl_profiles, read_kb, read_wikidata_dump


def _item(qid: str, label: str, claims: dict | None = None, **extra) -> dict:
    return {
        "type": "item",
        "id": qid,
        "labels": {"en": {"language": "en", "value": label}},
        "claims": claims or {},
        **extra,
    }


def _entity_claim(prop: str, target: str) -> dict:
    return {
        "mainsnak": {
            "snaktype": "value",
            "property": prop,
            "datavalue": {
                "type": "wikibase-entityid",
                "value": {"entity-type": "item", "id": target},
            },
        }
    }


def _time_claim(prop: str, time: str, precision: int) -> dict:
    return {
        "mainsnak": {
            "snaktype": "value",
            "property": prop,
            "datavalue": {"type": "time", "value": {"time": time, "precision": precision}},
        }
    }


ALBANO = _item(
    "Q100",
    "Leandro Albano",
    {
        "P31": [_entity_claim("P31", "Q5")],
        "P19": [_entity_claim("P19", "Q597")],
        "P569": [_time_claim("P569", "+1992-08-05T00:00:00Z", 11)],
        "P54": [_entity_claim("P54", "Q1000"), _entity_claim("P54", "Q999999")],
        "P1449": [{"mainsnak": {"snaktype": "novalue", "property": "P1449"}}],
    },
    aliases={"en": [{"language": "en", "value": "Leandro Micael Gomes Albano"}]},
    descriptions={"en": {"language": "en", "value": "Portuguese footballer"}},
)
DUMP_LINES = [
    "[",
    json.dumps(ALBANO) + ",",
    json.dumps(_item("Q597", "Lisbon", {"P31": [_entity_claim("P31", "Q515")]})) + ",",
    json.dumps(_item("Q1000", "Freamunde")) + ",",
    json.dumps(
        _item(
            "Q42",
            "Douglas Adams",
            {
                "P31": [_entity_claim("P31", "Q5")],
                "P569": [_time_claim("P569", "+1952-03-00T00:00:00Z", 10)],
            },
        )
    )
    + ",",
    json.dumps({"type": "property", "id": "P19", "labels": {"en": {"value": "place of birth"}}})
    + ",",
    json.dumps({"type": "property", "id": "P569", "labels": {"en": {"value": "date of birth"}}})
    + ",",
    json.dumps(_item("Q5", "human")),
    "]",
]


@pytest.mark.parametrize("suffix", [".json", ".json.gz", ".json.bz2"])
def test_wikidata_dump_humans_with_resolved_labels(tmp_path: Path, suffix: str) -> None:
    text = "\n".join(DUMP_LINES) + "\n"
    path = tmp_path / f"dump{suffix}"
    if suffix.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    elif suffix.endswith(".bz2"):
        path.write_bytes(bz2.compress(text.encode()))
    else:
        path.write_text(text)
    events: list[tuple[int, int | None, str]] = []
    people = list(read_wikidata_dump(path, progress=lambda d, t, m: events.append((d, t, m))))
    assert [p.id for p in people] == ["Q100", "Q42"]
    albano = people[0]
    assert albano.name == "Leandro Albano"
    assert albano.aliases == ["Leandro Micael Gomes Albano"]
    assert albano.attributes == {
        "place of birth": ["Lisbon"],
        "date of birth": ["1992-08-05"],
        "P54": ["Freamunde"],  # no property entity in the dump: P-id kept; Q999999 unresolvable
        "description": ["Portuguese footballer"],
    }
    assert people[1].attributes == {"date of birth": ["1952-03"]}
    assert events[-1] == (2, 2, "persons resolved")


def test_wikidata_other_language(tmp_path: Path) -> None:
    item = _item("Q7", "Ana", {"P31": [_entity_claim("P31", "Q5")]})
    item["labels"]["pt"] = {"language": "pt", "value": "Ana P"}
    path = tmp_path / "wikidata.json"
    path.write_text("[\n" + json.dumps(item) + "\n]\n")
    assert [p.name for p in read_kb(path, language="pt")] == ["Ana P"]


def test_jsonl_profiles(tmp_path: Path) -> None:
    path = tmp_path / "kb.jsonl.gz"
    rows = [
        {
            "id": "p1",
            "name": "Ana Silva",
            "aliases": ["A. Silva"],
            "attributes": {"occupation": ["lawyer"], "born": "1990"},
        },
        {"id": 2, "name": "Bruno", "attributes": {}},
    ]
    path.write_bytes(gzip.compress(("\n".join(json.dumps(r) for r in rows) + "\n\n").encode()))
    people = list(read_kb(path))
    assert people == [
        Person("p1", "Ana Silva", ["A. Silva"], {"occupation": ["lawyer"], "born": ["1990"]}),
        Person("2", "Bruno", [], {}),
    ]
    assert next(iter(read_jsonl_profiles(path))).to_json()["attributes"]["born"] == ["1990"]
