"""A real Celery worker process for end-to-end job tests.

Usage in a test module::

    from tests.celery_worker import celery_worker  # noqa: F401  (the fixture)

    @pytest.mark.celery_worker
    @pytest.mark.django_db(transaction=True)
    def test_something(celery_worker): ...

The worker runs ``celery -A sanitizer_app worker -Q cpu,gpu --pool=solo -c 1`` against
the pytest test database (so it sees the rows a ``transactional_db`` test commits)
and against a Redis database claimed for this run only: concurrent test runs on the
same Redis server would otherwise take each other's tasks. The test process's own
Celery app is pointed at that Redis database too, so ``job_create`` reaches this
worker. The worker is killed at teardown.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BROKER = "redis://127.0.0.1:6379/0"
# Booting imports torch and the apps; on a loaded two-core CI machine, with a second
# test process and a second worker starting at once, that can take minutes. The
# wait ends as soon as the worker says it is ready.
READY_TIMEOUT = 300.0
_LOCK_KEY = "sanitizer-tests:celery-worker-owner"


@dataclass
class CeleryWorker:
    process: subprocess.Popen[bytes]
    broker_url: str
    log_path: Path
    # The node name before "@" (what Celery's task.request.hostname starts with).
    name: str = ""

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def assert_alive(self) -> None:
        if self.process.poll() is not None:
            raise AssertionError(
                f"the Celery worker exited with {self.process.returncode}:\n{self.log()[-4000:]}"
            )

    def wait_for_log(self, pattern: str, timeout: float = 300.0) -> re.Match[str]:
        """Wait until the worker's log matches ``pattern`` (a regular expression)."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while True:
            match = regex.search(self.log())
            if match:
                return match
            self.assert_alive()
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"no {pattern!r} in the worker log after {timeout}s:\n{self.log()[-4000:]}"
                )
            time.sleep(0.1)

    def wait_for_job(
        self, job_id: int, timeout: float = 120.0, poll: float = 0.1
    ) -> tuple[Any, list[tuple[int, int]]]:
        """Poll the Job row until it is finished (see :func:`wait_for_job`)."""
        return wait_for_job(job_id, [self], timeout=timeout, poll=poll)


def wait_for_job(
    job_id: int, workers: list[CeleryWorker], timeout: float = 120.0, poll: float = 0.1
) -> tuple[Any, list[tuple[int, int]]]:
    """Poll the Job row until it is finished, checking that every worker is alive.

    Returns the finished job and the ``(done, total)`` pairs read while it was
    queued or running.
    """
    from jobs.models import Job

    deadline = time.monotonic() + timeout
    observed: list[tuple[int, int]] = []
    while True:
        job = Job.objects.get(pk=job_id)
        if job.is_finished:
            return job, observed
        observed.append((job.progress_done, job.progress_total))
        for worker in workers:
            worker.assert_alive()
        if time.monotonic() > deadline:
            logs = "\n".join(worker.log()[-4000:] for worker in workers)
            raise AssertionError(
                f"job {job_id} still {job.status} after {timeout}s "
                f"(progress {job.progress_done}/{job.progress_total}):\n{logs}"
            )
        time.sleep(poll)


