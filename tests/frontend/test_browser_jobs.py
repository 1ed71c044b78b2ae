"""The admin starts a pre-annotation job from the page and watches it finish: a real
Celery worker (tests.celery_worker) runs it against the test database."""

from __future__ import annotations

import pytest

from annotation.models import Role, SetKind
from jobs.models import Job, JobStatus
from tests.factories import SAMPLE_TEXT, DocumentFactory, MembershipFactory, UserFactory
from tests.frontend.browser import browser, login, page, screenshot, wait_ready

__all__ = ["browser", "page"]

pytest_plugins = ["tests.celery_worker"]
pytestmark = [
    pytest.mark.browser,
    pytest.mark.celery_worker,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]


def test_admin_starts_preannotation_and_watches_it_finish(live_server, page, celery_worker):
    document = DocumentFactory.create(text=SAMPLE_TEXT, external_id="case-job")
    admin = UserFactory.create(username="adele")
    MembershipFactory.create(project=document.project, user=admin, role=Role.ADMIN)

    login(page, live_server.url, admin.username)
    page.goto(f"{live_server.url}/projects/{document.project_id}/admin/")
    wait_ready(page)
    page.click("#start-preannotate")
    page.wait_for_selector(".job[data-status]")
    screenshot(page, "admin-job-running")
    # The page polls the job API; the bar reaches 100% when the worker is done.
    page.wait_for_selector(".job[data-status='succeeded']", timeout=180_000)
    assert page.text_content(".job .job-pct") == "100%"
    assert "done" in page.text_content(".job .job-log")
    screenshot(page, "admin-job-finished")

    job = Job.objects.get(project=document.project)
    assert job.kind == "preannotate"
    assert job.status == JobStatus.SUCCEEDED
    assert job.progress_total and job.progress_done == job.progress_total
    machine = document.annotation_sets.get(kind=SetKind.MACHINE)
    assert machine.job_id == job.pk
    assert machine.spans.exists()
