"""The import_documents / export_documents commands on the real database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from annotation.models import (
    AnnotationSet,
    Document,
    DocumentStatus,
    Membership,
    Project,
    Role,
    SetKind,
    SetSource,
    SetStatus,
    Span,
)
from annotation.services import gold_set_for_document, machine_set_create, span_create
from jobs.models import Job, JobStatus
from sanitizer.types import EntitySpan
from tests.factories import SAMPLE_TEXT, AnnotationSetFactory, DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db

REPO_ROOT = Path(__file__).resolve().parents[2]


def table_counts() -> dict[str, int]:
    return {m._meta.label: m._default_manager.count() for m in apps.get_models()}


def load(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))


def dump(tmp_path: Path, docs: Any, name: str = "input.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
    return path


def import_file(path: Path, project: str = "P", fmt: str = "tab") -> str:
    from io import StringIO

    out = StringIO()
    call_command("import_documents", str(path), "--project", project, "--format", fmt, stdout=out)
    return out.getvalue()


def export_file(path: Path, project: str = "P", fmt: str = "tab", *extra: str) -> Any:
    from io import StringIO

    call_command(
        "export_documents",
        "--project",
        project,
        "--format",
        fmt,
        "--output",
        str(path),
        *extra,
        stderr=StringIO(),
    )
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def mention(doc: dict[str, Any], annotator: str, index: int) -> dict[str, Any]:
    return doc["annotations"][annotator]["entity_mentions"][index]


# --- round trip -----------------------------------------------------------------------


def test_tab_import_then_export_gives_back_the_same_documents(tab_sample_path, tmp_path):
    original = load(tab_sample_path)

    summary = import_file(tab_sample_path)
    exported = export_file(tmp_path / "out.json")

    n_sets = sum(len(d["annotations"]) for d in original)
    n_spans = sum(len(a["entity_mentions"]) for d in original for a in d["annotations"].values())
    assert f"Imported 3 documents, {n_sets} annotation sets and {n_spans} spans" in summary
    assert [d["doc_id"] for d in exported] == [d["doc_id"] for d in original]
    for got, want in zip(exported, original, strict=True):
        for key in ("text", "meta", "task", "dataset_type", "quality_checked"):
            assert got[key] == want[key], key
        assert list(got["annotations"]) == list(want["annotations"])
        for annotator, body in want["annotations"].items():
            # Every field of every mention, in the file's order (edit_type and
            # related_mentions included).
            assert got["annotations"][annotator]["entity_mentions"] == body["entity_mentions"]
        assert set(got) == set(want)
    assert Span.objects.count() == n_spans


def test_export_of_reimported_export_is_identical(tab_sample_path, tmp_path):
    import_file(tab_sample_path, project="first")
    first = export_file(tmp_path / "first.json", "first")
    import_file(tmp_path / "first.json", project="second")
    second = export_file(tmp_path / "second.json", "second")
    assert first == second


def test_import_stores_documents_sets_and_spans(tab_sample_path):
    original = load(tab_sample_path)
    import_file(tab_sample_path)

    project = Project.objects.get(name="P")
    docs = list(Document.objects.filter(project=project).order_by("position"))
    assert [d.external_id for d in docs] == [d["doc_id"] for d in original]
    assert [d.position for d in docs] == [0, 1, 2]
    assert all(d.status == DocumentStatus.ANNOTATED for d in docs)
    assert all(d.split == "test" for d in docs)
    span = Span.objects.get(mention_id="001-61807_a1_em4")
    assert (span.start, span.end, span.text) == (314, 329, "Mr Galip Yalman")
    assert (span.entity_type, span.identifier_type, span.entity_id) == (
        "PERSON",
        "DIRECT",
        "001-61807_a1_e4",
    )
    assert span.attrs == {"edit_type": "check"}
    assert span.annotation_set.source == SetSource.IMPORT


def test_tab_annotators_become_inactive_users_owning_their_sets(tab_sample_path):
    import_file(tab_sample_path)

    User = get_user_model()
    project = Project.objects.get(name="P")
    names = {"annotator1", "annotator3", "annotator4", "annotator5", "annotator6"}
    names |= {"annotator7", "annotator8", "annotator12"}
    stand_ins = {f"{name}@import.{project.pk}" for name in names}
    users = User.objects.filter(username__in=stand_ins)
    assert users.count() == len(names)
    for user in users:
        assert not user.is_active
        assert not user.has_usable_password()
        membership = Membership.objects.get(project=project, user=user)
        assert membership.role == Role.ANNOTATOR
    annotator3 = User.objects.get(username=f"annotator3@import.{project.pk}")
    own = AnnotationSet.objects.get(annotator=annotator3)
    assert own.document.external_id == "001-61253"
    assert own.kind == SetKind.HUMAN
    assert own.status == SetStatus.SUBMITTED
    assert own.quality_checked
    annotator4 = f"annotator4@import.{project.pk}"
    assert not AnnotationSet.objects.get(annotator__username=annotator4).quality_checked
    annotator1 = f"annotator1@import.{project.pk}"
    assert AnnotationSet.objects.filter(annotator__username=annotator1).count() == 3


def test_a_second_import_into_the_project_reuses_its_stand_ins(tab_sample_path, tmp_path):
    import_file(tab_sample_path, project="first")
    docs = load(tab_sample_path)
    for doc in docs:
        doc["doc_id"] += "-again"
    out = import_file(dump(tmp_path, docs), project="first")
    assert "import-only annotators" not in out
    project = Project.objects.get(name="first")
    stand_in = get_user_model().objects.get(username=f"annotator1@import.{project.pk}")
    assert AnnotationSet.objects.filter(annotator=stand_in).count() == 6


def test_each_project_gets_its_own_stand_ins(tab_sample_path):
    """Stand-ins are per project: an import cannot learn which names other projects imported."""
    first = import_file(tab_sample_path, project="first")
    second = import_file(tab_sample_path, project="second")
    assert "Added 8 import-only annotators" in first
    assert "Added 8 import-only annotators" in second
    owners = {
        s.annotator.username.rsplit(".", 1)[1]
        for s in AnnotationSet.objects.select_related("annotator")
        if s.annotator is not None
    }
    assert owners == {str(p.pk) for p in Project.objects.all()}


def test_import_never_attaches_sets_to_an_unrelated_active_account(tab_sample_path):
    User = get_user_model()
    real = User.objects.create_user(username="annotator1", password="x-secret-123")
    import_file(tab_sample_path)
    project = Project.objects.get(name="P")
    assert not AnnotationSet.objects.filter(annotator=real).exists()
    stand_in = User.objects.get(username=f"annotator1@import.{project.pk}")
    assert not stand_in.is_active
    assert AnnotationSet.objects.filter(annotator=stand_in).count() == 3
    assert not Membership.objects.filter(user=real).exists()


def test_import_uses_an_active_account_that_belongs_to_the_project(tab_sample_path):
    User = get_user_model()
    member = User.objects.create_user(username="annotator1", password="x-secret-123")
    project = Project.objects.create(name="P")
    Membership.objects.create(project=project, user=member, role=Role.ANNOTATOR)
    import_file(tab_sample_path)
    assert AnnotationSet.objects.filter(annotator=member).count() == 3


# --- target person --------------------------------------------------------------------


def test_target_person_from_meta_applicant(tab_sample_path):
    import_file(tab_sample_path)
    doc = Document.objects.get(external_id="001-61807")
    assert doc.target_person == "Galip Yalman"


def test_target_person_from_task_line(tab_sample_path, tmp_path):
    docs = load(tab_sample_path)[:1]
    del docs[0]["meta"]["applicant"]
    docs[0]["task"] = "Task: Annotate the document to anonymise the following person: Ayşe Kaya"
    import_file(dump(tmp_path, docs))
    assert Document.objects.get().target_person == "Ayşe Kaya"


def test_target_person_from_explicit_target_field_wins_and_round_trips(tab_sample_path, tmp_path):
    docs = load(tab_sample_path)[:1]
    docs[0]["target"] = "Osman Çağlayan"
    import_file(dump(tmp_path, docs))
    assert Document.objects.get().target_person == "Osman Çağlayan"
    exported = export_file(tmp_path / "out.json")
    assert exported[0]["target"] == "Osman Çağlayan"
    assert exported[0]["meta"] == docs[0]["meta"]


# --- rejected files -------------------------------------------------------------------


def _offset_past_end(docs: list[dict[str, Any]], i: int) -> str:
    m = mention(docs[i], next(iter(docs[i]["annotations"])), 2)
    m["end_offset"] = len(docs[i]["text"]) + 7
    return m["entity_mention_id"]


def _wrong_span_text(docs: list[dict[str, Any]], i: int) -> str:
    m = mention(docs[i], next(iter(docs[i]["annotations"])), 3)
    m["span_text"] = m["span_text"] + "x"
    return m["entity_mention_id"]


def _unknown_identifier_type(docs: list[dict[str, Any]], i: int) -> str:
    m = mention(docs[i], next(iter(docs[i]["annotations"])), 4)
    m["identifier_type"] = "SEMI"
    return m["entity_mention_id"]


def _start_not_before_end(docs: list[dict[str, Any]], i: int) -> str:
    m = mention(docs[i], next(iter(docs[i]["annotations"])), 5)
    m["end_offset"] = m["start_offset"]
    m["span_text"] = ""
    return m["entity_mention_id"]


def _unknown_entity_type(docs: list[dict[str, Any]], i: int) -> str:
    m = mention(docs[i], next(iter(docs[i]["annotations"])), 6)
    m["entity_type"] = "NAME"
    return m["entity_mention_id"]


def _last_annotator_bad_offsets(docs: list[dict[str, Any]], i: int) -> str:
    # The problem sits in the last annotator of the document, after other sets.
    m = mention(docs[i], list(docs[i]["annotations"])[-1], -1)
    m["start_offset"] = -1
    return m["entity_mention_id"]


CORRUPTIONS: dict[str, tuple[Callable[[list[dict[str, Any]], int], str], str]] = {
    "offset past the end": (_offset_past_end, "outside the text"),
    "wrong span_text": (_wrong_span_text, "differs from the text"),
    "unknown identifier type": (_unknown_identifier_type, "unknown identifier_type 'SEMI'"),
    "start not before end": (_start_not_before_end, "is not before end_offset"),
    "unknown entity type": (_unknown_entity_type, "unknown entity_type 'NAME'"),
    "bad offsets in the last set": (_last_annotator_bad_offsets, "outside the text"),
}


@pytest.mark.parametrize("doc_index", [0, 2], ids=["first document", "last document"])
@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
@pytest.mark.parametrize("project_exists", [True, False], ids=["existing", "new project"])
def test_corrupted_file_is_rejected_naming_document_and_mention(
    tab_sample_path, tmp_path, corruption, doc_index, project_exists
):
    docs = load(tab_sample_path)
    mutate, problem = CORRUPTIONS[corruption]
    mention_id = mutate(docs, doc_index)
    path = dump(tmp_path, docs)
    if project_exists:
        import_file(dump(tmp_path, [dict(docs[1], doc_id="already-here")], "seed.json"))
    before = table_counts()

    with pytest.raises(CommandError) as error:
        import_file(path)

    message = str(error.value)
    assert f"document {docs[doc_index]['doc_id']!r}" in message
    assert f"mention {mention_id!r}" in message
    assert problem in message
    assert "nothing was imported" in message
    # With the corruption in the last document, two documents, their sets and new
    # annotator accounts were written before the error: all must be rolled back.
    assert table_counts() == before


def test_duplicate_doc_id_in_the_file_is_rejected(tab_sample_path, tmp_path):
    docs = load(tab_sample_path)
    docs[2]["doc_id"] = docs[0]["doc_id"]
    before = table_counts()
    with pytest.raises(CommandError, match=r"document '001-61807': duplicate doc_id"):
        import_file(dump(tmp_path, docs))
    assert table_counts() == before


def test_doc_id_already_in_the_project_is_rejected(tab_sample_path, tmp_path):
    docs = load(tab_sample_path)
    import_file(dump(tmp_path, docs[2:], "first.json"))
    before = table_counts()
    with pytest.raises(CommandError, match=r"document '001-66929': a document with this id"):
        import_file(tab_sample_path)
    assert table_counts() == before


def test_truncated_json_is_rejected_naming_the_last_good_document(tab_sample_path, tmp_path):
    raw = tab_sample_path.read_bytes()
    # Cut inside the third document: two documents were already read and written.
    cut = raw.index(b'"doc_id": "001-66929"')
    path = tmp_path / "truncated.json"
    path.write_bytes(raw[:cut])
    before = table_counts()
    with pytest.raises(CommandError) as error:
        import_file(path)
    assert "invalid JSON after document '001-61253'" in str(error.value)
    assert table_counts() == before


def test_not_json_at_all_is_rejected(tmp_path):
    path = tmp_path / "notes.json"
    path.write_text("hello", encoding="utf-8")
    before = table_counts()
    with pytest.raises(CommandError, match="not a JSON list of documents"):
        import_file(path)
    assert table_counts() == before


def test_missing_file_is_an_error(tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        import_file(tmp_path / "missing.json")
    assert not Project.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_command_line_exit_status_and_messages(tab_sample_path, tmp_path):
    """The real ``manage.py`` process: summary on success, error and status 1 on a bad file."""
    # Imported here: importing it at collection would keep pytest from rewriting its
    # asserts when other modules load it as a plugin.
    from tests.celery_worker import database_url

    env = {
        **os.environ,
        "DATABASE_URL": database_url(connection.settings_dict),
        "SECRET_KEY": "test-only",
        "DB_CONN_MAX_AGE": "0",
    }
    docs = load(tab_sample_path)
    m = mention(docs[2], "annotator1", 0)
    m["start_offset"], m["end_offset"] = 5, 2
    bad = dump(tmp_path, docs, "bad.json")
    manage = [sys.executable, str(REPO_ROOT / "manage.py")]

    failed = subprocess.run(
        [*manage, "import_documents", "--project", "cli", "--format", "tab", str(bad)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert failed.returncode == 1
    assert f"document '001-66929', mention '{m['entity_mention_id']}'" in failed.stderr
    assert not Project.objects.filter(name="cli").exists()
    assert not Document.objects.exists()

    ok = subprocess.run(
        [*manage, "import_documents", "--project", "cli", "--format", "tab", str(tab_sample_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert "Imported 3 documents" in ok.stdout
    assert Document.objects.filter(project__name="cli").count() == 3


# --- JSONL and text -------------------------------------------------------------------


def test_jsonl_import(tmp_path):
    path = tmp_path / "docs.jsonl"
    lines = [
        {"id": "a", "text": "Anna Berg lives in Oslo.", "target": "Anna Berg"},
        {"id": 7, "text": "Nothing here.", "meta": {"applicant": "Per Olsen", "year": 2001}},
        {"doc_id": "c", "text": "Third."},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")

    out = import_file(path, fmt="jsonl")

    assert "Imported 3 documents, 0 annotation sets and 0 spans" in out
    docs = list(Document.objects.order_by("position"))
    assert [d.external_id for d in docs] == ["a", "7", "c"]
    assert [d.target_person for d in docs] == ["Anna Berg", "Per Olsen", ""]
    assert docs[1].meta == {"applicant": "Per Olsen", "year": 2001}
    assert all(d.status == DocumentStatus.NEW for d in docs)
    assert not AnnotationSet.objects.exists()


def test_jsonl_bad_line_is_rejected_with_its_number(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"id": "a", "text": "ok"}\n{"id": "b", "text": \n', encoding="utf-8")
    before = table_counts()
    with pytest.raises(CommandError, match="line 2: invalid JSON"):
        import_file(path, fmt="jsonl")
    assert table_counts() == before


def test_text_import_of_a_folder_and_a_file(tmp_path):
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "b.txt").write_text("Second text.", encoding="utf-8")
    (folder / "a.txt").write_text("First text about Åse.", encoding="utf-8")
    (folder / "ignored.md").write_text("not a text document", encoding="utf-8")
    single = tmp_path / "c.txt"
    single.write_text("Third.", encoding="utf-8")

    import_file(folder, fmt="text")
    import_file(single, fmt="text")

    docs = list(Document.objects.order_by("position"))
    assert [(d.external_id, d.text) for d in docs] == [
        ("a", "First text about Åse."),
        ("b", "Second text."),
        ("c", "Third."),
    ]


def test_text_import_rejects_non_utf8(tmp_path):
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.txt").write_text("fine", encoding="utf-8")
    (folder / "b.txt").write_bytes("Ærlig".encode("latin-1"))
    before = table_counts()
    with pytest.raises(CommandError, match=r"document 'b': not UTF-8"):
        import_file(folder, fmt="text")
    assert table_counts() == before


# --- background import ----------------------------------------------------------------


def test_background_import_queues_a_job_after_commit(
    tab_sample_path, monkeypatch, django_capture_on_commit_callbacks
):
    from io import StringIO

    from sanitizer_app.celery import app

    sent: list[tuple[str, list[Any], str]] = []

    class Result:
        id = "task-1"

    def send_task(name: str, args: list[Any], queue: str) -> Result:
        sent.append((name, args, queue))
        return Result()

    monkeypatch.setattr(app, "send_task", send_task)
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command(
            "import_documents", str(tab_sample_path), "--project", "bg", "--format", "tab",
            "--background", stdout=out,
        )  # fmt: skip

    job = Job.objects.get()
    assert job.kind == "import"
    assert job.status == JobStatus.QUEUED
    assert job.project == Project.objects.get(name="bg")
    assert job.params == {"path": str(tab_sample_path.resolve()), "format": "tab"}
    assert sent == [("sanitizer.import_documents", [job.pk], "cpu")]
    assert Job.objects.get().celery_task_id == "task-1"
    assert f"Queued import job #{job.pk}" in out.getvalue()
    assert not Document.objects.exists()


# --- exports --------------------------------------------------------------------------


def _first_quality_checked_masks(doc: dict[str, Any]) -> list[list[int]]:
    annotator = next(a for a in doc["annotations"] if a in doc["quality_checked"])
    mentions = doc["annotations"][annotator]["entity_mentions"]
    return sorted(
        [m["start_offset"], m["end_offset"]]
        for m in mentions
        if m["identifier_type"] in ("DIRECT", "QUASI")
    )


def test_masks_export_uses_the_first_quality_checked_set(tab_sample_path, tmp_path):
    original = load(tab_sample_path)
    import_file(tab_sample_path)

    masks = export_file(tmp_path / "masks.json", "P", "masks")

    assert list(masks) == [d["doc_id"] for d in original]
    for doc in original:
        assert masks[doc["doc_id"]] == _first_quality_checked_masks(doc)
    # annotator3 is the first quality-checked annotator of the second document.
    assert len(masks["001-61253"]) == 53 + 8


def test_masks_export_of_one_annotator(tab_sample_path, tmp_path):
    original = load(tab_sample_path)
    import_file(tab_sample_path)

    masks = export_file(tmp_path / "masks.json", "P", "masks", "--source", "annotator:annotator4")

    mentions = original[1]["annotations"]["annotator4"]["entity_mentions"]
    assert masks == {
        "001-61807": [],
        "001-61253": sorted(
            [m["start_offset"], m["end_offset"]]
            for m in mentions
            if m["identifier_type"] != "NO_MASK"
        ),
        "001-66929": [],
    }


def _document_with_decisions() -> tuple[Document, dict[str, int]]:
    document = DocumentFactory.create(project__name="R", external_id="doc/1")
    human = AnnotationSetFactory.create(document=document, status=SetStatus.SUBMITTED)
    at = {w: SAMPLE_TEXT.index(w) for w in ("Galip Yalman", "1945", "Ankara", "36110/97")}
    SpanFactory.create(annotation_set=human)  # Galip Yalman, DIRECT PERSON
    SpanFactory.create(
        annotation_set=human,
        start=at["1945"],
        end=at["1945"] + 4,
        entity_type="DATETIME",
        identifier_type="QUASI",
    )
    SpanFactory.create(
        annotation_set=human,
        start=at["Ankara"],
        end=at["Ankara"] + 6,
        entity_type="LOC",
        identifier_type="NO_MASK",
    )
    return document, at


@pytest.mark.parametrize(
    ("style", "name", "year"),
    [("stars", "***", "***"), ("mask", "[MASK]", "[MASK]"), ("type", "[PERSON]", "[DATETIME]")],
)
def test_text_export_releases_masked_text(tmp_path, style, name, year):
    _document_with_decisions()

    released = export_file(tmp_path / "released.json", "R", "text", "--style", style)

    expected = SAMPLE_TEXT.replace("Galip Yalman", name).replace("1945", year)
    assert released == [{"doc_id": "doc/1", "text": expected}]
    assert "Ankara" in released[0]["text"]


def test_text_export_into_a_folder_writes_one_file_per_document(tmp_path):
    _document_with_decisions()
    DocumentFactory.create(
        project=Project.objects.get(name="R"), external_id="../escape", text="Plain."
    )
    folder = tmp_path / "out"
    folder.mkdir()

    export_file(folder, "R", "text", "--style", "mask")

    files = sorted(p.name for p in folder.iterdir())
    assert files == ["_escape.txt", "doc_1.txt"]
    assert (
        (folder / "doc_1.txt")
        .read_text(encoding="utf-8")
        .startswith("The applicant, Mr [MASK], was born in [MASK] and lives in Ankara.")
    )
    assert (folder / "_escape.txt").read_text(encoding="utf-8") == "Plain."
    assert not (tmp_path / "escape.txt").exists()


def _spacy_run(document: Document, span: EntitySpan) -> None:
    machine_set_create(
        document=document,
        source=SetSource.PREANNOTATION,
        source_name="spacy",
        source_version="1",
        spans=[span],
    )


def test_export_sources_gold_and_machine(tmp_path):
    document, at = _document_with_decisions()
    _spacy_run(document, EntitySpan(at["36110/97"], at["36110/97"] + 8, "CODE", "36110/97"))
    gold = gold_set_for_document(document=document, user=None)
    span_create(
        annotation_set=gold,
        user=None,
        start=at["Ankara"],
        end=at["Ankara"] + 6,
        entity_type="LOC",
        identifier_type="QUASI",
    )
    code = [at["36110/97"], at["36110/97"] + 8]
    ankara = [at["Ankara"], at["Ankara"] + 6]

    auto = export_file(tmp_path / "auto.json", "R", "masks")
    machine = export_file(tmp_path / "m.json", "R", "masks", "--source", "machine:spacy")
    gold_masks = export_file(tmp_path / "g.json", "R", "masks", "--source", "gold")
    released = export_file(
        tmp_path / "r.json", "R", "text", "--source", "machine:spacy", "--style", "type"
    )

    assert auto == {"doc/1": [ankara]}  # gold wins once it exists
    assert machine == {"doc/1": [code]}
    assert gold_masks == {"doc/1": [ankara]}
    assert released[0]["text"] == SAMPLE_TEXT.replace("36110/97", "[CODE]")


def test_machine_source_export_uses_its_newest_run_even_once_superseded(tmp_path):
    document, at = _document_with_decisions()
    code = (at["36110/97"], at["36110/97"] + 8)
    for name, version in (("spacy", "1"), ("spacy", "2"), ("model", "1")):
        # The model's run is of the same kind and supersedes the spacy runs.
        machine_set_create(
            document=document,
            source=SetSource.MODEL if name == "model" else SetSource.PREANNOTATION,
            source_name=name,
            source_version=version,
            spans=[EntitySpan(*code, "CODE", "36110/97")] if version == "2" else [],
        )
    assert not AnnotationSet.objects.filter(source_name="spacy").exists()

    machine = export_file(tmp_path / "m.json", "R", "masks", "--source", "machine:spacy")
    released = export_file(tmp_path / "r.json", "R", "text", "--source", "machine:spacy")

    assert machine == {"doc/1": [list(code)]}
    assert released[0]["text"] == SAMPLE_TEXT.replace("36110/97", "[CODE]")


def test_text_export_of_a_source_missing_for_a_document_is_refused(tmp_path):
    document, at = _document_with_decisions()
    _spacy_run(document, EntitySpan(at["Ankara"], at["Ankara"] + 6, "LOC", "Ankara"))
    DocumentFactory.create(project=document.project, external_id="doc/2", position=5)
    target = tmp_path / "r.json"
    for source in ("machine:spacy", "machine:nope", "gold", "annotator:nobody"):
        missing = "doc/2" if source == "machine:spacy" else "doc/1"
        with pytest.raises(CommandError, match=f"'{missing}' has no '{source}' set"):
            export_file(target, "R", "text", "--source", source)
        assert not target.exists()


def test_tab_export_leaves_machine_and_gold_sets_out(tmp_path):
    document, _ = _document_with_decisions()
    gold_set_for_document(document=document, user=None)
    exported = export_file(tmp_path / "out.json", "R")
    assert len(exported) == 1
    assert len(exported[0]["annotations"]) == 1


def test_export_to_stdout(tab_sample_path, capsys):
    import_file(tab_sample_path)
    call_command("export_documents", "--project", "P", "--format", "masks", "--output", "-")
    assert set(json.loads(capsys.readouterr().out)) == {"001-61807", "001-61253", "001-66929"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--project", "nope", "--format", "tab"], "no project named 'nope'"),
        (["--project", "R", "--format", "tab", "--source", "gold"], "--source applies"),
        (["--project", "R", "--format", "masks", "--style", "mask"], "--style applies"),
        (["--project", "R", "--format", "masks", "--source", "someone"], "--source"),
        (["--project", "R", "--format", "text", "--style", "blur"], "--style"),
    ],
)
def test_export_option_errors(tmp_path, args, message):
    DocumentFactory.create(project__name="R")
    with pytest.raises(CommandError, match=message):
        call_command("export_documents", *args, "--output", str(tmp_path / "x.json"))
    assert not (tmp_path / "x.json").exists()
    assert [p.name for p in tmp_path.iterdir()] == []


def test_export_replaces_the_output_file_whole(tab_sample_path, tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old content", encoding="utf-8")
    import_file(tab_sample_path)
    export_file(target, "P", "masks")
    assert len(json.loads(target.read_text(encoding="utf-8"))) == 3
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_reserved_annotator_names_get_their_own_accounts(tab_sample_path, tmp_path):
    docs = load(tab_sample_path)[:1]
    docs[0]["annotations"] = {"gold": docs[0]["annotations"]["annotator1"]}
    import_file(dump(tmp_path, docs))
    owner = AnnotationSet.objects.get().annotator
    project = Project.objects.get(name="P")
    assert owner is not None and owner.username == f"gold@import.{project.pk}"
    exported = export_file(tmp_path / "out.json")
    assert list(exported[0]["annotations"]) == [f"gold@import.{project.pk}"]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda d: d.update(text=" \n "), "the text is empty"),
        (lambda d: d.update(text=d["text"] + "\x00"), "NUL character"),
        (lambda d: d["meta"].update(_tab_extra={"doc_id": "x"}), "is reserved"),
        (
            lambda d: d["annotations"]["annotator1"]["entity_mentions"][0].update(
                entity_id="e" * 300
            ),
            "entity_id is longer than 255",
        ),
    ],
)
def test_values_the_database_cannot_hold_are_rejected_by_name(
    tab_sample_path, tmp_path, change, problem
):
    docs = load(tab_sample_path)
    change(docs[1])
    before = table_counts()
    with pytest.raises(CommandError) as error:
        import_file(dump(tmp_path, docs))
    assert problem in str(error.value)
    assert repr(docs[1]["doc_id"]) in str(error.value)
    assert table_counts() == before


def test_imported_tab_annotators_never_become_assignees(tab_sample_path):
    from annotation.services import assignments_round_robin
    from common.errors import DomainError

    import_file(tab_sample_path)
    project = Project.objects.get(name="P")
    imported = [m.user for m in project.memberships.select_related("user") if not m.user.is_active]
    assert imported  # the file's annotators own their sets through inactive accounts
    documents = list(project.documents.values_list("pk", flat=True))
    with pytest.raises(DomainError, match="inactive accounts cannot be assigned"):
        assignments_round_robin(
            project=project, document_ids=documents, annotator_ids=[imported[0].pk]
        )
    assert not project.documents.filter(assignments__isnull=False).exists()
