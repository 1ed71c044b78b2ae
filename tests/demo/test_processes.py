"""The demo's worker runs Celery beat embedded, so the jobs janitor runs in the demo."""

from __future__ import annotations

from pathlib import Path

from demo.processes import BEAT_SCHEDULE_NAME, demo_worker_command
from sanitizer_app.celery import app


def test_the_demo_worker_runs_beat_with_its_schedule_under_var(tmp_path: Path):
    command = demo_worker_command(hostname="demo-1@%h", var_dir=tmp_path)

    assert command[command.index("-A") + 1] == "sanitizer_app"
    assert "worker" in command
    assert "--beat" in command
    assert command[command.index("--schedule") + 1] == str(tmp_path / BEAT_SCHEDULE_NAME)
    assert command[command.index("-Q") + 1].split(",") == ["cpu", "gpu"]
    assert command[command.index("--hostname") + 1] == "demo-1@%h"


def test_beat_sends_the_jobs_janitor_to_a_queue_the_demo_worker_reads():
    entry = app.conf.beat_schedule["jobs-janitor"]
    command = demo_worker_command(hostname="h", var_dir=Path("var"))
    assert entry["task"] == "sanitizer.jobs_janitor"
    assert entry["options"]["queue"] in command[command.index("-Q") + 1].split(",")