def _redis_base(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


def claim_redis_database(broker_url: str) -> tuple[str, Any]:
    """Claim a Redis database 1..15 for this process and empty it.

    The first choice comes from the pid; a database another live run has claimed (a
    lock key with a time-out) is skipped. Returns the broker URL and the client.
    """
    import redis

    base = _redis_base(broker_url)
    start = os.getpid() % 15
    for offset in range(15):
        number = 1 + (start + offset) % 15
        client = redis.Redis.from_url(f"{base}/{number}")
        if client.set(_LOCK_KEY, str(os.getpid()), nx=True, ex=3600):
            for key in client.scan_iter(count=1000):
                if key != _LOCK_KEY.encode():
                    client.delete(key)
            return f"{base}/{number}", client
        client.close()
    raise RuntimeError(f"every Redis database 1..15 on {base} is claimed by another test run")


def database_url(settings_dict: dict[str, Any]) -> str:
    """A DATABASE_URL for the database Django is connected to (the test database)."""
    user = quote(settings_dict.get("USER") or "", safe="")
    password = settings_dict.get("PASSWORD") or ""
    auth = f"{user}:{quote(password, safe='')}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{auth}{host}:{port}/{quote(settings_dict['NAME'], safe='')}"


def _point_app_at(broker_url: str | None) -> None:
    from sanitizer_app.celery import app

    # conf.broker_url prefers the CELERY_BROKER_URL environment variable, so set that;
    # pooled connections to the previous URL are dropped.
    if broker_url is None:
        os.environ.pop("CELERY_BROKER_URL", None)
    else:
        os.environ["CELERY_BROKER_URL"] = broker_url
    if app._pool is not None:
        app._pool.force_close_all()
    app._pool = None
    app.amqp._producer_pool = None
    # kombu keeps producer pools in a process-wide registry keyed by broker URL; a
    # later worker on the same Redis database would otherwise get the closed one.
    from kombu import pools

    pools.reset()


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    # The worker runs in its own session: its process group is ours to end.
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


def _spawn(
    *, database: dict[str, Any], broker_url: str, log_path: Path, name: str, queues: str, pool: str
) -> CeleryWorker:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},
        "DATABASE_URL": database_url(database),
        "CELERY_BROKER_URL": broker_url,
        "SECRET_KEY": "celery-worker-test-only",
        "DJANGO_SETTINGS_MODULE": "sanitizer_app.settings.local",
        # Close connections after each task so the test can truncate tables between tests.
        "DB_CONN_MAX_AGE": "0",
        "PYTHONPATH": str(REPO_ROOT),
        "LOG_LEVEL": "INFO",
    }
    command = [
        sys.executable, "-m", "celery", "-A", "sanitizer_app", "worker",
        "-Q", queues, f"--pool={pool}", "-c", "1", "--loglevel=INFO",
        "-n", f"{name}@%h",
        "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]  # fmt: skip
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return CeleryWorker(process=process, broker_url=broker_url, log_path=log_path, name=name)


@contextmanager
def private_broker() -> Iterator[tuple[str, Any]]:
    """Point this process's Celery app at a Redis database claimed for it alone (emptied
    when claimed and when released), and back after; yields its URL and Redis client.

    For workers of a test and for tests that look into the broker: the Redis database
    of CELERY_BROKER_URL is shared with the other test processes (pytest -n), which
    purge it and send to it.
    """
    original = os.environ.get("CELERY_BROKER_URL")
    broker_url, client = claim_redis_database(original or DEFAULT_BROKER)
    _point_app_at(broker_url)
    try:
        yield broker_url, client
    finally:
        _point_app_at(original)
        client.flushdb()
        client.close()


@contextmanager
def run_celery_workers(
    *,
    database: dict[str, Any],
    log_dir: Path,
    count: int = 1,
    queues: str = "cpu,gpu",
    pool: str = "solo",
) -> Iterator[list[CeleryWorker]]:
    """Start ``count`` workers sharing one claimed Redis database, wait until every one
    is ready, stop them after. Each runs one task at a time (``-c 1``).

    ``pool="prefork"`` runs tasks in a child process (one), which a test may kill.
    """
    with private_broker() as (broker_url, _):
        workers: list[CeleryWorker] = []
        try:
            for number in range(count):
                suffix = f"-{number + 1}" if count > 1 else ""
                workers.append(
                    _spawn(
                        database=database,
                        broker_url=broker_url,
                        log_path=log_dir / f"celery-worker{suffix}.log",
                        name=f"pytest-{os.getpid()}{suffix}",
                        queues=queues,
                        pool=pool,
                    )
                )
            for worker in workers:
                worker.wait_for_log(r"celery@\S+ ready\.|\bready\.", timeout=READY_TIMEOUT)
            yield workers
        finally:
            for worker in workers:
                _stop(worker.process)


@contextmanager
def run_celery_worker(
    *, database: dict[str, Any], log_dir: Path, queues: str = "cpu,gpu", pool: str = "solo"
) -> Iterator[CeleryWorker]:
    """One worker (see :func:`run_celery_workers`)."""
    with run_celery_workers(database=database, log_dir=log_dir, queues=queues, pool=pool) as (
        worker,
    ):
        yield worker


@pytest.fixture(scope="module")
def celery_worker(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CeleryWorker]:
    """A real worker for the tests of one module (tests need ``transactional_db``)."""
    from django.db import connection

    with django_db_blocker.unblock():
        database = dict(connection.settings_dict)
    with run_celery_worker(database=database, log_dir=tmp_path_factory.mktemp("celery")) as worker:
        yield worker
