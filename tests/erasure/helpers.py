"""A project with everything an erasure must remove, its files on disk under temporary
storage folders (``settings.UPLOAD_DIR`` and ``settings.MODEL_DIR``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.utils import timezone

from accounts.models import ApiToken
from annotation.models import (
    AnnotationSet,
    Document,
    Invitation,
    Project,
    Role,
    SetKind,
    SetSource,
    SetStatus,
    Span,
    SpanEvent,
)
from jobs.models import Job, JobStatus
from knowledge.models import KbFormat, KbStatus, KnowledgeBase
from ml.models import ModelVersion
from reid.models import ReidTarget
from risk.models import RiskAssessment
from tests.factories import (
    AnnotationSetFactory,
    AssignmentFactory,
    DocumentFactory,
    JobFactory,
    MembershipFactory,
    ModelVersionFactory,
    ProjectFactory,
    SpanFactory,
    UserFactory,
)


def folder_with_file(path: Path, content: str = "weights") -> Path:
    path.mkdir(parents=True)
    (path / "model.bin").write_text(content, encoding="utf-8")
    return path


def upload_file(upload_dir: Path, name: str, content: str) -> Path:
    upload_dir.mkdir(parents=True, exist_ok=True)
    path = upload_dir / name
    path.write_text(content, encoding="utf-8")
    return path


def model_at(
    project: Project | None, folder: Path, *, age: timedelta, **fields: Any
) -> ModelVersion:
    """A model version registered ``age`` from now (negative: in the past)."""
    model_version = ModelVersionFactory.create(project=project, artefact_path=str(folder), **fields)
    ModelVersion.objects.filter(pk=model_version.pk).update(created_at=timezone.now() + age)
    model_version.refresh_from_db()
    return model_version


def annotated_document(project: Project, annotator: Any, external_id: str) -> Document:
    """A document with a human, a machine and a gold set (one span and one audit event
    each), an assignment, a risk assessment and (when the project has a knowledge
    base) a re-identification target."""
    document = DocumentFactory.create(project=project, external_id=external_id)
    AssignmentFactory.create(document=document, user=annotator)
    sets = [
        AnnotationSetFactory.create(document=document, annotator=annotator),
        AnnotationSetFactory.create(
            document=document,
            kind=SetKind.MACHINE,
            source=SetSource.PREANNOTATION,
            status=SetStatus.SUBMITTED,
        ),
        AnnotationSetFactory.create(
            document=document, kind=SetKind.GOLD, source=SetSource.ADJUDICATION
        ),
    ]
    for annotation_set in sets:
        span = SpanFactory.create(annotation_set=annotation_set)
        SpanEvent.objects.create(
            span=span,
            span_key=span.pk,
            annotation_set=annotation_set,
            action="create",
            user=annotator,
            after={"text": span.text},
        )
    RiskAssessment.objects.create(
        document=document, version="test", data={"entities": [{"text": "Galip Yalman"}]}
    )
    knowledge_base = KnowledgeBase.objects.filter(project=project).first()
    if knowledge_base is not None:
        ReidTarget.objects.create(document=document, knowledge_base=knowledge_base, profile_id="Q1")
    return document


@dataclass
class Scene:
    project: Project
    admin: Any
    annotator: Any
    document: Document
    other_document: Document
    knowledge_base: KnowledgeBase
    queued_job: Job
    finished_job: Job
    job_upload: Path
    kb_source: Path
    kb_index: Path


def build_scene(upload_dir: Path, model_dir: Path) -> Scene:
    project = ProjectFactory.create(name="erasure project")
    admin = UserFactory.create(username="erasure-admin")
    annotator = UserFactory.create(username="erasure-annotator")
    MembershipFactory.create(project=project, user=admin, role=Role.ADMIN)
    MembershipFactory.create(project=project, user=annotator, role=Role.ANNOTATOR)
    Invitation.objects.create(project=project, user=UserFactory.create(), role=Role.ANNOTATOR)
    kb_source = upload_file(upload_dir / "knowledge", "people.jsonl", '{"id": "Q1"}\n')
    kb_index = folder_with_file(model_dir / "knowledge" / "kb-test", "index")
    knowledge_base = KnowledgeBase.objects.create(
        name="people",
        project=project,
        source_format=KbFormat.JSONL,
        source_path=str(kb_source),
        index_dir=str(kb_index),
        status=KbStatus.READY,
    )
    document = annotated_document(project, annotator, "Galip_Yalman_judgment")
    other_document = annotated_document(project, annotator, "other-judgment")
    job_upload = upload_file(upload_dir, "import.json", "Galip Yalman")
    queued_job = JobFactory.create(
        project=project,
        kind="import",
        params={"path": str(job_upload), "format": "tab", "delete_after": True},
    )
    finished_job = JobFactory.create(
        project=project, kind="preannotate", status=JobStatus.SUCCEEDED
    )
    ApiToken.objects.create(
        user=annotator,
        key_hash="a" * 64,
        prefix="abcd",
        password_fingerprint="x",
        expires_at=timezone.now() + timedelta(days=1),
    )
    return Scene(
        project=project,
        admin=admin,
        annotator=annotator,
        document=document,
        other_document=other_document,
        knowledge_base=knowledge_base,
        queued_job=queued_job,
        finished_job=finished_job,
        job_upload=job_upload,
        kb_source=kb_source,
        kb_index=kb_index,
    )


def rows_of_documents(document_ids: list[int]) -> dict[str, int]:
    """What is left in the database about the documents."""
    return {
        "documents": Document.objects.filter(pk__in=document_ids).count(),
        "annotation_sets": AnnotationSet.history.filter(document_id__in=document_ids).count(),
        "spans": Span.objects.filter(annotation_set__document_id__in=document_ids).count(),
        "span_events": SpanEvent.objects.filter(
            annotation_set__document_id__in=document_ids
        ).count(),
        "risk_assessments": RiskAssessment.objects.filter(document_id__in=document_ids).count(),
        "reid_targets": ReidTarget.objects.filter(document_id__in=document_ids).count(),
    }
