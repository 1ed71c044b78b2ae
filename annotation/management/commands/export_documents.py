"""``manage.py export_documents --project NAME --format tab|masks|text --output PATH``.

Formats:

``tab``
    TAB JSON: every document with its human annotation sets keyed by username, the
    same shape ``import_documents --format tab`` reads.
``masks``
    TAB's evaluation format ``{doc_id: [[start, end], ...]}``: the DIRECT and QUASI
    spans of the set chosen by ``--source``.
``text``
    The released texts, masked spans replaced in ``--style`` (``stars``, ``mask``,
    ``type`` or ``numbered``; see ``sanitizer.formats.release``). If ``--output`` is an
    existing folder, one ``<doc_id>.txt`` per document is written there; otherwise
    one JSON list of ``{"doc_id", "text"}`` objects.

``--output -`` writes to standard output (not for text into a folder). A file is
written next to its final name and renamed at the end, so a failed export never
leaves a half-written file under that name.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from argparse import ArgumentParser
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Project
from annotation.selectors import (
    project_by_name,
    project_export_masks,
    project_export_release,
    project_export_tab,
)
from common.errors import DomainError
from sanitizer.formats.release import REPLACEMENT_STYLES
from sanitizer.formats.tab import write_tab

FORMATS = ("tab", "masks", "text")
_SOURCE = re.compile(r"^(auto|gold|annotator:.+|machine:.+)$")
_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]")


def mask_source(value: str) -> str:
    if not _SOURCE.match(value):
        raise ValueError(value)
    return value


@contextmanager
def _output(path: str) -> Iterator[IO[str]]:
    if path == "-":
        yield sys.stdout
        return
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            yield out
        # mkstemp creates the file 0600; give it the permissions a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _filename(doc_id: str) -> str:
    # Document ids come from imported files: never let one name a path outside the folder.
    safe = _UNSAFE_FILENAME.sub("_", doc_id).lstrip(".") or "_"
    return f"{safe}.txt"


class Command(BaseCommand):
    help = "Export a project's documents as TAB JSON, masks, or released (masked) texts."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--project", required=True, help="Project name.")
        parser.add_argument("--format", required=True, choices=FORMATS, dest="fmt")
        parser.add_argument(
            "--output",
            required=True,
            help="File to write ('-' for stdout); for --format text, an existing folder "
            "receives one <doc_id>.txt per document.",
        )
        parser.add_argument(
            "--source",
            type=mask_source,
            default=None,
            help="masks/text: whose spans to apply: auto (default: gold, else the first "
            "quality-checked human set, else the first submitted one, else the newest "
            "machine run), gold, annotator:<username>, machine:<source name>.",
        )
        parser.add_argument(
            "--style",
            choices=REPLACEMENT_STYLES,
            default=None,
            help="text: replacement of a masked span: stars (***), mask ([MASK]), "
            "type ([PERSON], ...; default) or numbered ([PERSON 1], [PERSON 2], ...: one "
            "number per entity, shared by its co-referent mentions).",
        )

    def handle(
        self,
        *args: Any,
        project: str,
        fmt: str,
        output: str,
        source: str | None,
        style: str | None,
        **options: Any,
    ) -> None:
        found = project_by_name(name=project)
        if found is None:
            raise CommandError(f"no project named {project!r}")
        if fmt == "tab" and source is not None:
            raise CommandError("--source applies to --format masks and text only")
        if fmt != "text" and style is not None:
            raise CommandError("--style applies to --format text only")
        source = source or "auto"
        style = style or "type"
        exporters: dict[str, Callable[[Project, str, str, str], int]] = {
            "tab": self._tab,
            "masks": self._masks,
            "text": self._text,
        }
        try:
            count = exporters[fmt](found, output, source, style)
        except DomainError as exc:
            raise CommandError(str(exc)) from exc
        # Status goes to stderr so that ``--output -`` stays clean JSON.
        self.stderr.write(
            f"Exported {count} documents of project {found.name!r} as {fmt} to {output}"
        )

    def _tab(self, project: Project, output: str, source: str, style: str) -> int:
        with _output(output) as out:
            return write_tab(project_export_tab(project=project), out)

    def _masks(self, project: Project, output: str, source: str, style: str) -> int:
        masks = project_export_masks(project=project, source=source)
        with _output(output) as out:
            json.dump(masks, out, ensure_ascii=False)
            out.write("\n")
        return len(masks)

    def _text(self, project: Project, output: str, source: str, style: str) -> int:
        released = project_export_release(project=project, source=source, style=style)
        if output != "-" and Path(output).is_dir():
            return self._text_folder(released, Path(output))
        with _output(output) as out:
            return write_tab(released, out)

    def _text_folder(self, released: Iterator[dict[str, Any]], folder: Path) -> int:
        written: dict[str, str] = {}
        for item in released:
            name = _filename(item["doc_id"])
            if name in written:
                raise CommandError(
                    f"documents {written[name]!r} and {item['doc_id']!r} "
                    f"map to the same file {name}"
                )
            written[name] = item["doc_id"]
            (folder / name).write_text(item["text"], encoding="utf-8")
        return len(written)
