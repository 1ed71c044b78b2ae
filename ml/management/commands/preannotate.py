"""Pre-annotate a project's documents, inline or as a background job."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from jobs.services import job_create
from ml.management.common import progress_printer, project_named
from ml.selectors import model_version_find
from ml.services.preannotation import preannotate_documents
from ml.validators import PREANNOTATE


class Command(BaseCommand):
    help = "Run the active recognizer over a project's documents and store machine suggestions."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--project", required=True)
        parser.add_argument("--model-version", type=int, help="ModelVersion id (default: active)")
        parser.add_argument("--batch-size", type=int, default=8)
        parser.add_argument("--rerun", action="store_true", help="also documents already done")
        parser.add_argument("--background", action="store_true", help="queue a Celery job")

    def handle(self, *args: Any, **options: Any) -> None:
        project = project_named(options["project"])
        if options["background"]:
            params: dict[str, Any] = {
                "batch_size": options["batch_size"],
                "skip_existing": not options["rerun"],
            }
            if options["model_version"]:
                params["model_version_id"] = options["model_version"]
            job = job_create(kind=PREANNOTATE, params=params, project=project)
            self.stdout.write(f"queued job {job.pk}")
            return
        model_version = None
        if options["model_version"]:
            model_version = model_version_find(model_version_id=options["model_version"])
            if model_version is None:
                raise CommandError(f"no model version {options['model_version']}")

        result = preannotate_documents(
            project=project,
            model_version=model_version,
            skip_existing=not options["rerun"],
            batch_size=options["batch_size"],
            progress=progress_printer(self),
        )
        self.stdout.write(
            f"pre-annotated {result['documents']} documents ({result['skipped']} skipped), "
            f"{result['spans']} spans, {result['version']}"
        )
