"""The ``risk_solve`` job's work: one masking machine set per assessed document."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from annotation.models import Document, Project, SetSource
from annotation.services import ProgressCallback, machine_run_store
from jobs.models import Job
from risk.selectors import assessment_solve, risk_assessments_latest
from risk.services.solving import Masking
from risk.validators import DIAL_KEYS
from sanitizer.types import EntitySpan

RISK_SOURCE_NAME = "risk"


def risk_solve_documents(
    *,
    project: Project,
    document_ids: Sequence[int] | None,
    settings: Mapping[str, Any],
    job: Job | None = None,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Solve each assessed document's newest assessment with ``settings`` and store the
    masks as a machine set (source "masking"; each span's attrs carry its ``reasons`` and
    ``entity``), replacing the document's previous masking run. Documents without an
    assessment are left alone."""
    requested = {k: settings[k] for k in DIAL_KEYS if settings.get(k) is not None}
    assessments = {
        a.document_id: a
        for a in risk_assessments_latest(project=project, document_ids=document_ids)
    }
    if not assessments:
        if progress:
            progress(0, 0, "no risk assessment to solve")
        return {"documents": 0, "masked_spans": 0, "risky": 0, "settings": requested}
    solved: dict[int, Masking] = {}

    def label_batch(documents: Sequence[Document]) -> list[list[EntitySpan]]:
        out = []
        for document in documents:
            masking = assessment_solve(
                assessment=assessments[document.pk], requested=requested, text=document.text
            )
            solved[document.pk] = masking
            out.append(masking.masked_spans())
        return out

    risky = 0

    def document_parameters(document: Document) -> dict[str, Any]:
        nonlocal risky
        masking = solved.pop(document.pk)
        risky += masking.risky
        return {
            "assessment_id": assessments[document.pk].pk,
            "share_masked": masking.share_masked,
            "risky": masking.risky,
            "settings": masking.settings,
        }

    version = "risk|" + "|".join(f"{k}={requested[k]}" for k in sorted(requested))
    summary = machine_run_store(
        project=project,
        source=SetSource.MASKING,
        source_name=RISK_SOURCE_NAME,
        source_version=version,
        label_batch=label_batch,
        parameters={"strategy": "risk", **requested},
        job=job,
        document_ids=list(assessments),
        progress=progress,
        start_message=lambda total, skipped: f"solving the masking of {total} documents",
        document_parameters=document_parameters,
    )
    return {
        "documents": summary.documents,
        "masked_spans": summary.spans,
        "risky": risky,
        "settings": requested,
    }
