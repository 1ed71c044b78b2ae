"""The job-kind table is the one source of tasks, routes and accepted kinds."""

from __future__ import annotations

from jobs.kinds import job_kind_get, job_kinds
from workers.kinds import JOB_KINDS
from workers.tasks import TASKS

# Names queued messages carry: renaming one would strand the messages in the queue.
TASK_NAMES = {
    "import": "sanitizer.import_documents",
    "preannotate": "sanitizer.preannotate",
    "train_recognizer": "sanitizer.train_recognizer",
    "train_risk": "sanitizer.train_risk",
    "train_mlm": "sanitizer.train_mlm",
    "kb_import": "sanitizer.kb_build",
    "distant_label": "sanitizer.distant_label",
    "train_masker": "sanitizer.train_masker",
    "risk_assess": "sanitizer.risk_assess",
    "risk_solve": "sanitizer.risk_solve",
    "train_reid": "sanitizer.train_reid",
    "reid_deidentify": "sanitizer.reid_deidentify",
    "reid_curve": "sanitizer.reid_curve",
}


def test_every_entry_is_registered_with_the_jobs_app() -> None:
    assert {entry.name: entry.task_name for entry in JOB_KINDS} == TASK_NAMES
    for entry in JOB_KINDS:
        assert job_kind_get(entry.name) is entry
    assert {spec.name for spec in job_kinds()} >= set(TASK_NAMES)
    assert [s.name for s in job_kinds() if not s.creatable] == ["import"]


def test_every_entry_has_its_celery_task_and_route() -> None:
    from sanitizer_app.celery import app

    for entry in JOB_KINDS:
        task = app.tasks[entry.task_name]
        assert TASKS[entry.name].name == task.name == entry.task_name
        assert (task.soft_time_limit, task.time_limit, task.max_retries) == (
            entry.soft_time_limit,
            entry.time_limit,
            entry.max_retries,
        )
        assert task.acks_late
        route = app.amqp.router.route({}, entry.task_name)
        assert route["queue"].name == entry.queue
