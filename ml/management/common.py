"""What the ml commands share: finding the project named on the command line, printing progress."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Project
from annotation.services import ProgressCallback


def project_named(name: str) -> Project:
    project = Project.objects.filter(name=name).first()
    if project is None:
        raise CommandError(f"no project named {name!r}")
    return project


def progress_printer(command: BaseCommand) -> ProgressCallback:
    """A progress callback that prints the messages (not the counts) of a run."""

    def report(done: int, total: int, message: str) -> None:
        if message:
            command.stdout.write(message)

    return report
