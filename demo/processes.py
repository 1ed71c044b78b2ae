"""The command lines of the demo's child processes (``manage.py demo`` starts them).

The worker runs Celery beat embedded (``-B``): beat sends the periodic jobs janitor
(``CELERY_BEAT_SCHEDULE`` in the settings, every ``JOBS_JANITOR_SECONDS``) that re-queues
jobs whose worker died or whose broker message was lost. Exactly one beat may run per
broker; the demo has one worker, so embedding it there is enough. Production runs beat
as its own process instead (the ``beat`` service of docker/compose.yml).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Beat's record of when each periodic task last ran (a shelve file), under var/.
BEAT_SCHEDULE_NAME = "celerybeat-schedule"


def demo_worker_command(*, hostname: str, var_dir: Path) -> list[str]:
    """A Celery worker on both queues, one child, with beat embedded."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "sanitizer_app",
        "worker",
        "-Q",
        "cpu,gpu",
        "--concurrency",
        "1",
        "--loglevel",
        "INFO",
        "--hostname",
        hostname,
        "--beat",
        "--schedule",
        str(var_dir / BEAT_SCHEDULE_NAME),
    ]
