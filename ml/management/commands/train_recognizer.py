"""Fine-tune the neural recognizer on a project's annotations (inline or as a job)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from jobs.services import job_create
from ml.management.common import progress_printer, project_named
from ml.services.training import TRAINING_SOURCES, recognizer_train
from ml.validators import TRAIN_RECOGNIZER


class Command(BaseCommand):
    help = "Train the transformer token classifier on gold, human and silver annotations."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--project", required=True)
        parser.add_argument("--sources", nargs="+", choices=TRAINING_SOURCES, default=None)
        parser.add_argument(
            "--base-model", help="local path or model name (default: bundled MiniLM)"
        )
        parser.add_argument("--epochs", type=int)
        parser.add_argument("--max-steps", type=int)
        parser.add_argument("--max-length", type=int)
        parser.add_argument("--batch-size", type=int)
        parser.add_argument("--learning-rate", type=float)
        parser.add_argument("--num-threads", type=int)
        parser.add_argument("--max-documents", type=int)
        parser.add_argument("--activate", action="store_true", help="make it the active recognizer")
        parser.add_argument("--background", action="store_true", help="queue a Celery job")

    def handle(self, *args: Any, **options: Any) -> None:
        project = project_named(options["project"])
        keys = (
            "sources", "base_model", "epochs", "max_steps", "max_length", "batch_size",
            "learning_rate", "num_threads", "max_documents",
        )  # fmt: skip
        params: dict[str, Any] = {k: options[k] for k in keys if options.get(k) is not None}
        params["activate"] = options["activate"]
        if options["background"]:
            job = job_create(kind=TRAIN_RECOGNIZER, params=params, project=project)
            self.stdout.write(f"queued job {job.pk}")
            return

        model_version = recognizer_train(
            project=project, params=params, progress=progress_printer(self)
        )
        self.stdout.write(
            f"saved {model_version.label} at {model_version.artefact_path}; "
            f"dev metrics {model_version.metrics}; active={model_version.is_active}"
        )
