"""Property-based fuzzing (hypothesis) of the importers and the JSON API.

Generated malformed documents, spans and job parameters: every answer is a 2xx or a
4xx, never a 500, and a refused request leaves every table as it was (all or
nothing). 500 generated cases in all, derandomized so that a run is repeatable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from annotation.models import Document
from tests.annotation.test_permissions_matrix import World, build_world
from tests.factories import SAMPLE_TEXT

pytestmark = pytest.mark.django_db

EXAMPLES = 250  # per test: 500 generated cases in all
FUZZ = hypothesis_settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,  # derandomized: nothing to replay, and no .hypothesis/ folder
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

# Lone surrogates (category Cs) included: hypothesis leaves them out by default.
CHARS = st.characters(exclude_categories=(), max_codepoint=0x1F600)
NASTY = st.sampled_from(["\x00", "a\x00b", "\ud800", "\udfff", "x\ud83d", "", " ", "é"])
STRINGS = st.one_of(st.text(CHARS, max_size=12), NASTY)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    STRINGS,
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(STRINGS, children, max_size=3)
    ),
    max_leaves=12,
)
DEPTH = st.integers(min_value=1, max_value=3000)
ENTITY_TYPES = st.sampled_from(["PERSON", "LOC", "CODE", "MISC", "person", "", "\x00"])
IDENTIFIERS = st.sampled_from(["DIRECT", "QUASI", "NO_MASK", "direct", "\ud800"])


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@st.composite
def mentions(draw: st.DrawFn, length: int) -> dict[str, Any]:
    bound = st.one_of(
        st.integers(min_value=-2, max_value=length + 2), st.floats(), st.just("3"), JSON
    )
    mention: dict[str, Any] = {
        "entity_mention_id": draw(st.one_of(STRINGS, st.integers())),
        "start_offset": draw(bound),
        "end_offset": draw(bound),
        "entity_type": draw(ENTITY_TYPES),
        "identifier_type": draw(IDENTIFIERS),
        "entity_id": draw(st.one_of(STRINGS, JSON)),
        "extra": draw(JSON),
    }
    if draw(st.booleans()):
        mention.pop(draw(st.sampled_from(sorted(mention))))
    return mention


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    text = draw(st.one_of(st.just(SAMPLE_TEXT), st.text(CHARS, max_size=40), JSON))
    length = len(text) if isinstance(text, str) else 10
    doc: dict[str, Any] = {
        "doc_id": draw(st.one_of(STRINGS, st.integers(), JSON)),
        "text": text,
        "annotations": draw(
            st.one_of(
                st.dictionaries(
                    STRINGS,
                    st.fixed_dictionaries(
                        {"entity_mentions": st.lists(mentions(length), max_size=3)}
                    ),
                    max_size=2,
                ),
                JSON,
            )
        ),
        "task": draw(st.one_of(STRINGS, JSON)),
        "meta": draw(st.one_of(st.dictionaries(STRINGS, JSON, max_size=3), JSON)),
        "quality_checked": draw(st.one_of(st.lists(STRINGS, max_size=2), JSON)),
        "dataset_type": draw(st.one_of(st.sampled_from(["train", "dev", None]), JSON)),
    }
    if draw(st.booleans()):
        doc.pop(draw(st.sampled_from(sorted(doc))))
    return doc


def dumps(value: Any) -> str:
    # NaN and Infinity as the non-standard literals; surrogates as \\u escapes.
    return json.dumps(value, allow_nan=True)


@st.composite
def corrupted(draw: st.DrawFn, body: str) -> bytes:
    """The body, or a damaged copy: cut, a stray byte, or deep nesting spliced in."""
    data = body.encode("utf-8")
    how = draw(st.sampled_from(["none", "none", "cut", "byte", "deep"]))
    at = draw(st.integers(min_value=0, max_value=len(data)))
    if how == "cut":
        return data[:at]
    if how == "byte":
        return (
            data[:at]
            + draw(st.sampled_from([b"\xff", b"\xe9", b"\x00", b"\xed\xa0\x80"]))
            + data[at:]
        )
    if how == "deep":
        return data[:at] + nested(draw(DEPTH)).encode() + data[at:]
    return data


@st.composite
def import_files(draw: st.DrawFn) -> tuple[str, bytes]:
    docs = draw(st.lists(documents(), min_size=1, max_size=3))
    fmt = draw(st.sampled_from(["tab", "jsonl"]))
    if fmt == "tab":
        return fmt, draw(corrupted(dumps(docs)))
    lines = [
        dumps({"id": d.get("doc_id"), "text": d.get("text"), "meta": d.get("meta")}) for d in docs
    ]
    return fmt, draw(corrupted("\n".join(lines)))


# The tables an import or these endpoints write (counting all of them per example
# doubled the run time).
WATCHED = [
    apps.get_model(label)
    for label in (
        "annotation.Document",
        "annotation.AnnotationSet",
        "annotation.Span",
        "annotation.SpanEvent",
        "annotation.Membership",
        "auth.User",
        "jobs.Job",
        "annotation.Project",
    )
]


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


def snapshot(world: World) -> dict[str, Any]:
    world.document.refresh_from_db()
    world.project.refresh_from_db()
    world.own_set.refresh_from_db()
    return {
        "counts": {m._meta.label: m._default_manager.count() for m in WATCHED},
        "meta": world.document.meta,
        "privacy_settings": world.project.privacy_settings,
    }


def test_fuzzed_imports_never_fail_with_500_nor_write_half(
    world: World, tmp_path: Path, settings: Any
) -> None:
    upload_dir = settings.UPLOAD_DIR = tmp_path / "uploads"
    admin = world.client("admin")
    url = f"/api/projects/{world.project.pk}/import/"

    seen = {"examples": 0, "refused": 0}

    @FUZZ
    @given(import_files())
    def run(case: tuple[str, bytes]) -> None:
        fmt, content = case
        seen["examples"] += 1
        savepoint = transaction.savepoint()
        try:
            before = snapshot(world)
            upload = SimpleUploadedFile(f"fuzz.{fmt}", content)
            response = admin.post(
                url, {"file": upload, "format": fmt, "sync": "true"}, format="multipart"
            )
            assert response.status_code in (201, 400), response.content[:300]
            if response.status_code == 400:
                seen["refused"] += 1
                assert snapshot(world) == before
            else:
                # All of the file: every document it holds, none twice.
                after = Document.objects.count()
                assert (
                    after == before["counts"]["annotation.Document"] + response.json()["documents"]
                )
            assert [p for p in upload_dir.rglob("*") if p.is_file()] == []
        finally:
            transaction.savepoint_rollback(savepoint)

    run()
    assert seen["examples"] >= EXAMPLES
    # Malformed on purpose, but not only: some files are imported whole.
    assert 0 < seen["refused"] < seen["examples"]


SPAN_BODIES = st.fixed_dictionaries(
    {
        "start": st.one_of(st.integers(min_value=-5, max_value=200), JSON),
        "end": st.one_of(st.integers(min_value=-5, max_value=200), JSON),
        "entity_type": ENTITY_TYPES,
        "identifier_type": IDENTIFIERS,
        "entity_id": STRINGS,
        "attrs": st.one_of(st.dictionaries(STRINGS, JSON, max_size=3), JSON),
        "confidence": st.one_of(st.floats(allow_nan=True), JSON),
    }
)
JOB_BODIES = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["preannotate", "train_recognizer", "risk_solve", "import", "x"]),
        "params": st.one_of(st.dictionaries(STRINGS, JSON, max_size=3), JSON),
    }
)
META_BODIES = st.fixed_dictionaries(
    {"meta": st.one_of(st.dictionaries(STRINGS, JSON, max_size=3), JSON)}
)
PROJECT_BODIES = st.fixed_dictionaries(
    {"privacy_settings": st.one_of(st.dictionaries(STRINGS, JSON, max_size=3), JSON)}
)


def test_fuzzed_api_bodies_never_fail_with_500_nor_write_on_refusal(world: World) -> None:
    endpoints = {
        "span": ("annotator", "post", f"/api/annotation-sets/{world.own_set.pk}/spans/create/"),
        "job": ("admin", "post", f"/api/projects/{world.project.pk}/jobs/create/"),
        "meta": ("admin", "patch", f"/api/documents/{world.document.pk}/update/"),
        "project": ("admin", "patch", f"/api/projects/{world.project.pk}/update/"),
    }
    clients = {name: world.client(name) for name in ("annotator", "admin")}
    bodies = st.one_of(
        st.tuples(st.just("span"), SPAN_BODIES),
        st.tuples(st.just("job"), JOB_BODIES),
        st.tuples(st.just("meta"), META_BODIES),
        st.tuples(st.just("project"), PROJECT_BODIES),
    )

    seen = {"examples": 0, "refused": 0}

    @FUZZ
    @given(bodies, st.data())
    def run(case: tuple[str, dict[str, Any]], data: st.DataObject) -> None:
        endpoint, body = case
        seen["examples"] += 1
        caller, method, url = endpoints[endpoint]
        raw = data.draw(corrupted(dumps(body)))
        savepoint = transaction.savepoint()
        try:
            before = snapshot(world)
            send = getattr(clients[caller], method)
            response = send(url, raw, content_type="application/json")
            assert response.status_code < 500, response.content[:300]
            if response.status_code >= 400:
                seen["refused"] += 1
                assert snapshot(world) == before
        finally:
            transaction.savepoint_rollback(savepoint)

    run()
    assert seen["examples"] >= EXAMPLES
    assert 0 < seen["refused"] < seen["examples"]
