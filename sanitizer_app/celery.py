"""The Celery application.

Two queues: ``cpu`` for parsing, indexing and solving, ``gpu`` for model training
and inference (a gpu worker runs where CUDA exists; torch picks the device, so
the same task also runs on a CPU-only worker listening on ``gpu``).
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from kombu import Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sanitizer_app.settings.local")


def route_by_job_kind(name: str, *args: Any, **kwargs: Any) -> dict[str, str] | None:
    """Route a task to the queue the job-kind table gives it (``workers.kinds``).

    Looked up when a task is sent, not here: the table imports the apps, which can
    only be imported once Django has loaded them.
    """
    from workers.kinds import task_queues

    queue = task_queues().get(name)
    return {"queue": queue} if queue else None


app = Celery("sanitizer_app")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    task_default_queue="cpu",
    task_queues=(Queue("cpu"), Queue("gpu")),
    # Model training and inference go to gpu workers; parsing, indexing, solving to cpu.
    task_routes=(route_by_job_kind,),
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    # Job state lives in the Job table, not in a result backend.
    task_ignore_result=True,
    broker_connection_retry_on_startup=True,
)
app.autodiscover_tasks(["workers"])
