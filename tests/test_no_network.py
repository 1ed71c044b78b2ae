"""This is a privacy tool: loading and running its models must not touch the network.

Each check runs in a fresh process with ``tests.netguard`` installed (any
non-loopback connect or name lookup raises and is recorded) and without the
``HF_HUB_OFFLINE`` variables, so the code itself must keep to local files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SCRIPT = textwrap.dedent(
    """
    import tests.netguard as guard

    from sanitizer.recognizer.pipeline import build_recognizer
    spans = build_recognizer(None).predict(
        "Mr John Smith, a British engineer, lodged application no. 12345/06 in London."
    )
    assert any(s.label == "CODE" for s in spans), spans

    from transformers import AutoModel, AutoTokenizer
    from sanitizer.training.config import default_base_model
    path = default_base_model()
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModel.from_pretrained(path, local_files_only=True)
    out = model(**tokenizer("hello world", return_tensors="pt"))
    assert out.last_hidden_state.shape[-1] > 0

    print("ATTEMPTS", guard.ATTEMPTS)
    """
)


def test_models_load_and_run_without_network():
    assert_runs_offline(SCRIPT)


RISK_JOB_SCRIPT = textwrap.dedent(
    """
    import os, sys, tempfile
    import tests.netguard as guard

    var = tempfile.mkdtemp(prefix="risk-no-network-")
    os.environ.update(
        SANITIZER_VAR_DIR=var,
        DATABASE_URL=f"sqlite:///{var}/db.sqlite3",
        SANITIZER_DEMO="1",
        DJANGO_SETTINGS_MODULE="sanitizer_app.settings.local",
        # The assessment queues its solve: Kombu's in-process transport takes the message.
        CELERY_BROKER_URL="memory://",
    )
    import django
    django.setup()
    from django.core.management import call_command
    call_command("migrate", verbosity=0)

    from annotation.models import AnnotationSet, SetSource
    from annotation.services import project_create
    from jobs.models import Job, JobStatus
    from jobs.services import job_create
    from tests.factories import DocumentFactory
    from workers.tasks import TASKS

    project = project_create(name="offline risk")
    for i, text in enumerate([
        "Mr Cengiz Polat, a teacher born in 1932, lives in Diyarbakır.",
        "Mr Cengiz Polat was represented by Mr Ali Yılmaz, a lawyer in Diyarbakır.",
    ]):
        DocumentFactory.create(project=project, text=text, external_id=f"d{i}", position=i,
                               target_person="Cengiz Polat")
    # The risk job itself, with every zero-shot measure: its Celery tasks run here, in
    # this process, through the runner and the job bodies the worker runs.
    assess = job_create(kind="risk_assess", params={"measures": ["lm", "linkage"]},
                        project=project)
    TASKS["risk_assess"].apply(args=[assess.pk])
    assess.refresh_from_db()
    assert assess.status == JobStatus.SUCCEEDED, assess.error
    solve = Job.objects.get(pk=assess.result["solve_job_id"], kind="risk_solve")
    TASKS["risk_solve"].apply(args=[solve.pk])
    solve.refresh_from_db()
    assert solve.status == JobStatus.SUCCEEDED, solve.error
    sets = AnnotationSet.objects.filter(source=SetSource.MASKING)
    assert sets.count() == 2, sets
    assert all(span.attrs["reasons"] for s in sets for span in s.spans.all())
    print("ATTEMPTS", guard.ATTEMPTS)
    import shutil
    shutil.rmtree(var)
    """
)


def assert_runs_offline(script: str) -> None:
    """Run ``script`` in a fresh process without the offline variables: it must succeed
    and its network guard must have recorded no attempt."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"}
    }
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ATTEMPTS []" in result.stdout, result.stdout + result.stderr[-2000:]


def test_risk_job_runs_without_network():
    assert_runs_offline(RISK_JOB_SCRIPT)


def test_guard_blocks_outside_addresses():
    code = textwrap.dedent(
        """
        import socket, tests.netguard as guard
        try:
            socket.create_connection(("192.0.2.1", 80), timeout=1)
        except OSError as exc:
            print(type(exc).__name__)
        print(len(guard.ATTEMPTS))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.stdout.split() == ["NetworkBlocked", "1"], result.stderr
