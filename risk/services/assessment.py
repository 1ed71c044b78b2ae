"""The ``risk_assess`` job's work: recognizer → entities → measures' raw combinations, stored.

Per document it stores a :class:`~risk.models.RiskAssessment` holding everything a later
solve needs (entities with their information content and surprisal peak, the other
measures' combinations with their raw scores), so that the dial and the ``risk_solve``
job never run the recognizer or a scorer again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from annotation.models import Document, Project
from annotation.services import ProgressCallback
from common.errors import DomainError
from jobs.models import Job
from ml.loading import recognizer_load
from ml.models import ModelKind
from ml.selectors import active_model_version, model_version_find
from ml.validators import TRAIN_MLM, TRAIN_RISK
from risk.models import RiskAssessment
from risk.selectors import project_risk_defaults
from sanitizer.risk import RiskDocument, risk_measures
from sanitizer.risk.entities import entity_text
from sanitizer.risk.options import RiskOptions, RiskOptionsError
from sanitizer.risk.pipeline import RiskMasker, risk_document

# The job parameters that are risk settings (document_ids and the model ids are not).
SETTING_KEYS = ("measures", "threshold", "k", "max_arity")


# The job that makes a model of each kind, for the message when none is active.
TRAIN_JOB: dict[str, str] = {ModelKind.RISK_CLASSIFIER: TRAIN_RISK, ModelKind.MASKED_LM: TRAIN_MLM}


def _model_artefact(model_id: int | None, project: Project | None, kind: str) -> str:
    """The files of model version ``model_id``, else of the project's active model of
    ``kind`` (or the active shared one)."""
    if model_id is not None:
        version = model_version_find(model_version_id=model_id)
        if version is None or version.kind != kind:
            raise DomainError(f"no {kind} model version {model_id!r}")
    else:
        version = active_model_version(project=project, kind=kind)
        if version is None:
            raise DomainError(
                f"no active {kind} model in this project: train one ({TRAIN_JOB[kind]} job) "
                f"and activate it, or name one by its version id"
            )
    return version.artefact_path


def risk_options(settings: Mapping[str, Any], *, project: Project | None = None) -> RiskOptions:
    """Library options from job parameters. The supervised measure reads the classifier
    named by ``risk_model_version_id``, else the project's active one; the ``mlm`` scorer
    reads the masked LM named by ``mlm_model_version_id``."""
    values: dict[str, Any] = {k: settings[k] for k in SETTING_KEYS if settings.get(k) is not None}
    model_id = settings.get("risk_model_version_id")
    if model_id is not None or "supervised" in (values.get("measures") or ()):
        values["risk_model"] = _model_artefact(model_id, project, ModelKind.RISK_CLASSIFIER)
    mlm_id = settings.get("mlm_model_version_id")
    if mlm_id is not None:
        values["mlm"] = _model_artefact(mlm_id, project, ModelKind.MASKED_LM)
    try:
        return RiskOptions.from_mapping(values).validate()
    except RiskOptionsError as exc:
        raise DomainError(str(exc)) from exc


def assessment_data(
    document: RiskDocument, masker: RiskMasker, measures: Sequence[str]
) -> dict[str, Any]:
    """What a solve needs of one document; the ``lm`` combinations are left to the solve."""
    config = masker.measure_config()
    surprisals = masker.scorer.entity_surprisals(document)
    combinations = [
        {
            "measure": c.measure,
            "entity_ids": sorted(c.entity_ids),
            "score": c.score,
            "text": c.reason,
        }
        for name in measures
        if name != "lm"
        for c in risk_measures.get(name)(document, config)
    ]
    return {
        "entities": [
            {
                "id": e.entity_id,
                "label": e.label,
                "identifier_type": e.identifier_type,
                "ic": surprisals[e.entity_id].total,
                "peak": surprisals[e.entity_id].peak,
                "mentions": [[m.start, m.end] for m in e.mentions],
                "text": entity_text(e),
            }
            for e in document.entities
        ],
        "combinations": combinations,
        "person": document.person,
        "person_entity": document.attrs.get("person_entity"),
        "lm_config": {"lm_max_arity": masker.options.lm_max_arity, "window": masker.options.window},
    }


def _documents(project: Project, document_ids: Sequence[int] | None) -> list[Document]:
    documents = project.documents.order_by("position", "id")
    if document_ids:
        documents = documents.filter(pk__in=document_ids)
    return list(documents.only("id", "text", "external_id", "target_person"))


def risk_assess_documents(
    *,
    project: Project,
    document_ids: Sequence[int] | None,
    settings: Mapping[str, Any],
    job: Job | None = None,
    progress: ProgressCallback | None = None,
    batch_size: int = 8,
) -> dict[str, Any]:
    """Assess the project's documents (all, or ``document_ids``) and store one row each.

    The background an adversary searches is the project's documents (each document's own
    text is left out of its searches by the linkage index). Each batch commits on its own.
    """
    # The project's privacy_settings["risk"] fill what the job's parameters leave unset.
    settings = {**project_risk_defaults(project=project), **settings}
    options = risk_options(settings, project=project)
    measures = options.active_measures
    recognizer = recognizer_load(project=project)
    background = [(d.external_id, d.text) for d in project.documents.only("external_id", "text")]
    masker = RiskMasker(options, background=background)
    version = (
        f"{recognizer.name}@{recognizer.version}|measures={','.join(measures)}"
        f"|scorer={masker.scorer.name}"
    )
    # The measures that actually ran are stored: a solve without explicit measures
    # (the chained risk_solve, the dial) must break the combinations of all of them,
    # whatever defaults or project settings say later.
    stored_settings = {
        **{k: v for k, v in settings.items() if k != "document_ids"},
        "measures": list(measures),
    }
    todo = _documents(project, document_ids)
    total = len(todo)
    if progress:
        progress(0, total, f"assessing the risk of {total} documents ({', '.join(measures)})")
    combinations = 0
    for offset in range(0, total, batch_size):
        batch = todo[offset : offset + batch_size]
        predictions = recognizer.predict_batch([d.text for d in batch])
        rows = []
        for document, spans in zip(batch, predictions, strict=True):
            meta = {"applicant": document.target_person} if document.target_person else None
            risk_doc = risk_document(document.external_id, document.text, spans, meta)
            data = assessment_data(risk_doc, masker, measures)
            combinations += len(data["combinations"])
            row = RiskAssessment(
                document=document, version=version, settings=stored_settings, data=data, job=job
            )
            row.full_clean()
            rows.append(row)
        with transaction.atomic():
            for row in rows:
                row.save()
        if progress:
            progress(min(offset + batch_size, total), total, "")
    return {
        "documents": total,
        "combinations": combinations,
        "measures": list(measures),
        "version": version,
    }
