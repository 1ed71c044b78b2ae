"""Registering trained models and choosing the active one (services)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.db import transaction

from common.errors import DomainError
from ml.models import ModelVersion
from ml.selectors import model_activation_comparison


@transaction.atomic
def model_version_create(
    *,
    kind: str,
    name: str,
    version: str,
    artefact_path: str,
    base_model: str = "",
    config: dict[str, Any] | None = None,
    training_summary: dict[str, Any] | None = None,
    metrics: dict[str, Any] | None = None,
    project: Any = None,
    job: Any = None,
    created_by: Any = None,
    activate: bool = False,
    trained_on_documents: Iterable[int] | None = None,
) -> ModelVersion:
    """Register a model version. ``trained_on_documents``: the ids of the documents its
    training read (None when not known, e.g. a model registered from a path)."""
    model_version = ModelVersion(
        kind=kind,
        name=name,
        version=version,
        artefact_path=artefact_path,
        base_model=base_model,
        config=config or {},
        training_summary=training_summary or {},
        metrics=metrics or {},
        project=project,
        job=job,
        created_by=created_by if created_by is not None and created_by.is_authenticated else None,
        trained_on_documents=(
            None if trained_on_documents is None else sorted({int(i) for i in trained_on_documents})
        ),
    )
    model_version.full_clean()
    model_version.save()
    if activate:
        # Asked for before the model existed: a model worse than the one in use, or with
        # no figure to compare it by, is registered but left inactive, and the summary
        # says why.
        comparison = model_activation_comparison(model_version=model_version)
        if comparison["needs_confirm"]:
            model_version.training_summary = {
                **model_version.training_summary,
                "activation": f"not activated: {comparison['message']}",
            }
            model_version.save(update_fields=["training_summary"])
        else:
            model_version_activate(model_version=model_version)
    return model_version


def trained_model_register(
    *,
    kind: str,
    name: str,
    result: Any,
    config: dict[str, Any],
    training_summary: dict[str, Any],
    project: Any,
    job: Any,
    created_by: Any,
    activate: bool,
    trained_on_documents: Iterable[int] | None,
) -> ModelVersion:
    """Register what a training run (``sanitizer.training.trainer.TrainingResult``) saved,
    with the ids of the documents it read."""
    return model_version_create(
        kind=kind,
        name=name,
        version=result.model_version,
        artefact_path=str(Path(result.output_dir).resolve()),
        base_model=result.base_model,
        config=config,
        training_summary={
            **training_summary,
            "epochs_run": result.epochs_run,
            "steps": result.steps,
            "duration_seconds": result.duration_seconds,
        },
        metrics=result.metrics,
        project=project,
        job=job,
        created_by=created_by,
        activate=activate,
        trained_on_documents=trained_on_documents,
    )


@transaction.atomic
def model_version_activate(*, model_version: ModelVersion, confirm: bool = False) -> ModelVersion:
    """Make this the active model of its kind (per project, or shared).

    A model whose evaluation is worse than the active model's (or the built-in
    recognizer's), or that shares no evaluation figure with it, is activated only with
    ``confirm``; otherwise DomainError names both figures."""
    comparison = model_activation_comparison(model_version=model_version)
    if comparison["needs_confirm"] and not confirm:
        raise DomainError(f"{comparison['message']} Confirm to activate it anyway.")
    ModelVersion.objects.select_for_update().filter(
        kind=model_version.kind, project=model_version.project, is_active=True
    ).exclude(pk=model_version.pk).update(is_active=False)
    model_version.is_active = True
    model_version.save(update_fields=["is_active"])
    return model_version


@transaction.atomic
def model_version_deactivate(*, model_version: ModelVersion) -> ModelVersion:
    """Stop using this model: its project (or every project, for a shared model) goes
    back to the built-in recognizer unless a shared model of the kind is active."""
    model_version.is_active = False
    model_version.save(update_fields=["is_active"])
    return model_version
