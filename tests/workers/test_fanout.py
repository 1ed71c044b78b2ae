"""A job over many documents fans out as a Celery group over two real workers."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from annotation.models import AnnotationSet, Document, Project, SetKind, Span
from annotation.services import project_create
from jobs.models import Job, JobChunk, JobStatus
from jobs.services import job_cancel, job_create
from ml.services.preannotation import preannotate_documents
from tests.celery_worker import CeleryWorker, run_celery_workers, wait_for_job


@pytest.fixture(scope="module")
def two_workers(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[CeleryWorker]]:
    from django.db import connection

    with django_db_blocker.unblock():
        database = dict(connection.settings_dict)
    log_dir = tmp_path_factory.mktemp("celery-two")
    with run_celery_workers(database=database, log_dir=log_dir, count=2) as workers:
        yield workers


def _project_of_texts(name: str, texts: list[str]) -> Project:
    project = project_create(name=name)
    Document.objects.bulk_create(
        Document(project=project, external_id=f"d{i:03d}", text=text, position=i)
        for i, text in enumerate(texts)
    )
    return project


def _texts(sample: Path, count: int) -> list[str]:
    docs = json.loads(sample.read_text(encoding="utf-8"))
    # Different openings keep the documents distinct; the sample's judgments give each
    # chunk seconds of recognizer work.
    return [f"Case {i}. {docs[i % len(docs)]['text']}" for i in range(count)]


def _machine_spans(project: Project) -> dict[str, list[tuple[Any, ...]]]:
    out: dict[str, list[tuple[Any, ...]]] = {}
    sets = AnnotationSet.objects.filter(document__project=project, kind=SetKind.MACHINE)
    for annotation_set in sets.select_related("document"):
        spans = Span.objects.filter(annotation_set=annotation_set).order_by("start", "end")
        out[annotation_set.document.external_id] = list(
            spans.values_list("start", "end", "entity_type", "identifier_type", "text")
        )
    return out


def _wait(job_id: int, workers: list[CeleryWorker]) -> tuple[Job, list[tuple[int, int]]]:
    return wait_for_job(job_id, workers, timeout=240)


@pytest.mark.slow
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_job_fans_out_over_both_workers_with_the_results_of_one_run(
    two_workers: list[CeleryWorker], tab_sample_path: Path
) -> None:
    texts = _texts(tab_sample_path, 12)
    fanned = _project_of_texts("fanned", texts)
    single = _project_of_texts("single", texts)

    job = job_create(kind="preannotate", params={"chunk_size": 2}, project=fanned)
    job, observed = _wait(job.pk, two_workers)

    assert job.status == JobStatus.SUCCEEDED, job.error
    chunks = list(JobChunk.objects.filter(job=job))
    assert len(chunks) == 6
    assert all(chunk.status == JobStatus.SUCCEEDED for chunk in chunks)
    # Both workers took chunks.
    assert len({chunk.worker for chunk in chunks}) == 2, [c.worker for c in chunks]
    assert job.result["documents"] == 12
    assert (job.result["chunks"], job.result["workers"]) == (6, 2)
    # The summed progress never went past its total and ended complete.
    assert all(done <= total for done, total in observed if total)
    assert (job.progress_done, job.progress_total) == (12, 12)
    assert "split into 6 chunks" in job.log_tail

    # One machine set per document, exactly what one run in one process stores.
    preannotate_documents(project=single)
    fanned_spans = _machine_spans(fanned)
    assert len(fanned_spans) == 12
    assert fanned_spans == _machine_spans(single)
    assert job.result["spans"] == sum(len(spans) for spans in fanned_spans.values())


@pytest.mark.slow
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_cancelling_a_fanned_out_job_stops_every_chunk(
    two_workers: list[CeleryWorker], tab_sample_path: Path
) -> None:
    project = _project_of_texts("cancelled", _texts(tab_sample_path, 40))
    job = job_create(kind="preannotate", params={"chunk_size": 1}, project=project)

    # Cancel as soon as the first chunk is done: most chunks are still queued. Generous:
    # the first chunk may load the recognizer in its worker, on a shared machine.
    deadline = time.monotonic() + 300
    while not JobChunk.objects.filter(job=job, status=JobStatus.SUCCEEDED).exists():
        assert time.monotonic() < deadline, two_workers[0].log()[-3000:]
        time.sleep(0.05)
    job_cancel(job=Job.objects.get(pk=job.pk))

    # Every chunk ends: none is left queued or running.
    while JobChunk.objects.filter(job=job, status__in=(JobStatus.QUEUED, JobStatus.RUNNING)):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED
    chunks = list(JobChunk.objects.filter(job=job))
    never_started = [c for c in chunks if c.attempts == 0]
    assert never_started and all(c.status == JobStatus.CANCELLED for c in never_started)
    # Only chunks that had started stored anything, and the workers are free again:
    # a new job on the same workers runs to the end.
    labelled = set(
        AnnotationSet.objects.filter(job=job).values_list("document__external_id", flat=True)
    )
    started = {f"d{c.index:03d}" for c in chunks if c.attempts > 0}
    assert labelled <= started
    assert len(labelled) < 40
    after = job_create(
        kind="preannotate",
        params={
            "chunk_size": 20,
            "document_ids": list(project.documents.values_list("pk", flat=True)[:2]),
        },
        project=project,
    )
    after, _ = _wait(after.pk, two_workers)
    assert after.status == JobStatus.SUCCEEDED, after.error


@pytest.mark.slow
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_chunk_whose_worker_child_is_killed_runs_again_and_the_job_completes(
    tab_sample_path: Path, tmp_path: Path
) -> None:
    import os
    import signal

    from django.db import connection

    project = _project_of_texts("killed", _texts(tab_sample_path, 8))
    database = dict(connection.settings_dict)
    with run_celery_workers(
        database=database, log_dir=tmp_path, count=2, pool="prefork"
    ) as workers:
        job = job_create(kind="preannotate", params={"chunk_size": 2}, project=project)
        deadline = time.monotonic() + 120
        while True:
            running = JobChunk.objects.filter(job=job, status=JobStatus.RUNNING).first()
            if running is not None:
                break
            assert time.monotonic() < deadline, workers[0].log()[-3000:]
            time.sleep(0.02)
        # The pool child of the worker that claimed the chunk dies mid-run.
        worker = next(w for w in workers if running.worker.startswith(f"{w.name}@"))
        pid = worker.process.pid
        child = int(Path(f"/proc/{pid}/task/{pid}/children").read_text().split()[0])
        os.kill(child, signal.SIGKILL)
        job, _ = _wait(job.pk, workers)

    assert job.status == JobStatus.SUCCEEDED, job.error
    running.refresh_from_db()
    assert running.status == JobStatus.SUCCEEDED
    assert running.attempts >= 2
    assert job.result["documents"] + job.result["skipped"] == 8
    labelled = AnnotationSet.objects.filter(job=job).values_list("document_id", flat=True)
    assert sorted(labelled) == sorted(project.documents.values_list("pk", flat=True))
