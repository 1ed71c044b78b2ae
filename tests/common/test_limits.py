"""Upload size limits (413, checked as the bytes arrive, nothing left on disk), the
JSON body limit, and the page-size cap of every list endpoint."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, get_resolver

from common.apis import BaseListApi
from common.errors import TooLargeError
from common.pagination import CappedLimitOffsetPagination
from common.parsers import MULTIPART_OVERHEAD_BYTES
from common.uploads import upload_save
from jobs.models import Job
from knowledge.models import KnowledgeBase
from tests.annotation.test_permissions_matrix import World, build_world
from tests.factories import SAMPLE_TEXT


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


@pytest.fixture
def dirs(settings: Any, tmp_path: Path) -> dict[str, Path]:
    """The upload folder and Django's temporary-file folder, both watched for leftovers."""
    settings.UPLOAD_DIR = tmp_path / "uploads"
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path / "tmp")
    # Every upload goes through a temporary file, the case that could leave one behind.
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 0
    (tmp_path / "tmp").mkdir()
    return {"uploads": tmp_path / "uploads", "tmp": tmp_path / "tmp"}


def files_in(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def jsonl_of_size(size: int) -> bytes:
    line = json.dumps({"id": "d", "text": SAMPLE_TEXT}).encode() + b"\n"
    return (line * (size // len(line) + 1))[:size]


def import_upload(world: World, content: bytes) -> Any:
    return world.client("admin").post(
        f"/api/projects/{world.project.pk}/import/",
        {"file": SimpleUploadedFile("big.jsonl", content), "format": "jsonl"},
        format="multipart",
    )


def test_an_upload_over_the_limit_is_refused_while_it_streams(
    world: World, settings: Any, dirs: dict[str, Path]
) -> None:
    # Small enough for Content-Length to pass: the bytes are counted as they arrive.
    settings.UPLOAD_MAX_BYTES = {**settings.UPLOAD_MAX_BYTES, "documents": 100_000}
    jobs_before = Job.objects.count()
    response = import_upload(world, jsonl_of_size(300_000))
    assert response.status_code == 413
    assert response.json()["detail"] == "uploads (documents) are limited to 97.66 KB"
    assert files_in(dirs["uploads"]) == []
    assert files_in(dirs["tmp"]) == []
    assert Job.objects.count() == jobs_before


def test_an_upload_whose_length_is_over_the_limit_is_refused_before_reading(
    world: World, settings: Any, dirs: dict[str, Path]
) -> None:
    settings.UPLOAD_MAX_BYTES = {**settings.UPLOAD_MAX_BYTES, "documents": 1000}
    jobs_before = Job.objects.count()
    response = import_upload(world, jsonl_of_size(MULTIPART_OVERHEAD_BYTES + 5000))
    assert response.status_code == 413
    assert "uploads (documents) are limited to" in response.json()["detail"]
    assert files_in(dirs["uploads"]) == [] and files_in(dirs["tmp"]) == []
    assert Job.objects.count() == jobs_before


def test_an_upload_within_the_limit_is_accepted(
    world: World, settings: Any, dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sanitizer_app.celery import app

    monkeypatch.setattr(app, "send_task", lambda *a, **k: type("R", (), {"id": "t"})())
    content = jsonl_of_size(100_000)
    settings.UPLOAD_MAX_BYTES = {**settings.UPLOAD_MAX_BYTES, "documents": len(content)}
    response = import_upload(world, content)
    assert response.status_code == 202, response.content
    assert [p.stat().st_size for p in files_in(dirs["uploads"])] == [len(content)]


def test_knowledge_base_uploads_have_their_own_limit(
    world: World, settings: Any, dirs: dict[str, Path]
) -> None:
    settings.UPLOAD_MAX_BYTES = {**settings.UPLOAD_MAX_BYTES, "knowledge": 10_000}
    response = world.client("admin").post(
        f"/api/projects/{world.project.pk}/knowledge-bases/upload/",
        {
            "file": SimpleUploadedFile("kb.jsonl", jsonl_of_size(50_000)),
            "format": "jsonl",
            "name": "too big",
        },
        format="multipart",
    )
    assert response.status_code == 413
    assert "uploads (knowledge) are limited to" in response.json()["detail"]
    assert not KnowledgeBase.objects.exists()
    assert files_in(dirs["uploads"]) == [] and files_in(dirs["tmp"]) == []


def test_upload_save_removes_what_it_wrote_past_the_limit(settings: Any, tmp_path: Path) -> None:
    settings.UPLOAD_DIR = tmp_path
    upload = SimpleUploadedFile("x.jsonl", b"x" * 200_000)
    upload.file = io.BytesIO(b"x" * 200_000)
    with pytest.raises(TooLargeError):
        upload_save(upload=upload, suffix=".jsonl", keep_name=True, max_bytes=70_000)
    assert list(tmp_path.rglob("*")) == []
    assert upload_save(upload=upload, suffix=".jsonl", max_bytes=200_000).stat().st_size == 200_000


def test_a_json_body_over_the_limit_is_a_413(world: World, settings: Any) -> None:
    settings.API_JSON_MAX_BYTES = 1000
    response = world.client("admin").patch(
        f"/api/documents/{world.document.pk}/update/",
        json.dumps({"meta": {"note": "x" * 2000}}),
        content_type="application/json",
    )
    assert response.status_code == 413
    assert "JSON bodies are limited to" in response.json()["detail"]
    world.document.refresh_from_db()
    assert world.document.meta == {}


def list_views() -> list[tuple[str, type[BaseListApi]]]:
    found: list[tuple[str, type[BaseListApi]]] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                view = getattr(entry.callback, "view_class", None)
                if view is not None and issubclass(view, BaseListApi):
                    found.append((prefix + str(entry.pattern), view))

    walk(get_resolver().url_patterns, "/")
    return found


def test_every_list_endpoint_is_capped() -> None:
    views = list_views()
    assert len(views) >= 10
    for route, view in views:
        assert issubclass(view.pagination_class, CappedLimitOffsetPagination), route


@pytest.mark.parametrize(
    "url",
    [
        "/api/projects/{project}/documents/",
        "/api/projects/{project}/members/",
        "/api/documents/{document}/annotation-sets/",
    ],
)
def test_a_huge_limit_is_clamped(url: str, world: World, settings: Any) -> None:
    settings.API_MAX_PAGE_SIZE = 1
    admin = world.client("admin")
    path = url.format(project=world.project.pk, document=world.document.pk)
    response = admin.get(path, {"limit": 1_000_000_000})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] >= 2
    assert len(body["results"]) == 1
    assert admin.get(path, {"limit": 1, "offset": 10**30}).status_code == 200
