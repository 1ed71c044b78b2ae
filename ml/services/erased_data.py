"""Model versions and erased training data (services; called by the erasure app).

Which documents a training run used is not stored per document, so the erasure app
decides which models may have learnt from what it erases; these functions only apply
its decision to the rows. The artefact folders are the caller's to remove, after its
transaction commits.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from ml.models import ModelVersion


@transaction.atomic
def model_versions_mark_erased_data(*, model_versions: Iterable[ModelVersion]) -> list[int]:
    """Mark the models as trained (partly) on erased data and take them out of use.

    An active one is deactivated: its project goes back to the built-in recognizer (or
    the shared model) until an admin activates it again knowingly. Returns the ids.
    """
    ids = [model_version.pk for model_version in model_versions]
    now = timezone.now()
    # The first erasure's time is kept: it says since when the model is affected.
    ModelVersion.objects.filter(pk__in=ids, trained_on_erased_data_at__isnull=True).update(
        trained_on_erased_data_at=now
    )
    ModelVersion.objects.filter(pk__in=ids).update(is_active=False)
    return ids


@transaction.atomic
def model_versions_delete(
    *, model_versions: Iterable[ModelVersion]
) -> list[tuple[int, Path | None]]:
    """Delete the rows; returns each id with its artefact folder (None when it has none).

    Annotation sets that name a deleted model keep their spans (``model_version`` is
    set to NULL by the database rule)."""
    deleted: list[tuple[int, Path | None]] = []
    for model_version in model_versions:
        path = Path(model_version.artefact_path) if model_version.artefact_path else None
        deleted.append((model_version.pk, path))
    ModelVersion.objects.filter(pk__in=[pk for pk, _ in deleted]).delete()
    return deleted
