"""The body of each job kind: ``(job, reporter) -> result``, calling the apps' services.

A body returns the job's result (stored on the row); nothing that can raise comes
between the work's commit and the return, so a committed result is never reported
as a failure.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from annotation.models import Project
from annotation.services import document_import
from common.errors import DomainError
from jobs.models import Job
from jobs.services import job_create
from knowledge.models import KnowledgeBase
from knowledge.services import distant_label_project, knowledge_base_build, masker_train
from ml.models import ModelKind, ModelVersion
from ml.selectors import active_model_version
from ml.services.preannotation import preannotate_documents
from ml.services.risk_training import masked_lm_train, risk_classifier_train
from ml.services.training import recognizer_train
from reid.services.curve import reid_curve_compute
from reid.services.deidentify import reid_deidentify_documents
from reid.services.training import reid_train
from reid.validators import DEFAULT_CURVE_K_VALUES as REID_CURVE_K_VALUES
from reid.validators import DEFAULT_K as REID_DEFAULT_K
from risk.services import risk_assess_documents, risk_solve_documents
from risk.validators import RISK_SOLVE
from workers.runner import Reporter


def _project_of(job: Job) -> Project:
    if job.project_id is None:
        raise DomainError(f"{job.kind} jobs need a project")
    return Project.objects.get(pk=job.project_id)


def _knowledge_base_of(job: Job) -> KnowledgeBase:
    return KnowledgeBase.objects.get(pk=job.params["knowledge_base_id"])


def _model_result(model_version: ModelVersion) -> dict[str, Any]:
    return {
        "model_version_id": model_version.pk,
        "model": model_version.label,
        "metrics": model_version.metrics,
        "active": model_version.is_active,
    }


def import_documents(job: Job, reporter: Reporter) -> dict[str, Any]:
    project = _project_of(job)
    path = Path(job.params["path"])
    fmt = job.params["format"]
    reporter.log(f"importing {path.name} ({fmt})")
    # An upload (``delete_after``) stays for a retried attempt: the jobs app removes
    # it when the job succeeds, is cancelled or fails for good (jobs.services._finish).
    summary = document_import(
        project=project, path=path, fmt=fmt, user=job.created_by, progress=reporter
    )
    return summary.as_dict()


def describe_import(result: dict[str, Any]) -> str:
    return (
        f"imported {result['documents']} documents, {result['annotation_sets']} sets, "
        f"{result['spans']} spans"
    )


def preannotate(job: Job, reporter: Reporter) -> dict[str, Any]:
    project = _project_of(job)
    model_version = None
    if job.params.get("model_version_id"):
        model_version = ModelVersion.objects.get(pk=job.params["model_version_id"])
    return preannotate_documents(
        project=project,
        job=job,
        model_version=model_version,
        # Set by preannotate_pin for chunks: the rule-based recognizer was chosen.
        use_active=bool(job.params.get("use_active", True)),
        document_ids=job.params.get("document_ids"),
        skip_existing=job.params.get("skip_existing", True),
        batch_size=int(job.params.get("batch_size", 8)),
        progress=reporter,
    )


def preannotate_pin(job: Job) -> dict[str, Any]:
    """The recognizer every chunk of a pre-annotation uses, chosen when it is planned:
    a model activated while chunks run must not label half the documents."""
    if job.params.get("model_version_id"):
        return {}
    active = active_model_version(project=_project_of(job), kind=ModelKind.RECOGNIZER)
    return {"model_version_id": active.pk} if active is not None else {"use_active": False}


def _train(train: Callable[..., ModelVersion], job: Job, reporter: Reporter) -> dict[str, Any]:
    """A training job: the service trains on the project and registers the model."""
    model_version = train(
        project=_project_of(job),
        params=job.params,
        job=job,
        created_by=job.created_by,
        progress=reporter,
    )
    return _model_result(model_version)


def train_recognizer(job: Job, reporter: Reporter) -> dict[str, Any]:
    return _train(recognizer_train, job, reporter)


def train_risk(job: Job, reporter: Reporter) -> dict[str, Any]:
    return _train(risk_classifier_train, job, reporter)


def train_mlm(job: Job, reporter: Reporter) -> dict[str, Any]:
    return _train(masked_lm_train, job, reporter)


def kb_build(job: Job, reporter: Reporter) -> dict[str, Any]:
    kb = _knowledge_base_of(job)
    reporter.log(f"indexing {kb.source_format} knowledge base {kb.name}")
    kb = knowledge_base_build(knowledge_base=kb, progress=Reporter(job.pk, min_seconds=1.0))
    return {
        "knowledge_base_id": kb.pk,
        "persons": kb.n_persons,
        "terms": kb.n_terms,
        "index_bytes": kb.index_bytes,
    }


def distant_label(job: Job, reporter: Reporter) -> dict[str, Any]:
    params = job.params
    return distant_label_project(
        project=_project_of(job),
        knowledge_base=_knowledge_base_of(job),
        k=int(params["k"]),
        max_arity=int(params.get("max_arity", 3)),
        selection=params.get("selection", "greedy"),
        seed=int(params.get("seed", 0)),
        job=job,
        progress=reporter,
    )


def train_masker(job: Job, reporter: Reporter) -> dict[str, Any]:
    model_version = masker_train(
        project=_project_of(job),
        knowledge_base=_knowledge_base_of(job),
        params=job.params,
        job=job,
        created_by=job.created_by,
        progress=reporter,
    )
    return _model_result(model_version)


def risk_assess(job: Job, reporter: Reporter) -> dict[str, Any]:
    project = _project_of(job)
    result = risk_assess_documents(
        project=project,
        document_ids=job.params.get("document_ids"),
        settings=job.params,
        job=job,
        progress=reporter,
    )
    # The assessments are committed (one transaction per batch): the solve may start.
    solve = job_create(
        kind=RISK_SOLVE, params=job.params, project=project, created_by=job.created_by
    )
    return {**result, "solve_job_id": solve.pk}


def risk_solve(job: Job, reporter: Reporter) -> dict[str, Any]:
    return risk_solve_documents(
        project=_project_of(job),
        document_ids=job.params.get("document_ids"),
        settings=job.params,
        job=job,
        progress=reporter,
    )


def train_reid(job: Job, reporter: Reporter) -> dict[str, Any]:
    return _train(reid_train, job, reporter)


def reid_deidentify(job: Job, reporter: Reporter) -> dict[str, Any]:
    params = job.params
    return reid_deidentify_documents(
        project=_project_of(job),
        knowledge_base_id=params.get("knowledge_base_id"),
        k=int(params.get("k") or REID_DEFAULT_K),
        start=params.get("start") or "none",
        document_ids=params.get("document_ids"),
        max_steps=params.get("max_steps"),
        job=job,
        progress=reporter,
    )


def reid_curve(job: Job, reporter: Reporter) -> dict[str, Any]:
    # The result is the curve itself: GET /api/projects/<id>/reid/curve/ serves it.
    params = job.params
    return reid_curve_compute(
        project=_project_of(job),
        knowledge_base_id=params.get("knowledge_base_id"),
        k_values=params.get("k_values") or list(REID_CURVE_K_VALUES),
        document_ids=params.get("document_ids"),
        progress=reporter,
    )
