"""Training the supervised risk classifier and the masked LM from a project's data (services).

Both learn from the documents ``ml.selectors.training_documents`` offers (never ``test``
ones). The risk classifier learns from human decisions: a document's published gold set
when it has one, else its annotators' submitted sets (each annotator a voter, as in TAB);
the TAB records come from ``annotation.selectors.project_export_tab``. The masked LM reads
the documents' text only.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.text import slugify

from annotation.models import AnnotationSet, Project, SetKind, SetStatus
from annotation.selectors.exports import project_export_tab
from annotation.services import ProgressCallback
from common.errors import DomainError
from ml.loading import recognizer_load
from ml.models import ModelKind, ModelVersion
from ml.selectors import training_documents
from ml.services.model_versions import model_version_create

# Job parameters of each kind (ml.validators checks them).
RISK_TRAINING_KEYS = (
    "name",
    "classifier",
    "base_model",
    "epochs",
    "max_steps",
    "batch_size",
    "folds",
    "threshold",
    "seed",
    "activate",
)
# "gbdt": gradient boosting over features (minutes on a CPU); "transformer": the encoder
# fine-tuned on the entity in context (NTS input), for gpu workers.
RISK_CLASSIFIERS = ("gbdt", "transformer")
MLM_TRAINING_KEYS = (
    "name",
    "base_model",
    "epochs",
    "max_steps",
    "batch_size",
    "learning_rate",
    "seed",
    "activate",
)


def _voters(project: Project, document_ids: Iterable[int]) -> dict[str, list[str]]:
    """``{external_id: export keys}`` of the sets whose decisions count on each document:
    ``["gold"]`` where a gold set is published, else the submitted annotators' usernames."""
    sets = AnnotationSet.objects.filter(
        document__project=project, document_id__in=list(document_ids)
    ).select_related("document", "annotator")
    gold: set[str] = set()
    human: dict[str, list[str]] = {}
    for annotation_set in sets:
        doc_id = annotation_set.document.external_id
        if annotation_set.kind == SetKind.GOLD and annotation_set.published_at is not None:
            gold.add(doc_id)
        elif (
            annotation_set.kind == SetKind.HUMAN
            and annotation_set.status != SetStatus.IN_PROGRESS
            and annotation_set.annotator is not None
        ):
            human.setdefault(doc_id, []).append(annotation_set.annotator.get_username())
    return {**human, **{doc_id: ["gold"] for doc_id in gold}}


def risk_training_records(*, project: Project) -> list[dict[str, Any]]:
    """TAB records of the non-test documents that have decisions, with only those decisions."""
    return _records_and_document_ids(project)[0]


def _records_and_document_ids(project: Project) -> tuple[list[dict[str, Any]], list[int]]:
    """:func:`risk_training_records` and the ids of their documents, sorted."""
    documents = [document for document, _ in training_documents(project=project)]
    ids = {document.external_id: document.pk for document in documents}
    voters = _voters(project, ids.values())
    records = []
    for record in project_export_tab(project=project, include_gold=True):
        keys = voters.get(record["doc_id"])
        if keys:
            record["annotations"] = {k: record["annotations"].get(k, {}) for k in keys}
            records.append(record)
    return records, sorted(ids[record["doc_id"]] for record in records)


def _output_dir(name: str) -> Path:
    return Path(settings.MODEL_DIR) / f"{name}-{uuid.uuid4().hex[:12]}"


def _version() -> str:
    return timezone.now().strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def risk_classifier_train(
    *,
    project: Project,
    params: dict[str, Any],
    job: Any = None,
    created_by: Any = None,
    progress: ProgressCallback | None = None,
) -> ModelVersion:
    """Fit the supervised risk classifier on the project's decisions and register it."""
    from sanitizer.risk.supervised.model import DEFAULT_SUPERVISED_THRESHOLD
    from sanitizer.risk.supervised.training import labelled_documents, train_risk_model

    records, document_ids = _records_and_document_ids(project)
    if not records:
        raise DomainError(
            "no training documents: the risk classifier learns from published gold sets or "
            "submitted annotations of non-test documents"
        )
    name = params.get("name") or f"risk-{slugify(project.name)[:60] or project.pk}"
    if progress:
        progress(0, 1, f"recognizing entities in {len(records)} documents")
    recognizer = recognizer_load(project=project)
    predictions = recognizer.predict_batch([r["text"] for r in records])
    spans = {r["doc_id"]: p for r, p in zip(records, predictions, strict=True)}
    threshold = params.get("threshold")
    threshold = DEFAULT_SUPERVISED_THRESHOLD if threshold is None else float(threshold)
    documents = labelled_documents(records, spans)
    model: Any
    try:
        if params.get("classifier", "gbdt") == "transformer":
            model = _transformer_train(documents, params, threshold, source=f"project {project.pk}")
        else:
            model = train_risk_model(
                documents,
                folds=int(params.get("folds", 5)),
                seed=int(params.get("seed", 0)),
                threshold=threshold,
                source=f"project {project.pk}",
            )
    except ValueError as exc:
        raise DomainError(str(exc)) from exc
    target = model.save(_output_dir(name))
    config = model.config
    return model_version_create(
        kind=ModelKind.RISK_CLASSIFIER,
        name=name,
        version=_version(),
        artefact_path=str(target.resolve()),
        base_model=str(config.get("model", "")),
        config={
            k: config[k]
            for k in ("version", "model", "base_model", "params", "scorer", "threshold")
            if k in config
        },
        training_summary={
            **config["training"],
            "recognizer": f"{recognizer.name}@{recognizer.version}",
        },
        metrics=config["metrics"],
        project=project,
        job=job,
        created_by=created_by,
        activate=bool(params.get("activate", False)),
        trained_on_documents=document_ids,
    )


