"""The job-kind registry: which kinds exist, their task, queue and parameter validator.

The jobs app knows no kind by name: the worker app registers its table of kinds here
when Django starts (``workers.apps``), so the apps below the workers can queue jobs
without importing them, and a new kind needs no change in this app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# (params, project) -> None; raises jobs.services.JobStateError on bad parameters.
ParamsValidator = Callable[[dict[str, Any], Any], None]


def no_params_check(params: dict[str, Any], project: Any) -> None:
    """For kinds only the server queues: their parameters are never a client's."""


@dataclass(frozen=True)
class JobKindSpec:
    name: str
    label: str
    task_name: str
    queue: str
    validate: ParamsValidator = no_params_check
    # False for kinds whose parameters clients must not choose (an import names a
    # server path): the job API refuses them, services still queue them.
    creatable: bool = True
    # Runs of one job, counted before the work starts: a job whose worker died this
    # many times fails instead of running again (a bad input must not crash-loop).
    max_attempts: int = 3
    # Set for kinds that fan out over every worker of their queue: the Celery task
    # that runs one chunk (args: job id, chunk id). The janitor re-sends lost chunks.
    chunk_task_name: str = ""


_REGISTRY: dict[str, JobKindSpec] = {}


def register_job_kind(spec: JobKindSpec) -> JobKindSpec:
    """Add (or replace, when the same name is registered again) a job kind."""
    _REGISTRY[spec.name] = spec
    return spec


def unregister_job_kind(name: str) -> None:
    _REGISTRY.pop(name, None)


def job_kind_get(name: str) -> JobKindSpec | None:
    return _REGISTRY.get(name)


def job_kinds() -> list[JobKindSpec]:
    """Every registered kind, in registration order."""
    return list(_REGISTRY.values())
