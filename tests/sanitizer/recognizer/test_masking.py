"""Masking strategies, TAB mask output and the sanitize command."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from sanitizer.recognizer import apply_strategy, sanitize_documents, sanitize_file
from sanitizer.recognizer.strategies.mask_all import mask_all
from sanitizer.recognizer.strategies.most_specific import mask_most_specific
from sanitizer.types import EntitySpan

TEXT = "Anna, a nurse, paid EUR 5 in Oslo."
SPANS = [
    EntitySpan(0, 4, "PERSON", "Anna"),
    EntitySpan(8, 13, "DEM", "nurse"),
    EntitySpan(20, 25, "QUANTITY", "EUR 5"),
    EntitySpan(29, 33, "LOC", "Oslo"),
]


class StubRecognizer:
    """Returns SPANS for TEXT and nothing otherwise (keeps these tests model-free)."""

    def predict_batch(self, texts: Sequence[str]) -> list[list[EntitySpan]]:
        return [list(SPANS) if t == TEXT else [] for t in texts]


def test_mask_all_keeps_everything() -> None:
    assert mask_all(SPANS) == SPANS


def test_most_specific_drops_dem_org_misc() -> None:
    assert [s.text for s in mask_most_specific(SPANS)] == ["Anna", "EUR 5", "Oslo"]


def test_apply_strategy_by_name() -> None:
    assert apply_strategy("most-specific", SPANS) == mask_most_specific(SPANS)
    with pytest.raises(KeyError):
        apply_strategy("mask-nothing", SPANS)


def test_sanitize_documents_tab_format() -> None:
    docs: list[dict[str, object]] = [
        {"doc_id": "001", "text": TEXT, "annotations": {}},
        {"doc_id": "002", "text": "x"},
    ]
    assert sanitize_documents(docs, "mask-all", StubRecognizer()) == {
        "001": [[0, 4], [8, 13], [20, 25], [29, 33]],
        "002": [],
    }
    assert sanitize_documents(docs, "most-specific", StubRecognizer(), batch_size=1) == {
        "001": [[0, 4], [20, 25], [29, 33]],
        "002": [],
    }


def test_sanitize_file_round_trip(tmp_path: Path) -> None:
    source = tmp_path / "docs.json"
    target = tmp_path / "masks.json"
    source.write_text(json.dumps([{"doc_id": "a", "text": TEXT}]), encoding="utf-8")
    masks = sanitize_file(source, target, "most-specific", StubRecognizer())
    assert (
        json.loads(target.read_text(encoding="utf-8"))
        == masks
        == {"a": [[0, 4], [20, 25], [29, 33]]}
    )


def test_sanitize_file_rejects_other_formats(tmp_path: Path) -> None:
    source = tmp_path / "docs.json"
    source.write_text(json.dumps({"doc_id": "a", "text": TEXT}), encoding="utf-8")
    with pytest.raises(ValueError, match="expected a JSON list"):
        sanitize_file(source, tmp_path / "out.json", "mask-all", StubRecognizer())


def test_sanitize_command_writes_masks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from annotation.management.commands.sanitize import Command

    source = tmp_path / "docs.json"
    target = tmp_path / "masks.json"
    text = "Application no. 36110/97 was lodged on 5 August 1992."
    source.write_text(json.dumps([{"doc_id": "d1", "text": text}]), encoding="utf-8")
    Command().handle(input=str(source), output=str(target), strategy="most-specific")
    assert json.loads(target.read_text(encoding="utf-8")) == {"d1": [[16, 24], [39, 52]]}
    assert "wrote 2 masks for 1 documents" in capsys.readouterr().out