def _transformer_train(
    documents: Any, params: dict[str, Any], threshold: float, *, source: str
) -> Any:
    """The transformer classifier; the base model defaults to TRANSFORMER_BASE_MODEL,
    else the bundled MiniLM (ml.validators allows only ALLOWED_BASE_MODELS)."""
    from sanitizer.risk.supervised.transformer import (
        TransformerRiskParams,
        train_transformer_risk_model,
    )

    defaults = TransformerRiskParams()
    schedule = TransformerRiskParams(
        epochs=int(params.get("epochs") or defaults.epochs),
        batch_size=int(params.get("batch_size") or defaults.batch_size),
        seed=int(params.get("seed") or defaults.seed),
        max_steps=int(params["max_steps"]) if params.get("max_steps") else None,
    )
    return train_transformer_risk_model(
        documents,
        base_model=params.get("base_model") or settings.TRANSFORMER_BASE_MODEL or None,
        params=schedule,
        threshold=threshold,
        source=source,
    )


def masked_lm_train(
    *,
    project: Project,
    params: dict[str, Any],
    job: Any = None,
    created_by: Any = None,
    progress: ProgressCallback | None = None,
) -> ModelVersion:
    """Fine-tune the masked LM on the text of the project's non-test documents; register it.

    Dev documents (when the project has any) are the held-out ones its top-5 accuracy is
    measured on; otherwise the trainer sets a share aside. The held-out documents are
    only evaluated, so ``trained_on_documents`` leaves them out (a share the trainer sets
    aside itself is not known here: then every document given counts).
    """
    from sanitizer.training.mlm import MLMTrainingConfig, train_masked_lm

    documents = training_documents(project=project)
    train = [d.text for d, held in documents if not held]
    held_out = [d.text for d, held in documents if held]
    document_ids = [d.pk for d, held in documents if not held]
    if not train:
        raise DomainError("no documents to train the masked LM on (test documents are left out)")
    names = ("base_model", "epochs", "max_steps", "batch_size", "learning_rate", "seed")
    config_args = {k: params[k] for k in names if params.get(k) is not None}
    if not config_args.get("base_model") and settings.TRANSFORMER_BASE_MODEL:
        config_args["base_model"] = settings.TRANSFORMER_BASE_MODEL
    config = MLMTrainingConfig(**config_args)
    name = params.get("name") or f"mlm-{slugify(project.name)[:60] or project.pk}"
    output = _output_dir(name)

    def log(line: str) -> None:
        if progress:
            progress(0, 1, line)

    try:
        summary = train_masked_lm(train, output, config, heldout_texts=held_out or None, log=log)
    except (ValueError, OSError) as exc:
        raise DomainError(str(exc)) from exc
    data = asdict(summary)
    data.pop("losses")
    before, after = data.pop("heldout_before"), data.pop("heldout_after")
    metrics: dict[str, Any] = {}
    if after is not None:
        metrics = {"top5_accuracy": after["top5"], "top1_accuracy": after["top1"]}
        metrics |= {"perplexity": after["perplexity"]}
    if before is not None:
        metrics["top5_accuracy_before"] = before["top5"]
    return model_version_create(
        kind=ModelKind.MASKED_LM,
        name=name,
        version=_version(),
        artefact_path=str(output.resolve()),
        base_model=summary.base_model,
        config=data.pop("config"),
        training_summary=data,
        metrics=metrics,
        project=project,
        job=job,
        created_by=created_by,
        activate=bool(params.get("activate", False)),
        trained_on_documents=document_ids,
    )
