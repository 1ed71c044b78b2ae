"""Pre-annotation: machine suggestions stored as annotation sets (services).

Every stored span carries the version string of what produced it (see
``ml.loading`` for which recognizer that is).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annotation.models import Document, Project
from annotation.services import ProgressCallback, machine_run_store
from ml.loading import recognizer_load
from ml.models import ModelVersion
from sanitizer.types import EntitySpan


def preannotate_documents(
    *,
    project: Project,
    job: Any = None,
    model_version: ModelVersion | None = None,
    document_ids: Sequence[int] | None = None,
    skip_existing: bool = True,
    batch_size: int = 8,
    progress: ProgressCallback | None = None,
    use_active: bool = True,
) -> dict[str, Any]:
    """Run the recognizer over the project's documents and store one machine set each.

    Idempotent: a document that already has a machine set from this job, or (with
    ``skip_existing``) from the same recognizer version, is skipped, so a re-delivered
    task or a repeated request does not duplicate suggestions. Each batch is stored in
    its own transaction: an interrupted job keeps what it finished.
    """
    # use_active=False with no model_version: the rule-based recognizer, even when a
    # model is active (the job was planned before it was activated).
    recognizer = recognizer_load(
        project=project, model_version=model_version, use_active=use_active
    )

    def label_batch(documents: Sequence[Document]) -> list[list[EntitySpan]]:
        return recognizer.predict_batch([d.text for d in documents])

    summary = machine_run_store(
        project=project,
        source=recognizer.source,
        source_name=recognizer.name,
        source_version=recognizer.version,
        label_batch=label_batch,
        parameters={"batch_size": batch_size},
        job=job,
        model_version=recognizer.model_version,
        document_ids=document_ids or None,
        skip_same_version=skip_existing,
        batch_size=batch_size,
        progress=progress,
        start_message=lambda total, skipped: (
            f"{recognizer.name} ({recognizer.version}): {total} documents, {skipped} already done"
        ),
    )
    return {
        "documents": summary.documents,
        "skipped": summary.skipped,
        "spans": summary.spans,
        "recognizer": recognizer.name,
        "version": recognizer.version,
        "model_version_id": recognizer.model_version.pk if recognizer.model_version else None,
    }
