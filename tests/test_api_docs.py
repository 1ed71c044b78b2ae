"""Swagger UI (/api/docs/) and ReDoc (/api/redoc/) come from the app itself
(drf-spectacular-sidecar): they render in a real Chromium with every request to
another host aborted, and none is even attempted."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client

from tests.factories import UserFactory
from tests.frontend.browser import browser, login, screenshot, strict_page

__all__ = ["browser", "strict_page"]  # fixtures used by name

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
DOC_PAGES = ("/api/docs/", "/api/redoc/")


@pytest.mark.django_db
@pytest.mark.parametrize("path", DOC_PAGES)
def test_doc_pages_load_their_scripts_from_the_app(client: Client, path: str) -> None:
    assert client.get(path).status_code in (401, 403)  # anonymous users see nothing
    client.force_login(UserFactory.create())

    response = client.get(path)

    assert response.status_code == 200
    html = response.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources, html
    # Each page's start script is a file of the app too (no inline script: tests/test_csp.py).
    own = ("/api/schema/", "/api/docs/?script=", "/static/frontend/api_redoc.js")
    assert all(s.startswith("/static/drf_spectacular_sidecar/") or s in own for s in sources)
    assert "http://" not in html and "https://" not in html  # no CDN, no web fonts
    # What the bundles would fetch on their own (ReDoc's logo) the browser may not either.
    assert response["Content-Security-Policy"].startswith("default-src 'self';")
    assert "http" not in response["Content-Security-Policy"]
    for source in sources:
        if source.startswith("/static/") or "?script" in source:
            assert client.get(source).status_code == 200, source


@pytest.mark.django_db
def test_swagger_ui_has_no_online_validator(client: Client) -> None:
    client.force_login(UserFactory.create())
    script = client.get("/api/docs/?script=").content.decode()
    assert '"validatorUrl": null' in script


def _open_offline(page: Any, base_url: str, path: str) -> list[str]:
    """Log in and open ``path`` with every request to another host aborted; returns
    the URLs of such requests (their attempts)."""
    attempted: list[str] = []

    def handle(route: Any) -> None:
        url = route.request.url
        if urlsplit(url).hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            attempted.append(url)
            route.abort()

    page.route("**/*", handle)
    UserFactory.create(username="docs-reader")
    login(page, base_url, "docs-reader")
    page.goto(f"{base_url}{path}")
    return attempted


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_swagger_ui_renders_offline(live_server: Any, strict_page: Any) -> None:
    # The policy is part of the offline guarantee: the page obeys it here.
    page = strict_page
    attempted = _open_offline(page, live_server.url, "/api/docs/")

    # Swagger UI has drawn the schema's operations.
    page.wait_for_selector(".opblock", timeout=20_000)
    assert page.locator(".opblock").count() > 20
    paths = page.locator(".opblock-summary-path").all_text_contents()
    assert any("/api/documents/{document_id}/release/" in p.replace("\u200b", "") for p in paths)
    screenshot(page, "api-docs-offline")
    assert attempted == []


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_redoc_renders_offline(live_server: Any, strict_page: Any) -> None:
    page = strict_page
    attempted = _open_offline(page, live_server.url, "/api/redoc/")

    page.wait_for_selector("h1:has-text('Sanitizer workbench API')", timeout=20_000)
    page.wait_for_selector('h2:has-text("The document\'s text as released")', timeout=20_000)
    assert attempted == []


def _directives(header: str) -> dict[str, list[str]]:
    return {name: sources for name, *sources in (part.split() for part in header.split(";"))}


@pytest.mark.django_db
def test_doc_pages_policy_is_the_apps_with_what_the_bundles_need(
    client: Client, settings: Any
) -> None:
    # A change to the app's policy reaches the doc pages too.
    app_policy = {
        **settings.CONTENT_SECURITY_POLICY["DIRECTIVES"],
        "img-src": ["'self'"],
        "media-src": ["'none'"],
    }
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": app_policy}
    client.force_login(UserFactory.create())
    expected = {name: list(sources) for name, sources in app_policy.items()}
    del expected["style-src-attr"]
    expected["style-src"].append("'unsafe-inline'")
    expected["worker-src"] = ["'self'", "blob:"]

    assert _directives(client.get("/")["Content-Security-Policy"]) == app_policy
    for path in DOC_PAGES:
        header = client.get(path)["Content-Security-Policy"]
        assert header.startswith("default-src 'self';")
        assert _directives(header) == expected
