"""``manage.py import_documents --project NAME --format tab|jsonl|text PATH [--background]``.

Inline (the default) the file is imported all or nothing: on the first problem the
error, naming the document and mention, goes to stderr, the command exits with
status 1 and nothing is stored (not even a project the command would have created).
With ``--background`` an IMPORT job is queued for a Celery worker instead; the
project is created first because the job belongs to it.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.selectors import project_by_name
from annotation.services import document_import, project_create
from common.errors import DomainError
from jobs.services import job_create
from sanitizer.formats.tab import FormatError

FORMATS = ("tab", "jsonl", "text")


class Command(BaseCommand):
    help = "Import documents (TAB JSON, JSONL or plain text) into a project, all or nothing."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("path", help="The file to import (for text: a .txt file or a folder).")
        parser.add_argument("--project", required=True, help="Project name; created if missing.")
        parser.add_argument("--format", required=True, choices=FORMATS, dest="fmt")
        parser.add_argument(
            "--background",
            action="store_true",
            help="Queue an IMPORT job for a Celery worker instead of importing here.",
        )

    def handle(
        self, *args: Any, path: str, project: str, fmt: str, background: bool, **options: Any
    ) -> None:
        # The worker may run in another directory: hand it an absolute path.
        source = Path(path).expanduser().resolve()
        if not source.exists():
            raise CommandError(f"{source}: no such file or folder")
        if fmt != "text" and not source.is_file():
            raise CommandError(f"{source}: not a file")
        if background:
            self._queue(source, project, fmt)
        else:
            self._import(source, project, fmt)

    def _import(self, source: Path, project_name: str, fmt: str) -> None:
        try:
            # One transaction for the project and its documents, so a bad file leaves
            # no empty project behind either.
            with transaction.atomic():
                project = project_by_name(name=project_name)
                created = project is None
                if project is None:
                    project = project_create(name=project_name)
                summary = document_import(project=project, path=source, fmt=fmt)
        except (FormatError, DomainError) as exc:
            raise CommandError(f"{source.name}: {exc}; nothing was imported") from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {summary.documents} documents, "
                f"{summary.annotation_sets} annotation sets and {summary.spans} spans "
                f"into project {project.name!r}" + (" (new project)" if created else "")
            )
        )
        if summary.users_created:
            self.stdout.write(
                f"Added {len(summary.users_created)} import-only annotators "
                "(inactive accounts, no login): " + ", ".join(summary.users_created)
            )

    def _queue(self, source: Path, project_name: str, fmt: str) -> None:
        with transaction.atomic():
            project = project_by_name(name=project_name)
            if project is None:
                project = project_create(name=project_name)
            job = job_create(
                kind="import",
                params={"path": str(source), "format": fmt},
                project=project,
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"Queued import job #{job.pk} for {source.name} into project {project.name!r} "
                f"(queue {job.queue}); follow it in the jobs list"
            )
        )
