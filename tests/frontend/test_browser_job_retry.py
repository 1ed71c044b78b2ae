"""A failed job in the admin page's job list has a Retry button that queues it again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from celery import current_app

from annotation.models import Role
from jobs.models import Job, JobStatus
from tests.factories import JobFactory, MembershipFactory, ProjectFactory, UserFactory
from tests.frontend.browser import browser, login, page, wait_ready

__all__ = ["browser", "page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def broker() -> Iterator[None]:
    """The real broker (no worker listens): the retried job's message is dropped after."""
    yield
    current_app.control.purge()


def test_the_retry_button_queues_a_failed_job_again(live_server: Any, page: Any, broker: None):
    project = ProjectFactory.create()
    admin = UserFactory.create(username="adele")
    MembershipFactory.create(project=project, user=admin, role=Role.ADMIN)
    failed = JobFactory.create(
        project=project, kind="preannotate", status=JobStatus.FAILED, error="worker died 3 times"
    )
    succeeded = JobFactory.create(project=project, kind="preannotate", status=JobStatus.SUCCEEDED)

    login(page, live_server.url, admin.username)
    page.goto(f"{live_server.url}/projects/{project.pk}/admin/")
    wait_ready(page)
    page.wait_for_selector(f".job[data-job='{failed.pk}'][data-status='failed']")
    assert page.locator(f".job[data-job='{succeeded.pk}'] .job-retry").count() == 0

    page.click(f".job[data-job='{failed.pk}'] .job-retry")

    page.wait_for_selector(f".job[data-job='{failed.pk}'][data-status='queued']")
    assert "retried by adele" in page.text_content(f".job[data-job='{failed.pk}'] .job-log")
    job = Job.objects.get(pk=failed.pk)
    assert (job.status, job.attempts, job.error) == (JobStatus.QUEUED, 0, "")
