"""TAB/JSONL/text readers, the TAB writer and merge_intervals (no database)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from sanitizer.formats.tab import (
    FormatError,
    iter_documents,
    iter_jsonl,
    iter_tab,
    target_person,
    write_tab,
)
from sanitizer.intervals import merge_intervals

TEXT = "Anna Berg met Per Olsen in Oslo on 3 May 2001."


def tab_doc(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "doc_id": "d1",
        "text": TEXT,
        "annotations": {
            "ann": {
                "entity_mentions": [
                    {
                        "entity_mention_id": "m1",
                        "start_offset": 0,
                        "end_offset": 9,
                        "span_text": "Anna Berg",
                        "entity_type": "PERSON",
                        "identifier_type": "DIRECT",
                        "entity_id": "e1",
                        "confidential_status": "NOT_CONFIDENTIAL",
                        "edit_type": "check",
                    }
                ]
            }
        },
        "task": "Annotate the document to anonymise the following person: Anna Berg",
        "meta": {"year": 2001},
        "dataset_type": "dev",
        "quality_checked": ["ann"],
    }
    doc.update(changes)
    return doc


def read_tab(data: Any) -> list[Any]:
    return list(iter_tab(io.BytesIO(json.dumps(data).encode())))


# --- merge_intervals ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("intervals", "merged"),
    [
        ([], []),
        ([(3, 5)], [(3, 5)]),
        ([(5, 8), (0, 3)], [(0, 3), (5, 8)]),
        ([(0, 3), (3, 4)], [(0, 4)]),  # touching
        ([(0, 10), (2, 4)], [(0, 10)]),  # contained
        ([(5, 8), (0, 3), (3, 4), (7, 10), (12, 13)], [(0, 4), (5, 10), (12, 13)]),
        ([(1, 2), (1, 2)], [(1, 2)]),
    ],
)
def test_merge_intervals(intervals, merged):
    assert merge_intervals(intervals) == merged


# --- TAB reader -----------------------------------------------------------------------


def test_tab_document_is_read_with_all_fields():
    (record,) = read_tab([tab_doc(target="Per Olsen", source="echr")])
    assert record.doc_id == "d1"
    assert record.split == "dev"
    assert record.quality_checked == ["ann"]
    assert record.target == "Per Olsen"
    assert record.extra == {"source": "echr", "target": "Per Olsen"}
    (m,) = record.annotations["ann"]
    assert (m.mention_id, m.start, m.end, m.span_text) == ("m1", 0, 9, "Anna Berg")
    assert m.attrs == {"edit_type": "check"}


def test_a_subset_name_other_than_train_dev_test_is_kept_for_export():
    (record,) = read_tab([tab_doc(dataset_type="holdout")])
    assert record.split == "none"
    assert record.to_tab()["dataset_type"] == "holdout"


def test_a_single_tab_object_is_accepted():
    assert [r.doc_id for r in read_tab(tab_doc())] == ["d1"]


def test_write_tab_then_read_gives_the_same_documents():
    records = read_tab([tab_doc(), tab_doc(doc_id="d2", quality_checked="ann")])
    out = io.StringIO()
    assert write_tab((r.to_tab() for r in records), out) == 2
    again = json.loads(out.getvalue())
    assert again[0] == tab_doc()
    assert again[1]["quality_checked"] == ["ann"]


def test_write_tab_of_nothing_is_an_empty_list():
    out = io.StringIO()
    assert write_tab([], out) == 0
    assert json.loads(out.getvalue()) == []


def _mutate_mention(**changes: Any) -> dict[str, Any]:
    doc = tab_doc()
    doc["annotations"]["ann"]["entity_mentions"][0].update(changes)
    return doc


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (_mutate_mention(end_offset=99), "document 'd1', mention 'm1': offsets 0..99 are outside"),
        (_mutate_mention(start_offset=-1), "mention 'm1': offsets -1..9 are outside"),
        (
            _mutate_mention(start_offset=9),
            "mention 'm1': start_offset 9 is not before end_offset 9",
        ),
        (_mutate_mention(span_text="Anna"), "mention 'm1': span_text 'Anna' differs"),
        (_mutate_mention(entity_type="NAME"), "mention 'm1': unknown entity_type 'NAME'"),
        (_mutate_mention(identifier_type="X"), "mention 'm1': unknown identifier_type 'X'"),
        (_mutate_mention(confidential_status="Y"), "unknown confidential_status 'Y'"),
        (_mutate_mention(start_offset="0"), "mention 'm1': start_offset must be an integer"),
        (_mutate_mention(end_offset=True), "end_offset must be an integer"),
        (tab_doc(text=None), "document 'd1': text is missing"),
        (tab_doc(meta=["x"]), "document 'd1': meta must be an object"),
        (tab_doc(dataset_type=3), "document 'd1': dataset_type must be a string"),
        (tab_doc(annotations={"ann": []}), "annotator 'ann' has no entity_mentions list"),
        (tab_doc(doc_id=""), "item #0 has no doc_id"),
    ],
)
def test_tab_validation_names_document_and_mention(doc, message):
    with pytest.raises(FormatError) as error:
        read_tab([doc])
    assert message in str(error.value)


def test_missing_key_names_the_mention():
    doc = tab_doc()
    del doc["annotations"]["ann"]["entity_mentions"][0]["entity_type"]
    with pytest.raises(FormatError, match="mention 'm1': missing entity_type"):
        read_tab([doc])


def test_duplicate_mention_id_within_an_annotator():
    doc = tab_doc()
    mentions = doc["annotations"]["ann"]["entity_mentions"]
    mentions.append(dict(mentions[0]))
    with pytest.raises(FormatError, match="mention 'm1': duplicate entity_mention_id"):
        read_tab([doc])


def test_duplicate_doc_id_is_found_while_streaming():
    reader = iter_tab(io.BytesIO(json.dumps([tab_doc(), tab_doc()]).encode()))
    assert next(reader).doc_id == "d1"
    with pytest.raises(FormatError, match="document 'd1': duplicate doc_id"):
        next(reader)


def test_truncated_file_is_reported_after_the_last_good_document():
    data = json.dumps([tab_doc(), tab_doc(doc_id="d2"), tab_doc(doc_id="d3")]).encode()
    with pytest.raises(FormatError, match="invalid JSON after document 'd2'"):
        read_bytes = data[: data.index(b'"d3"') + 2]
        list(iter_tab(io.BytesIO(read_bytes)))


def test_tab_reader_streams_without_reading_the_whole_file():
    class CountingStream(io.BytesIO):
        read_bytes = 0

        def read(self, size: int | None = -1) -> bytes:
            chunk = super().read(size)
            self.read_bytes += len(chunk)
            return chunk

    docs = [tab_doc(doc_id=f"d{i}", text=TEXT * 50) for i in range(400)]
    stream = CountingStream(json.dumps(docs).encode())
    reader = iter_tab(stream)
    next(reader)
    assert stream.read_bytes < len(stream.getvalue()) / 10


# --- target person --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meta", "task", "explicit", "expected"),
    [
        ({"applicant": "Anna Berg"}, "", "", "Anna Berg"),
        (
            {},
            "Task: Annotate the document to anonymise the following person: Per Olsen",
            "",
            "Per Olsen",
        ),
        ({}, "anonymise the following individuals:  A and B ", "", "A and B"),
        ({"applicant": "Anna Berg"}, "", " Per Olsen ", "Per Olsen"),
        ({"applicant": "  "}, "no person named here", "", ""),
    ],
)
def test_target_person(meta, task, explicit, expected):
    assert target_person(meta, task, explicit) == expected


# --- JSONL and text -------------------------------------------------------------------


def test_jsonl_reader():
    lines = [
        json.dumps({"id": 1, "text": "One.", "target": "Anna"}),
        "",
        json.dumps({"doc_id": "two", "text": "Two.", "meta": {"applicant": "Per"}}),
    ]
    records = list(iter_jsonl(io.BytesIO("\n".join(lines).encode())))
    assert [(r.doc_id, r.text, r.target) for r in records] == [
        ("1", "One.", "Anna"),
        ("two", "Two.", "Per"),
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[1, 2]", "line 1: not an object"),
        ('{"text": "x"}', "line 1: missing id"),
        ('{"id": "a", "text": 3}', "document 'a': text is missing"),
        ('{"id": "a", "text": "x", "meta": 1}', "document 'a': meta must be an object"),
        ('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}', "document 'a': duplicate doc_id"),
    ],
)
def test_jsonl_errors(line, message):
    with pytest.raises(FormatError) as error:
        list(iter_jsonl(io.BytesIO(line.encode())))
    assert message in str(error.value)


def test_text_reader_and_iter_documents(tmp_path: Path):
    (tmp_path / "b.txt").write_text("B", encoding="utf-8")
    (tmp_path / "a.txt").write_text("A", encoding="utf-8")
    assert [(r.doc_id, r.text) for r in iter_documents(tmp_path, "text")] == [
        ("a", "A"),
        ("b", "B"),
    ]
    tab = tmp_path / "x.json"
    tab.write_text(json.dumps([tab_doc()]), encoding="utf-8")
    assert [r.doc_id for r in iter_documents(tab, "tab")] == ["d1"]
    with pytest.raises(FormatError, match="unknown format 'xml'"):
        list(iter_documents(tab, "xml"))
