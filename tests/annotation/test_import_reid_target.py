"""Imports keep a document's re-identification target (a knowledge-base profile id, given
top-level or in meta) as ``Document.meta["target"]``, checked, and exports give it back
where it came from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from annotation.models import Document, Project
from annotation.selectors import project_export_tab
from annotation.services.imports import document_import
from sanitizer.formats.tab import FormatError

pytestmark = pytest.mark.django_db

TEXT = "Leila Koch works as an archivist in Humble."


def _jsonl(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _tab(tmp_path: Path, docs: list[dict[str, Any]]) -> Path:
    path = tmp_path / "docs.json"
    path.write_text(json.dumps(docs), encoding="utf-8")
    return path


def _import(path: Path, fmt: str) -> Project:
    project = Project.objects.create(name=f"import {fmt}")
    document_import(project=project, path=path, fmt=fmt)
    return project


def test_jsonl_target_top_level_or_in_meta_is_kept_in_meta(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path,
        [
            {"id": "a", "text": TEXT, "target": "SP00000006"},
            {"id": "b", "text": TEXT, "meta": {"target": "Q42", "year": 1990}},
            {"id": "c", "text": TEXT},
        ],
    )
    _import(path, "jsonl")
    meta = {d.external_id: d.meta for d in Document.objects.all()}
    assert meta["a"]["target"] == "SP00000006"
    assert meta["b"] == {"target": "Q42", "year": 1990}
    assert "target" not in meta["c"]


def test_tab_target_is_kept_and_the_export_gives_it_back_where_it_was(tmp_path: Path) -> None:
    docs = [
        {"doc_id": "a", "text": TEXT, "annotations": {}, "meta": {"x": 1}, "target": "SP1"},
        {"doc_id": "b", "text": TEXT, "annotations": {}, "meta": {"target": "SP2"}},
    ]
    project = _import(_tab(tmp_path, docs), "tab")
    meta = {d.external_id: d.meta for d in Document.objects.all()}
    assert meta["a"]["target"] == "SP1"
    assert meta["b"]["target"] == "SP2"

    exported = {d["doc_id"]: d for d in project_export_tab(project=project)}
    assert exported["a"]["target"] == "SP1"
    assert exported["a"]["meta"] == {"x": 1}
    assert exported["b"]["meta"] == {"target": "SP2"}
    assert "target" not in exported["b"]


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        ({"target": 12}, "target must be a string"),
        ({"meta": {"target": ["SP1"]}}, "meta.target must be a string"),
        ({"target": "x" * 201}, "at most 200 characters"),
        ({"target": "SP1", "meta": {"target": "SP2"}}, "name different people"),
    ],
)
def test_bad_target_rejects_the_whole_file(
    tmp_path: Path, doc: dict[str, Any], problem: str
) -> None:
    docs = [
        {"doc_id": "ok", "text": TEXT, "annotations": {}, "target": "SP0"},
        {"doc_id": "bad", "text": TEXT, "annotations": {}, **doc},
    ]
    project = Project.objects.create(name="rejected")
    with pytest.raises(FormatError) as caught:
        document_import(project=project, path=_tab(tmp_path, docs), fmt="tab")
    assert problem in str(caught.value)
    assert caught.value.doc_id == "bad"
    assert not Document.objects.exists()


def test_nul_in_a_jsonl_target_is_rejected(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, [{"id": "a", "text": TEXT, "meta": {"target": "SP\x001"}}])
    project = Project.objects.create(name="nul")
    with pytest.raises(FormatError, match="NUL"):
        document_import(project=project, path=path, fmt="jsonl")
    assert not Document.objects.exists()
