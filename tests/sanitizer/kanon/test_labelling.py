"""Distant labelling end to end on a small hand-made knowledge base."""

import json
from pathlib import Path

from sanitizer.kanon.gazetteer import Gazetteer
from sanitizer.kanon.index import build_index
from sanitizer.kanon.kb import Person, write_jsonl_profiles
from sanitizer.kanon.labelling import label_document, label_file

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "distant"


def _kb() -> list[Person]:
    people = [
        Person(
            "Q1",
            "Leandro Micael Gomes Albano",
            [],
            {
                "place of birth": ["Lisbon"],
                "member of sports team": ["Freamunde"],
                "date of birth": ["1992-08-05"],
            },
        )
    ]
    # 9 more people born in Lisbon, 5 more who played for Freamunde (none from Lisbon)
    people += [
        Person(f"L{i}", f"Person L{i}", [], {"place of birth": ["Lisbon"]}) for i in range(9)
    ]
    people += [
        Person(
            f"F{i}",
            f"Person F{i}",
            [],
            {"member of sports team": ["Freamunde"], "date of birth": ["1992-01-0" + str(i + 1)]},
        )
        for i in range(5)
    ]
    return people


TEXT = (
    "Leandro Albano (born 5 August 1992 in Lisbon) played for Freamunde. "
    "Albano left Freamunde in 2015."
)


def test_label_document_masks_every_occurrence_and_explains() -> None:
    index = build_index(_kb())
    gaz = Gazetteer.from_terms(index.terms)
    labels = label_document(TEXT, index, gaz, k=5, max_arity=3, selection="greedy", doc_id="d1")
    masked_text = [TEXT[s:e] for s, e in labels.masks]
    # unique name and exact birth date are masked outright; Lisbon (10 people) + Freamunde
    # (6 people) share one person, so the shorter posting list (Freamunde) goes.
    assert masked_text == ["Leandro Albano", "5 August 1992", "Freamunde", "Albano", "Freamunde"]
    explained = {e.term: (e.combination, e.count) for e in labels.explanations}
    assert explained["freamunde"] == (("freamunde", "lisbon"), 1)
    assert explained["leandro albano"] == (("leandro albano",), 1)
    assert explained["5 august 1992"] == (("5 august 1992",), 1)
    assert explained["albano"] == (("albano",), 1)
    assert "lisbon" not in explained
    # "1992" inside the date is not a separate occurrence (longest match)
    assert sorted(explained) == ["5 august 1992", "albano", "freamunde", "leandro albano"]
    spans = labels.entity_spans(TEXT)
    assert [s.identifier_type for s in spans][:2] == ["DIRECT", "DIRECT"]
    assert spans[2].identifier_type == "QUASI"


def test_label_file_writes_masks_and_explanations(tmp_path: Path) -> None:
    write_jsonl_profiles(_kb(), tmp_path / "kb.jsonl")
    docs = [{"doc_id": "d1", "text": TEXT}, {"doc_id": "d2", "text": "Nothing to see here."}]
    (tmp_path / "docs.json").write_text(json.dumps(docs))
    summary = label_file(
        tmp_path / "docs.json",
        tmp_path / "masks.json",
        kb_path=tmp_path / "kb.jsonl",
        explain_path=tmp_path / "explain.json",
        index_dir=tmp_path / "index",
    )
    masks = json.loads((tmp_path / "masks.json").read_text())
    assert masks["d2"] == []
    assert [TEXT[s:e] for s, e in masks["d1"]] == [
        "Leandro Albano",
        "5 August 1992",
        "Freamunde",
        "Albano",
        "Freamunde",
    ]
    explain = json.loads((tmp_path / "explain.json").read_text())
    by_term = {m["term"]: m for m in explain["documents"]["d1"]["masked"]}
    assert by_term["leandro albano"] == {
        "term": "leandro albano",
        "combination": ["leandro albano"],
        "count": 1,
        "explanation": "leandro albano → 1 person",
    }
    assert summary["documents"] == 2
    # second run loads the saved index instead of rebuilding it
    assert (tmp_path / "index" / "gazetteer.pkl").exists()
    label_file(tmp_path / "docs.json", tmp_path / "masks2.json", index_dir=tmp_path / "index")
    assert json.loads((tmp_path / "masks2.json").read_text()) == masks


def test_fixture_biographies_get_their_subject_masked(tmp_path: Path) -> None:
    summary = label_file(
        FIXTURES / "docs.json",
        tmp_path / "masks.json",
        kb_path=FIXTURES / "kb.jsonl",
        explain_path=tmp_path / "explain.json",
    )
    docs = {d["doc_id"]: d for d in json.loads((FIXTURES / "docs.json").read_text())}
    masks = json.loads((tmp_path / "masks.json").read_text())
    assert summary["documents"] == 50
    # in-KB subjects' full names are unique in a 2,000-person KB: each mention is masked
    for doc_id, doc in docs.items():
        name = doc["meta"]["applicant"]
        if doc["meta"]["in_kb"] and doc["text"].startswith(name + " "):
            assert [0, len(name)] in masks[doc_id]
