"""Job errors and responses show users no server paths, credentials or tracebacks."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation.models import Role
from jobs.errors import public_error, public_text, public_value
from jobs.models import JobStatus
from jobs.services import job_fail, job_start
from tests.factories import JobFactory, MembershipFactory, UserFactory

TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/srv/app/workers/runner.py", line 91, in run_job\n'
    "    result = body(job, reporter)\n"
    "FileNotFoundError: [Errno 2] No such file or directory: "
    "'/srv/data/media/uploads/4f1c/judgments.json'\n"
)


def test_a_traceback_shrinks_to_its_exception_without_paths():
    assert public_error(TRACE) == (
        "FileNotFoundError: [Errno 2] No such file or directory: 'judgments.json'"
    )


def test_credentials_and_paths_are_cut_but_urls_and_fractions_stay():
    text = (
        "broker redis://:s3cret@10.0.0.5:6379/0 down; model /srv/models/ner-7 (see docs/x.md, 1/2)"
    )
    assert (
        public_text(text)
        == "broker redis://***@10.0.0.5:6379/0 down; model ner-7 (see docs/x.md, 1/2)"
    )
    assert public_value({"path": "/srv/u/a.json", "n": 3, "xs": ["/a/b/c"]}) == {
        "path": "a.json",
        "n": 3,
        "xs": ["c"],
    }


@pytest.mark.django_db
def test_job_fail_keeps_the_traceback_in_the_log_only(caplog):
    job = JobFactory.create()
    job_start(job_id=job.pk)
    with caplog.at_level("ERROR", logger="jobs.services"):
        failed = job_fail(job_id=job.pk, error=TRACE)
    assert failed.status == JobStatus.FAILED
    assert "/srv/" not in failed.error + failed.log_tail
    assert "Traceback" not in failed.error + failed.log_tail
    assert "/srv/app/workers/runner.py" in caplog.text


@pytest.mark.django_db
def test_job_responses_show_no_server_paths():
    admin = UserFactory.create()
    # A row written before errors were cleaned, with an upload path in its parameters.
    job = JobFactory.create(
        params={"path": "/srv/data/media/uploads/4f1c/judgments.json", "format": "tab"},
        status=JobStatus.FAILED,
        error=TRACE,
        log_tail="2026-01-01 importing /srv/data/media/uploads/4f1c/judgments.json\n",
        result={"model_dir": "/srv/data/models/ner-7"},
    )
    MembershipFactory.create(project=job.project, user=admin, role=Role.ADMIN)
    client = APIClient()
    client.force_authenticate(admin)

    for url in (f"/api/jobs/{job.pk}/", f"/api/jobs/?project={job.project_id}"):
        response = client.get(url)
        assert response.status_code == 200
        body = response.content.decode()
        assert "/srv/" not in body and "Traceback" not in body, body
    detail = client.get(f"/api/jobs/{job.pk}/").json()
    assert detail["params"]["path"] == "judgments.json"
    assert detail["error"].startswith("FileNotFoundError:")
