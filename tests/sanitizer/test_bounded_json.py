"""sanitizer.formats.bounded_json and the readers built on it: limits checked before
anything deep is built, and values PostgreSQL cannot store refused by path."""

from __future__ import annotations

import io
import json
import time
import tracemalloc
from pathlib import Path
from typing import IO, Any

import pytest

from sanitizer.formats.bounded_json import (
    JsonLimitError,
    check_depth,
    check_value,
    iter_items,
    loads,
)
from sanitizer.formats.tab import FormatError, iter_jsonl, iter_tab
from sanitizer.kanon.kb import iter_wikidata_entities, read_jsonl_profiles


class Trickle(io.RawIOBase):
    """A stream that hands out at most ``step`` bytes per read: chunk boundaries everywhere."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data = io.BytesIO(data)
        self.step = step

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        return self.data.read(self.step if size < 0 else min(size, self.step))


def items(data: bytes, step: int = 65536, **kwargs: Any) -> list[Any]:
    stream: IO[bytes] = Trickle(data, step)  # type: ignore[assignment]
    return list(iter_items(stream, **kwargs))


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_items_of_a_list_and_a_single_value() -> None:
    value = [{"a": [1, 2.5, {"b": "x"}], "c": None, "d": True}, 2, "s", [], {}]
    assert items(json.dumps(value).encode()) == value
    assert items(b'{"a": [1]}') == [{"a": [1]}]
    assert items(b"5") == [5]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'[{"a": [1, {"b": "x\\u0000"}]}]', "[0].a[1].b: contains a NUL character"),
        (b'[1, {"k\\u0000": 1}]', "[1]['k\\x00']: contains a NUL character"),
        (b'[{"a": "\\ud800"}]', "lone surrogate"),
        (b'[{"a": "\\udc00"}]', "not valid UTF-8 or a lone surrogate"),
        (b"[" + nested(65) + b"]", "nested deeper than 64 levels"),
    ],
)
def test_items_refuse_what_cannot_be_stored(data: bytes, message: str) -> None:
    for step in (3, 7, 65536):  # a refusal must not depend on where chunks end
        with pytest.raises(JsonLimitError) as caught:
            items(data, step=step)
        assert message in str(caught.value)


@pytest.mark.parametrize("step", [1, 2, 5, 6, 11, 13, 65536])
def test_the_surrogate_guard_sees_escapes_across_chunks(step: int) -> None:
    good = b'["\\ud83d\\ude00", "\\\\ud800 is text", "a\\\\\\\\", "\\u00e9"]'
    assert items(good, step=step) == ["\U0001f600", "\\ud800 is text", "a\\\\", "\u00e9"]
    with pytest.raises(JsonLimitError):
        items(b'["xxxxxxxxxxxxxx\\ud83d", "\\ude00"]', step=step)


def test_deep_nesting_is_refused_before_it_is_built() -> None:
    # The file: 200 KB of brackets took ijson.items to 18 GB.
    data = nested(100_000)
    tracemalloc.start()
    started = time.perf_counter()
    with pytest.raises(FormatError, match="nested deeper than 64 levels"):
        list(iter_tab(io.BytesIO(data)))
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert elapsed < 1.0
    assert peak < 20 * 1024 * 1024


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": NaN}', "a: is not a finite number"),
        ('{"a": [-Infinity]}', "a[0]: is not a finite number"),
        ('{"a": {"b": 1e400}}', "a.b: is not a finite number"),
        ('{"a": "\\u0000"}', "a: contains a NUL character"),
        ('{"a": ["\\ud800"]}', "a[0]: contains a lone surrogate"),
        ('{"x": 1, "deep": ' + "[" * 65 + "]" * 65 + "}", "deep: nested deeper than 64"),
        ("[" * 100_000 + "]" * 100_000, "nested deeper than 64"),
        ('{"a": ', "invalid JSON"),
        ("1" * 5000, "invalid JSON"),
    ],
)
def test_loads_refuses_with_the_path(text: str, message: str) -> None:
    with pytest.raises(JsonLimitError) as caught:
        loads(text)
    assert message in str(caught.value)


def test_loads_limits_and_encoding() -> None:
    assert loads('{"s": "[[[[[[[[[[[["}', max_depth=2) == {"s": "[[[[[[[[[[[["}
    assert loads(b'\xef\xbb\xbf{"a": "\xc3\xa9"}') == {"a": "\u00e9"}
    with pytest.raises(JsonLimitError, match="not valid UTF-8"):
        loads(b'{"a": "\xe9"}')
    with pytest.raises(JsonLimitError, match="larger than 10 bytes"):
        loads(b'{"a": "0123456789"}', max_bytes=10)
    assert JsonLimitError("x", path="meta.a[2]").field == "meta"
    check_depth("[" * 10 + "]" * 10, max_depth=10)


def test_check_value_walks_built_values() -> None:
    check_value({"a": [1, 2.5, "x", {"b": None}]})
    with pytest.raises(JsonLimitError, match=r"a\[1\]: is not a finite number"):
        check_value({"a": [1, float("nan")]})
    with pytest.raises(JsonLimitError, match="nested deeper than 2"):
        check_value({"a": {"b": {"c": 1}}}, max_depth=2)


def test_tab_reader_names_item_and_field() -> None:
    doc = {"doc_id": "d", "text": "Some text.", "meta": {"court": "a\x00"}}
    with pytest.raises(
        FormatError, match=r"item #1 after document 'ok': meta.court: contains a NUL"
    ):
        list(iter_tab(io.BytesIO(json.dumps([{**doc, "doc_id": "ok", "meta": {}}, doc]).encode())))
    with pytest.raises(FormatError, match="quality_checked must be a list of annotator names"):
        list(iter_tab(io.BytesIO(json.dumps([{**doc, "meta": {}, "quality_checked": 5}]).encode())))
    with pytest.raises(FormatError, match="invalid JSON"):
        list(iter_tab(io.BytesIO(b'[{"doc_id": "d", "text": "t", "meta": {"x": 1e400}}]')))


def test_jsonl_reader_names_the_line() -> None:
    good = json.dumps({"id": "a", "text": "Some text."}).encode()
    with pytest.raises(FormatError, match="line 2: not valid UTF-8"):
        list(iter_jsonl(io.BytesIO(good + b"\n" + b'{"id": "b", "text": "\xff"}\n')))
    with pytest.raises(FormatError, match=r"line 1: meta: nested deeper than 64"):
        list(iter_jsonl(io.BytesIO(b'{"id": "b", "text": "t", "meta": ' + nested(70) + b"}")))
    assert [r.doc_id for r in iter_jsonl(io.BytesIO(good + b"\n"))] == ["a"]


def test_knowledge_base_lines_are_bounded(tmp_path: Path) -> None:
    good = json.dumps({"id": "p1", "name": "Ana", "attributes": {"born": "1990"}})
    path = tmp_path / "kb.jsonl"
    path.write_text(good + "\n" + '{"id": "p2", "attributes": ' + "[" * 70 + "]" * 70 + "}\n")
    with pytest.raises(JsonLimitError, match="line 2: attributes: nested deeper than 64"):
        list(read_jsonl_profiles(path))
    path.write_text(good + "\n" + json.dumps({"id": "p\x00"}) + "\n")
    with pytest.raises(JsonLimitError, match="line 2: id: contains a NUL"):
        list(read_jsonl_profiles(path))
    dump = tmp_path / "wikidata.json"
    dump.write_text('[\n{"id": "Q1", "labels": {"en": {"value": NaN}}},\n]\n')
    with pytest.raises(JsonLimitError, match=r"line 2: labels.en.value: is not a finite"):
        list(iter_wikidata_entities(dump))


@pytest.mark.parametrize(
    ("value", "path", "message"),
    [
        # The refusal comes after a sibling subtree: its keys no longer count.
        (
            {"a": {"b": [1, 2]}, "c": [{"d": 1}, {"e f": "x\x00"}]},
            "meta",
            "meta.c[1].e f: contains a NUL character",
        ),
        ({"a": [{"k\x00": 1}]}, "", "a[0]['k\\x00']: contains a NUL character"),
        ({1: {None: float("inf")}}, "", "[1].None: is not a finite number"),
        ({"a": ["é", ("ok", "\ud800")]}, "", "a[1][1]: contains a lone surrogate at character 0"),
    ],
)
def test_check_value_names_the_path_of_a_refusal(value: Any, path: str, message: str) -> None:
    check_value({"a": ["é", "\U0001f600", 2.5, {"b c": None}], 3: (1,)}, "meta")
    with pytest.raises(JsonLimitError) as caught:
        check_value(value, path)
    assert str(caught.value).startswith(message)


def test_readers_name_the_path_after_a_sibling_subtree() -> None:
    element = b'{"a": {"b": [1, "\\u00e9"]}, "c": [{"d": 1}, {"e": "\\u0000"}]}'
    with pytest.raises(JsonLimitError, match=r"^\[1\]\.c\[1\]\.e: contains a NUL character$"):
        items(b'[{"ok": ["\\u00e9"]}, ' + element + b"]")
    with pytest.raises(JsonLimitError, match=r"^c\[1\]\.e: contains a NUL character$"):
        loads(element)
