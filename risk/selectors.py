"""Reads of the risk app: the newest assessment per document, the dial and the curve."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db.models import OuterRef, Subquery

from annotation.models import Document, Project
from jobs.services import JobStateError
from risk.models import RiskAssessment
from risk.services.solving import Masking, effective_settings, masking_solve
from risk.validators import DIAL_KEYS, risk_params_validate


def risk_assessment_latest(*, document: Document) -> RiskAssessment | None:
    return RiskAssessment.objects.filter(document=document).order_by("-created_at", "-id").first()


def risk_assessments_latest(
    *, project: Project, document_ids: Sequence[int] | None = None
) -> list[RiskAssessment]:
    """The newest assessment of each assessed document of the project (document order)."""
    rows = RiskAssessment.objects.filter(document__project=project).select_related("document")
    if document_ids:
        rows = rows.filter(document_id__in=document_ids)
    # A subquery rather than DISTINCT ON: the demo runs on SQLite.
    newest = RiskAssessment.objects.filter(document=OuterRef("document")).order_by(
        "-created_at", "-id"
    )
    rows = rows.filter(pk=Subquery(newest.values("pk")[:1]))
    return sorted(rows, key=lambda r: (r.document.position, r.document_id))


def project_risk_defaults(*, project: Project) -> dict[str, Any]:
    """The dial settings of ``privacy_settings["risk"]`` (ignored unless valid)."""
    stored = (project.privacy_settings or {}).get("risk")
    if not isinstance(stored, dict):
        return {}
    values = {k: stored[k] for k in DIAL_KEYS if stored.get(k) is not None}
    try:
        risk_params_validate(values, project)
    except JobStateError:
        return {}
    return values


def assessment_solve(
    *,
    assessment: RiskAssessment,
    requested: Mapping[str, Any],
    text: str | None = None,
    project_defaults: Mapping[str, Any] | None = None,
    time_limit: float | None = None,
) -> Masking:
    """Solve a stored assessment with the requested dial settings (nothing is written);
    unset ones are the assessment's, then the project's, then the library's."""
    document = assessment.document
    if project_defaults is None:
        project_defaults = project_risk_defaults(project=document.project)
    settings = effective_settings({**project_defaults, **assessment.settings}, requested)
    return masking_solve(
        text=document.text if text is None else text,
        data=assessment.data,
        settings=settings,
        doc_id=document.external_id,
        time_limit=time_limit,
    )


# One curve request solves thresholds × documents maskings: bounded, each solve capped
# (CP-SAT falls back to its greedy cover, still a valid masking, when time runs out).
CURVE_SOLVE_BUDGET = 4000
CURVE_TIME_LIMIT = 0.05


def risk_curve(*, project: Project, thresholds: Sequence[float]) -> dict[str, Any]:
    """Share of the project's assessed text masked at each threshold (other settings: each
    assessment's own)."""
    assessments = list(risk_assessments_latest(project=project))
    assessed = len(assessments)
    per_threshold = max(1, CURVE_SOLVE_BUDGET // max(1, len(thresholds)))
    if assessed > per_threshold:
        # An even, deterministic sample of the documents keeps one request bounded.
        step = assessed / per_threshold
        assessments = [assessments[int(i * step)] for i in range(per_threshold)]
    defaults = project_risk_defaults(project=project)
    total = sum(len(a.document.text) for a in assessments)
    points = []
    for threshold in thresholds:
        masked = sum(
            assessment_solve(
                assessment=a,
                requested={"threshold": threshold},
                project_defaults=defaults,
                time_limit=CURVE_TIME_LIMIT,
            ).masked_characters
            for a in assessments
        )
        points.append({"threshold": threshold, "share_masked": masked / total if total else 0.0})
    return {
        "points": points,
        "documents": len(assessments),
        "assessed_documents": assessed,
        "sampled": len(assessments) < assessed,
    }
