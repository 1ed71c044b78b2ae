"""Content-Security-Policy: every page says where scripts may come from (this origin's
files only), and no template holds a script the browser would run inline."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from annotation.models import Role
from tests.factories import DocumentFactory, MembershipFactory, UserFactory
from tests.frontend.browser import browser, login, strict_page, wait_ready

__all__ = ["browser", "strict_page"]  # fixtures used by name

REPO = Path(__file__).resolve().parent.parent
# An executable script element: any <script> but JSON data (json_script) or an empty one
# loading a file.
_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.IGNORECASE | re.DOTALL)
_HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)


def _policy(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


def _inline_scripts(html: str) -> list[str]:
    found = []
    for attrs, body in _SCRIPT.findall(html):
        if re.search(r"type=[\"']application/json[\"']", attrs):
            continue
        if body.strip():
            found.append(body.strip()[:80])
    return found


def _templates() -> list[Path]:
    return sorted(
        path
        for path in REPO.glob("*/templates/**/*.html")
        if not any(part.startswith(".") for part in path.relative_to(REPO).parts)
    )


def test_no_template_holds_an_executable_inline_script():
    templates = _templates()
    assert len(templates) >= 10
    for path in templates:
        html = path.read_text()
        assert _inline_scripts(html) == [], path
        assert not _HANDLER.search(html), f"{path}: an on...= handler"
        assert "javascript:" not in html.lower(), path


@pytest.fixture
def pages() -> list[str]:
    admin = UserFactory.create(username="csp-admin", is_staff=True, is_superuser=True)
    document = DocumentFactory.create(text="Alice Smith was born in Braga.")
    MembershipFactory.create(project=document.project, user=admin, role=Role.ADMIN)
    project = document.project.pk
    return [
        "/",
        f"/documents/{document.pk}/annotate/",
        f"/documents/{document.pk}/review/",
        f"/projects/{project}/agreement/",
        f"/projects/{project}/admin/",
        "/admin/",
        f"/admin/annotation/document/{document.pk}/change/",
        "/no-such-page/",
    ]


@pytest.mark.django_db
def test_every_page_sends_a_policy_without_inline_script_or_eval(client: Client, pages: list[str]):
    anonymous = client.get("/accounts/login/")
    checked = [anonymous]
    client.force_login(UserFactory.create(username="csp-admin"))
    checked += [client.get(path) for path in pages]
    checked.append(client.get("/api/projects/"))
    for response in checked:
        path = response.wsgi_request.path
        assert response.status_code in (200, 404), path
        policy = _policy(response["Content-Security-Policy"])
        assert policy["default-src"] == ["'self'"], path
        assert policy["script-src"] == ["'self'"], path  # no 'unsafe-inline', no 'unsafe-eval'
        assert policy["object-src"] == ["'none'"], path
        assert policy["base-uri"] == ["'none'"], path
        assert policy["frame-ancestors"] == ["'none'"], path
        if response["Content-Type"].startswith("text/html"):
            assert _inline_scripts(response.content.decode()) == [], path


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_api_doc_pages_run_no_inline_script(client: Client, path: str):
    client.force_login(UserFactory.create())
    response = client.get(path)
    assert response.status_code == 200
    policy = _policy(response["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert _inline_scripts(response.content.decode()) == []


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_pages_work_under_the_policy_in_a_browser(
    live_server: Any, strict_page: Any, pages: list[str]
):
    """The policy blocks nothing the pages need: no violation is reported while the
    pages load and draw (page.js_errors, checked by the fixture, stays empty too)."""
    page = strict_page
    violations = page.csp_violations
    login(page, live_server.url, "csp-admin")
    for path in pages[:5]:
        page.goto(f"{live_server.url}{path}")
        wait_ready(page) if "annotate" in path or "review" in path else page.wait_for_load_state(
            "networkidle"
        )
    for path in ("/api/docs/", "/api/redoc/"):
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
    page.wait_for_selector(".api-content, .menu-content", timeout=20_000)
    # ReDoc's bundle would draw Redocly's logo from its CDN: blocked on purpose.
    assert [v for v in violations if "https://" not in v] == []

    # And it does block: a script injected inline is refused, not run.
    page.goto(f"{live_server.url}/")
    page.evaluate(
        """() => { const s = document.createElement("script");
                   s.textContent = "window.__injected = 1"; document.body.append(s); }"""
    )
    assert page.evaluate("() => window.__injected") is None
    assert any("inline script" in v for v in violations)
