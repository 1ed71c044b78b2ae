"""The home page in a real Chromium, under the Content-Security-Policy: the invitee
accepts one invitation and declines another, then lists and revokes an API token."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import ApiToken
from accounts.services import token_create
from annotation.models import Membership, Role
from annotation.services import invitation_create
from tests.factories import ProjectFactory, UserFactory
from tests.frontend.browser import browser, login, screenshot, strict_page, wait_ready

__all__ = ["browser", "strict_page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_invitations_and_tokens_on_the_home_page(live_server: Any, strict_page: Any) -> None:
    page = strict_page
    guest = UserFactory.create(username="guest")
    joined = ProjectFactory.create(name="project to join")
    refused = ProjectFactory.create(name="project to refuse")
    for project in (joined, refused):
        invitation_create(project=project, username="guest", role=Role.REVIEWER)
    token, _key = token_create(user=guest, name="laptop")

    login(page, live_server.url, "guest")
    wait_ready(page)
    assert page.locator("#invitations li").count() == 2
    page.locator("#invitations li", has_text="project to join").locator(
        ".invitation-accept"
    ).click()
    page.wait_for_selector("section.project h1:has-text('project to join')")
    wait_ready(page)
    page.locator("#invitations li", has_text="project to refuse").locator(
        ".invitation-decline"
    ).click()
    page.wait_for_selector("#invitations", state="detached")
    wait_ready(page)
    assert Membership.objects.get(user=guest, project=joined).role == Role.REVIEWER
    assert not Membership.objects.filter(user=guest, project=refused).exists()

    page.click("#api-tokens summary")
    row = page.locator(f"#token-rows tr[data-token-id='{token.pk}']")
    assert row.get_attribute("data-state") == "active"
    assert "laptop" in row.inner_text()
    row.locator(".token-revoke").click()
    page.wait_for_selector(f"#token-rows tr[data-token-id='{token.pk}'][data-state='revoked']")
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert ApiToken.objects.filter(user=guest, revoked_at__isnull=True).count() == 0
    screenshot(page, "home-invitations-tokens")
    assert not page.csp_violations, page.csp_violations
