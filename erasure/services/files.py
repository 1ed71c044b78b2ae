"""Removing erased files from disk, after the database commit.

Only what lives under the app's own storage (``settings.UPLOAD_DIR`` and
``settings.MODEL_DIR``) is removed: a knowledge base or model registered from a path
elsewhere (a command's input, a benchmark's folder) belongs to whoever put it there,
and is counted as kept rather than deleted.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common.uploads import upload_discard
from erasure.models import ErasureRecord

logger = logging.getLogger(__name__)


def _storage_roots() -> list[Path]:
    return [Path(settings.UPLOAD_DIR).resolve(), Path(settings.MODEL_DIR).resolve()]


def stored_paths(paths: Iterable[Path | str | None]) -> tuple[list[Path], int]:
    """The paths inside the app's storage (deduplicated, resolved) and how many others
    were named; a storage root itself is never one of them."""
    roots = _storage_roots()
    inside: dict[Path, None] = {}
    outside = 0
    for raw in paths:
        if not raw:
            continue
        path = Path(raw).resolve()
        if any(path != root and path.is_relative_to(root) for root in roots):
            inside[path] = None
        else:
            outside += 1
    return list(inside), outside


def _remove(path: Path) -> bool:
    """Remove one file or folder; True when nothing is left at ``path``."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.is_relative_to(Path(settings.UPLOAD_DIR).resolve()):
            # Also removes the folder of its own an upload that kept its name got.
            upload_discard(path=path)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        logger.exception("erasure could not remove %s", path)
        return False
    return not path.exists()


def files_remove(*, record_id: int, paths: list[Path]) -> tuple[int, int]:
    """Remove the paths and write the outcome on the erasure record; (removed, failed).

    Runs after the commit (``files_remove_on_commit``): a rolled-back erasure removes no
    file. A path already gone counts as removed."""
    removed = failed = 0
    for path in paths:
        if _remove(path):
            removed += 1
        else:
            failed += 1
    ErasureRecord.objects.filter(pk=record_id).update(
        files_removed=removed, files_failed=failed, files_removed_at=timezone.now()
    )
    return removed, failed


def files_remove_on_commit(*, record: ErasureRecord, paths: list[Path]) -> None:
    record_id = record.pk
    transaction.on_commit(lambda: files_remove(record_id=record_id, paths=paths))
