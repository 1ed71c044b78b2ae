"""Re-queue jobs whose worker vanished or whose broker message was lost (jobs.janitor)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from jobs.janitor import jobs_janitor


class Command(BaseCommand):
    help = (
        "Re-queue running jobs without a heartbeat and queued jobs whose broker message is "
        "gone (celery beat runs this every JOBS_JANITOR_SECONDS); jobs past their attempt "
        "bound fail instead."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--stale-seconds",
            type=float,
            default=None,
            help="silence after which a job counts as lost (default: JOBS_STALE_SECONDS)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        seconds = options["stale_seconds"]
        report = jobs_janitor(stale_after=None if seconds is None else timedelta(seconds=seconds))
        self.stdout.write(
            f"re-queued {len(report.requeued)} job(s) {report.requeued}, "
            f"failed {len(report.failed)} job(s) {report.failed}"
        )
