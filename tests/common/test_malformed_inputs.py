"""The 21 malformed inputs of issue 12 that answered 500: each now gets a 400 naming
the field, and nothing is written (no row, no changed value, no upload left)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.annotation.test_permissions_matrix import World, build_world
from tests.factories import SAMPLE_TEXT

pytestmark = pytest.mark.django_db

DEEP = 50_000  # brackets: before the fix the JSON parsers recursed into them


@dataclass(frozen=True)
class Case:
    name: str
    caller: str
    method: str
    url: str  # {project}, {document}, {own_set} are filled in from the world
    expect: str  # must appear in the answer: the field and the problem
    body: str = ""  # a raw JSON body
    upload: bytes = b""  # a file for the sync import
    fmt: str = ""


def tab(**fields: Any) -> bytes:
    doc: dict[str, Any] = {"doc_id": "d1", "text": SAMPLE_TEXT, **fields}
    return json.dumps([doc]).encode()


def mention(**fields: Any) -> dict[str, Any]:
    return {
        "entity_mention_id": "m1",
        "start_offset": 0,
        "end_offset": 3,
        "span_text": SAMPLE_TEXT[:3],
        "entity_type": "MISC",
        "identifier_type": "NO_MASK",
        **fields,
    }


def jsonl(*lines: bytes) -> bytes:
    return b"\n".join(lines) + b"\n"


SPAN = "/api/annotation-sets/{own_set}/spans/create/"
DOCUMENT = "/api/documents/{document}/update/"
PROJECT_CREATE = "/api/projects/create/"
PROJECT_UPDATE = "/api/projects/{project}/update/"
JOB = "/api/projects/{project}/jobs/create/"
IMPORT = "/api/projects/{project}/import/"
SPAN_BODY = {"start": 0, "end": 3, "entity_type": "MISC"}
GOOD_LINE = json.dumps({"id": "ok", "text": SAMPLE_TEXT}).encode()

CASES = [
    # NUL characters or lone surrogates in JSON fields
    Case(
        "attrs-nul",
        "annotator",
        "post",
        SPAN,
        "attrs.note: contains a NUL",
        body=json.dumps({**SPAN_BODY, "attrs": {"note": "a\x00b"}}),
    ),
    Case(
        "attrs-surrogate",
        "annotator",
        "post",
        SPAN,
        "attrs.note: contains a lone surrogate",
        body=json.dumps({**SPAN_BODY, "attrs": {"note": "\ud800"}}),
    ),
    Case(
        "meta-nul",
        "admin",
        "patch",
        DOCUMENT,
        "meta.court: contains a NUL",
        body=json.dumps({"meta": {"court": "x\x00"}}),
    ),
    Case(
        "meta-surrogate",
        "admin",
        "patch",
        DOCUMENT,
        "meta.court: contains a lone surrogate",
        body=json.dumps({"meta": {"court": "\udfff"}}),
    ),
    Case(
        "privacy-settings-nul",
        "admin",
        "post",
        PROJECT_CREATE,
        "privacy_settings.note: contains a NUL",
        body=json.dumps({"name": "new", "privacy_settings": {"note": "\x00"}}),
    ),
    Case(
        "privacy-settings-surrogate-key",
        "admin",
        "patch",
        PROJECT_UPDATE,
        "privacy_settings",
        body=json.dumps({"privacy_settings": {"\ud800": 1}}),
    ),
    Case(
        "job-params-nul",
        "admin",
        "post",
        JOB,
        "params.note: contains a NUL",
        body=json.dumps({"kind": "preannotate", "params": {"note": "\x00"}}),
    ),
    Case(
        "job-params-surrogate",
        "admin",
        "post",
        JOB,
        "params.note: contains a lone surrogate",
        body=json.dumps({"kind": "preannotate", "params": {"note": "\ud83d"}}),
    ),
    # NUL in document ids, task, entity ids, annotator names (imports)
    Case(
        "tab-doc-id-nul",
        "admin",
        "import",
        IMPORT,
        "doc_id: contains a NUL",
        upload=tab(doc_id="d\x001"),
        fmt="tab",
    ),
    Case(
        "jsonl-id-nul",
        "admin",
        "import",
        IMPORT,
        "line 2: id: contains a NUL",
        upload=jsonl(GOOD_LINE, json.dumps({"id": "a\x00", "text": SAMPLE_TEXT}).encode()),
        fmt="jsonl",
    ),
    Case(
        "tab-task-nul",
        "admin",
        "import",
        IMPORT,
        "task: contains a NUL",
        upload=tab(task="Protect\x00 the applicant"),
        fmt="tab",
    ),
    Case(
        "tab-entity-id-nul",
        "admin",
        "import",
        IMPORT,
        "entity_id: contains a NUL",
        upload=tab(annotations={"ann": {"entity_mentions": [mention(entity_id="e\x00")]}}),
        fmt="tab",
    ),
    Case(
        "tab-annotator-nul",
        "admin",
        "import",
        IMPORT,
        "annotations['ann\\x00']: contains a NUL",
        upload=tab(annotations={"ann\x00": {"entity_mentions": [mention()]}}),
        fmt="tab",
    ),
    # Non-UTF-8 JSONL
    Case(
        "jsonl-not-utf8",
        "admin",
        "import",
        IMPORT,
        "line 2: not valid UTF-8",
        upload=jsonl(GOOD_LINE, b'{"id": "latin", "text": "Jos\xe9 Saramago"}'),
        fmt="jsonl",
    ),
    # Deep nesting in a JSON request body or a JSONL line
    Case(
        "body-deep-nesting",
        "admin",
        "patch",
        DOCUMENT,
        "meta: nested deeper than",
        body='{"meta": {"a": ' + "[" * DEEP + "]" * DEEP + "}}",
    ),
    Case(
        "jsonl-deep-nesting",
        "admin",
        "import",
        IMPORT,
        "line 1: meta: nested deeper than",
        upload=jsonl(
            b'{"id": "x", "text": "t", "meta": {"a": ' + b"[" * DEEP + b"]" * DEEP + b"}}"
        ),
        fmt="jsonl",
    ),
    # NaN or 1e400 in meta
    Case(
        "meta-nan",
        "admin",
        "patch",
        DOCUMENT,
        "meta.score: is not a finite number",
        body='{"meta": {"score": NaN}}',
    ),
    Case(
        "meta-1e400",
        "admin",
        "patch",
        DOCUMENT,
        "meta.score: is not a finite number",
        body='{"meta": {"score": 1e400}}',
    ),
    Case(
        "jsonl-meta-nan",
        "admin",
        "import",
        IMPORT,
        "line 1: meta.score: is not a finite number",
        upload=jsonl(b'{"id": "x", "text": "t", "meta": {"score": NaN}}'),
        fmt="jsonl",
    ),
    Case(
        "jsonl-meta-1e400",
        "admin",
        "import",
        IMPORT,
        "line 1: meta.score: is not a finite number",
        upload=jsonl(b'{"id": "x", "text": "t", "meta": {"score": -1e400}}'),
        fmt="jsonl",
    ),
    # quality_checked: 5
    Case(
        "tab-quality-checked-5",
        "admin",
        "import",
        IMPORT,
        "quality_checked must be a list",
        upload=tab(quality_checked=5),
        fmt="tab",
    ),
]


def test_the_issue_lists_21_inputs() -> None:
    assert len(CASES) == 21
    assert len({case.name for case in CASES}) == 21


def strings(value: Any) -> list[str]:
    """Every string in a decoded JSON answer, whatever its shape."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


