"""Uploaded files are written here, and only here, under ``settings.UPLOAD_DIR``.

Uploads hold personal data: each gets an unguessable name, and ``upload_discard``
removes it (and its own folder) when the work that needed it is done or failed.
"""

from __future__ import annotations

import contextlib
import re
import uuid
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.utils.text import get_valid_filename

from common.errors import TooLargeError

_FOLDER_NAME = re.compile(r"[0-9a-f]{32}")


def upload_save(
    *,
    upload: UploadedFile,
    suffix: str,
    subdir: str = "",
    keep_name: bool = False,
    max_bytes: int | None = None,
) -> Path:
    """Stream ``upload`` to a new file and return its path.

    ``keep_name`` keeps the file's own stem (a reader may take a document id from it),
    in a folder of its own so that concurrent uploads of one name do not meet. Past
    ``max_bytes`` the copy stops, what was written is removed and
    :class:`TooLargeError` is raised (the parsers refuse most oversize uploads
    earlier; this holds for any caller).
    """
    base = Path(settings.UPLOAD_DIR) / subdir if subdir else Path(settings.UPLOAD_DIR)
    if keep_name:
        stem = get_valid_filename(Path(upload.name or "").stem or "document")[:200]
        path = base / uuid.uuid4().hex / f"{stem}{suffix}"
    else:
        path = base / f"{uuid.uuid4().hex}{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    try:
        with path.open("wb") as out:
            for chunk in upload.chunks():
                written += len(chunk)
                if max_bytes is not None and written > max_bytes:
                    raise TooLargeError(f"the upload is larger than {max_bytes} bytes")
                out.write(chunk)
    except BaseException:
        # Personal data: nothing half-written stays on disk.
        upload_discard(path=path)
        raise
    return path


def upload_discard(*, path: Path) -> None:
    """Delete an upload; the folder ``upload_save(keep_name=True)`` made for it goes too."""
    path.unlink(missing_ok=True)
    folder = path.parent
    if _FOLDER_NAME.fullmatch(folder.name) and folder.parent.is_relative_to(settings.UPLOAD_DIR):
        # Not empty, or gone already: then nothing of ours is left to remove.
        with contextlib.suppress(OSError):
            folder.rmdir()
