"""Fan-out benchmark: pre-annotation of 2,000 documents by one Celery worker and by two.

The same 2,000 documents (synthetic long biographies, about 155 words each) are
imported into two projects. A ``preannotate`` job runs on the first with one worker
listening on the gpu queue, then on the second with two; the job splits into chunks
(``JOBS_CHUNK_DOCUMENTS``, or ``--chunk-size``) that run as a Celery group on every
worker. Each run is timed from ``job_create`` to the job's success, on warm workers
(each worker has loaded the recognizer on a warm-up job first). Prints both times,
the speedup, how many chunks each worker ran, and whether the two runs stored the
same spans for every document.

Needs PostgreSQL and Redis (the defaults are this machine's: a database
``sanitizer_bench_fanout``, created and migrated if missing, and Redis database 9,
emptied first).

Usage::

    .venv/bin/python benchmarks/fanout_preannotate.py [--documents 2000] [--chunk-size 100]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/sanitizer_bench_fanout"
DEFAULT_BROKER = "redis://127.0.0.1:6379/9"


def ensure_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[-1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


@contextmanager
def workers(count: int, env: dict[str, str], log_dir: Path) -> Any:
    """``count`` workers (one process each, one task at a time) on the gpu queue."""
    processes = []
    try:
        for number in range(count):
            log = (log_dir / f"worker-{count}-{number}.log").open("wb")
            command = [
                sys.executable, "-m", "celery", "-A", "sanitizer_app", "worker",
                "-Q", "gpu", "--pool=solo", "-c", "1", "--loglevel=WARNING",
                "-n", f"bench{number}@%h",
                "--without-gossip", "--without-mingle", "--without-heartbeat",
            ]  # fmt: skip
            processes.append(
                subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=log, stderr=log)
            )
        yield processes
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)


def run_job(project: Any, params: dict[str, Any], processes: list[Any]) -> tuple[Any, float]:
    from jobs.models import Job
    from jobs.services import job_create

    started = time.perf_counter()
    job = job_create(kind="preannotate", params=params, project=project)
    while True:
        job = Job.objects.get(pk=job.pk)
        if job.is_finished:
            return job, time.perf_counter() - started
        if any(process.poll() is not None for process in processes):
            raise SystemExit("a worker exited; see its log")
        time.sleep(0.05)


def spans_by_document(project: Any) -> dict[str, list[tuple[Any, ...]]]:
    from annotation.models import Span

    out: dict[str, list[tuple[Any, ...]]] = {}
    rows = (
        Span.objects.filter(annotation_set__document__project=project)
        .order_by("annotation_set__document__external_id", "start", "end")
        .values_list(
            "annotation_set__document__external_id",
            "start",
            "end",
            "entity_type",
            "identifier_type",
            "text",
        )
    )
    for external_id, *span in rows:
        out.setdefault(external_id, []).append(tuple(span))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--chunk-size", type=int, default=100)
    args = parser.parse_args()

    database = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE)
    broker = os.environ.get("BENCH_CELERY_BROKER_URL", DEFAULT_BROKER)
    ensure_database(database)
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "CELERY_BROKER_URL": broker,
        "DJANGO_SETTINGS_MODULE": "sanitizer_app.settings.local",
        "SANITIZER_DEMO": "1",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "PYTHONPATH": str(REPO_ROOT),
    }
    os.environ.update(env)
    sys.path.insert(0, str(REPO_ROOT))
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=REPO_ROOT, env=env, check=True
    )
    import redis

    redis.Redis.from_url(broker).flushdb()

    import django

    django.setup()
    from annotation.services import document_import, project_create
    from jobs.models import JobChunk
    from sanitizer.kanon.synthetic import generate_dataset

    stamp = time.strftime("%Y%m%d-%H%M%S")
    with tempfile.TemporaryDirectory() as tmp:
        data = generate_dataset(
            tmp, n_people=args.documents, n_docs=args.documents, seed=7, style="long"
        )
        projects = []
        for label in ("warm-up", "1 worker", "2 workers"):
            project = project_create(name=f"fan-out {stamp} {label}")
            document_import(project=project, path=data.docs_path, fmt="tab")
            projects.append(project)
        warm, single, double = projects
        log_dir = Path(tmp)
        timings: dict[int, float] = {}
        per_worker: dict[int, Counter[str]] = {}
        for count, project in ((1, single), (2, double)):
            with workers(count, env, log_dir) as processes:
                # Each worker loads the recognizer on a chunk of the warm-up job
                # (one-document chunks: a worker busy loading leaves the next to the other).
                warm_ids = list(warm.documents.values_list("pk", flat=True)[: 2 * count])
                run_job(
                    warm,
                    {"document_ids": warm_ids, "chunk_size": 1, "skip_existing": False},
                    processes,
                )
                job, seconds = run_job(project, {"chunk_size": args.chunk_size}, processes)
            if job.status != "succeeded":
                raise SystemExit(f"the {count}-worker job {job.status}: {job.error}")
            timings[count] = seconds
            per_worker[count] = Counter(
                JobChunk.objects.filter(job=job).values_list("worker", flat=True)
            )
            print(
                f"workers={count} documents={job.result['documents']} "
                f"chunks={job.result.get('chunks', 1)} seconds={seconds:.1f} "
                f"docs_per_s={job.result['documents'] / seconds:.1f} "
                f"chunks_per_worker={sorted(per_worker[count].values())}",
                flush=True,
            )
        identical = spans_by_document(single) == spans_by_document(double)
        print(f"speedup={timings[1] / timings[2]:.2f} identical_results={identical}")


if __name__ == "__main__":
    main()