def state(world: World) -> dict[str, Any]:
    """Every table's row count and the values the cases would change."""
    world.document.refresh_from_db()
    world.project.refresh_from_db()
    counts = {m._meta.label: m._default_manager.count() for m in apps.get_models()}
    return {
        "counts": counts,
        "meta": world.document.meta,
        "privacy_settings": world.project.privacy_settings,
    }


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_malformed_input_is_a_400_naming_the_field(
    case: Case, world: World, settings: Any, tmp_path: Path
) -> None:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    url = case.url.format(
        project=world.project.pk, document=world.document.pk, own_set=world.own_set.pk
    )
    client = world.client(case.caller)
    before = state(world)
    if case.method == "import":
        upload = SimpleUploadedFile(f"input.{case.fmt}", case.upload)
        response = client.post(
            url, {"file": upload, "format": case.fmt, "sync": "true"}, format="multipart"
        )
    else:
        send = getattr(client, case.method)
        response = send(
            url, case.body.encode("utf-8", "surrogatepass"), content_type="application/json"
        )
    assert response.status_code == 400, response.content[:500]
    assert case.expect in " ".join(strings(response.json())), response.content[:500]
    assert state(world) == before
    leftovers = (
        list(Path(settings.UPLOAD_DIR).rglob("*")) if Path(settings.UPLOAD_DIR).exists() else []
    )
    assert [p for p in leftovers if p.is_file()] == []


def test_form_input_is_checked_like_json(world: World) -> None:
    """A form (not JSON) carries the same values through DRF's form parsers."""
    before = state(world)
    response = world.client("admin").patch(
        f"/api/documents/{world.document.pk}/update/",
        "meta.court=x%00y",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 400
    assert response.json() == {"meta": ["meta.court: contains a NUL character"]}
    assert state(world) == before
