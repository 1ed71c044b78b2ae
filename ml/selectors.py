"""Reads: model versions a user may see, the active model, the documents to train on."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from annotation.models import Document, Membership, Project, Split
from ml.models import ModelVersion


def model_versions_for_user(
    *, user: Any, project: Any = None, kind: str | None = None, is_active: bool | None = None
) -> QuerySet[ModelVersion]:
    """Shared model versions plus those of the user's projects (optionally filtered)."""
    qs = ModelVersion.objects.select_related("project")
    if project is not None:
        qs = qs.filter(project=project)
    if kind is not None:
        qs = qs.filter(kind=kind)
    if is_active is not None:
        qs = qs.filter(is_active=is_active)
    if user.is_superuser:
        return qs
    member_of = Membership.objects.filter(user=user).values("project_id")
    return qs.filter(Q(project__isnull=True) | Q(project_id__in=member_of))


def model_version_find(*, model_version_id: int) -> ModelVersion | None:
    return ModelVersion.objects.select_related("project").filter(pk=model_version_id).first()


def model_version_in_scope(*, model_version_id: int, project: Any, kind: str) -> bool:
    """Whether the id names a model of ``kind`` of this project, or a shared one."""
    return (
        ModelVersion.objects.filter(pk=model_version_id, kind=kind)
        .filter(Q(project=project) | Q(project__isnull=True))
        .exists()
    )


def active_model_version(*, project: Project | None, kind: str) -> ModelVersion | None:
    """The project's active model of ``kind``, else the active shared one."""
    qs = ModelVersion.objects.filter(kind=kind, is_active=True)
    if project is not None:
        own = qs.filter(project=project).first()
        if own is not None:
            return own
    return qs.filter(project__isnull=True).first()


def training_documents(
    *, project: Project, max_documents: int | None = None
) -> list[tuple[Document, bool]]:
    """The documents a model may learn from, each with whether it is held out (dev).

    ``test`` documents are never trained on. ``dev`` documents drive early stopping;
    a project without any holds out every tenth document instead.
    """
    qs = project.documents.exclude(split=Split.TEST).order_by("position", "id")
    documents = list(qs[:max_documents] if max_documents else qs)
    has_dev = any(d.split == Split.DEV for d in documents)
    return [
        (document, document.split == Split.DEV if has_dev else i % 10 == 9)
        for i, document in enumerate(documents)
    ]


# The figures activation compares, best first: the first one both models report decides.
COMPARED_METRICS = ("token_f1", "entity_exact_f1", "entity_partial_f1")
BUILTIN_LABEL = "built-in recognizer"
# Where a training run keeps the built-in recognizer's figures on its own dev set.
BUILTIN_METRICS_KEY = "builtin_metrics"


def _figures(metrics: dict[str, Any] | None) -> dict[str, float]:
    return {
        k: float(v)
        for k, v in (metrics or {}).items()
        if k in COMPARED_METRICS and isinstance(v, int | float)
    }


def model_activation_comparison(*, model_version: ModelVersion) -> dict[str, Any]:
    """The candidate's evaluation next to the model it would replace (the active one of
    its kind, or the built-in recognizer with the figures the candidate's training run
    measured for it on the same dev set), whether the candidate is worse, and whether
    activating it needs confirmation (worse, or no figure in common to tell)."""
    active = active_model_version(project=model_version.project, kind=model_version.kind)
    candidate: dict[str, Any] = {
        "id": model_version.pk,
        "label": model_version.label,
        "builtin": False,
        "metrics": _figures(model_version.metrics),
    }
    current: dict[str, Any]
    if active is not None and active.pk == model_version.pk:
        current = candidate
    elif active is not None:
        current = {
            "id": active.pk,
            "label": active.label,
            "builtin": False,
            "metrics": _figures(active.metrics),
        }
    else:
        builtin = (model_version.training_summary or {}).get(BUILTIN_METRICS_KEY)
        current = {
            "id": None,
            "label": BUILTIN_LABEL,
            "builtin": True,
            "metrics": _figures(builtin),
        }
    metric = next(
        (m for m in COMPARED_METRICS if m in candidate["metrics"] and m in current["metrics"]),
        None,
    )
    worse = metric is not None and candidate["metrics"][metric] < current["metrics"][metric]
    # With no figure to compare, nobody knows the candidate is not worse: activating it
    # needs the same confirmation as a worse one.
    uncompared = metric is None and current is not candidate
    return {
        "candidate": candidate,
        "active": current,
        "metric": metric,
        "worse": worse,
        "needs_confirm": worse or uncompared,
        "message": _comparison_message(candidate, current, metric, worse),
    }


def _describe(model: dict[str, Any], metric: str | None) -> str:
    if metric is None:
        figures = model["metrics"]
        if not figures:
            return f"{model['label']} (not evaluated)"
        return f"{model['label']} (" + ", ".join(f"{k} {v:.3f}" for k, v in figures.items()) + ")"
    return f"{model['label']} ({metric} {model['metrics'][metric]:.3f})"


def _comparison_message(
    candidate: dict[str, Any], current: dict[str, Any], metric: str | None, worse: bool
) -> str:
    if candidate is current:
        return f"{_describe(candidate, metric)} is already active."
    if metric is None:
        return (
            f"{_describe(candidate, None)} and the active {_describe(current, None)} "
            "share no evaluation figure to compare."
        )
    verdict = "worse than" if worse else "at least as good as"
    return f"{_describe(candidate, metric)} is {verdict} the active {_describe(current, metric)}."
