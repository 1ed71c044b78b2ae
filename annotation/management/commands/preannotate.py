"""Pre-annotate a project's documents, inline or as a background job."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Project
from annotation.preannotation import preannotate_documents
from jobs.models import JobKind, ModelVersion
from jobs.services import job_create


class Command(BaseCommand):
    help = "Run the active recognizer over a project's documents and store machine suggestions."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--project", required=True)
        parser.add_argument("--model-version", type=int, help="ModelVersion id (default: active)")
        parser.add_argument("--batch-size", type=int, default=8)
        parser.add_argument("--rerun", action="store_true", help="also documents already done")
        parser.add_argument("--background", action="store_true", help="queue a Celery job")

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(name=options["project"]).first()
        if project is None:
            raise CommandError(f"no project named {options['project']!r}")
        if options["background"]:
            params: dict[str, Any] = {
                "batch_size": options["batch_size"],
                "skip_existing": not options["rerun"],
            }
            if options["model_version"]:
                params["model_version_id"] = options["model_version"]
            job = job_create(kind=JobKind.PREANNOTATE, params=params, project=project)
            self.stdout.write(f"queued job {job.pk}")
            return
        model_version = None
        if options["model_version"]:
            model_version = ModelVersion.objects.get(pk=options["model_version"])

        def report(done: int, total: int, message: str) -> None:
            if message:
                self.stdout.write(message)

        result = preannotate_documents(
            project=project,
            model_version=model_version,
            skip_existing=not options["rerun"],
            batch_size=options["batch_size"],
            progress=report,
        )
        self.stdout.write(
            f"pre-annotated {result['documents']} documents ({result['skipped']} skipped), "
            f"{result['spans']} spans, {result['version']}"
        )
