"""Shared pieces of the browser tests: one Chromium per test module, log-in through
the real form, screenshots under ``test-artifacts/screenshots/``.

Chromium is Debian's (``apt-get install chromium``), driven by Playwright's Python
package without downloading Playwright's own browsers.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Playwright's sync API runs an event loop in this thread; Django's ORM refuses to run
# next to one unless told that this is fine (the test owns both).
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parent.parent.parent / "test-artifacts" / "screenshots"
PASSWORD = "pass-word-123"  # tests.factories.UserFactory's


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    # Playwright polls wait_for_function predicates with eval inside the page, which the
    # app's Content-Security-Policy forbids; tests/test_csp.py opens the pages with the
    # policy enforced (strict_page).
    context = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def strict_page(browser: Any) -> Iterator[Any]:
    """A page that obeys the app's Content-Security-Policy, recording its violations
    (``page.csp_violations``) and JavaScript errors (which fail the test)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    violations: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.js_errors = errors
    page.csp_violations = violations
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def login(page: Any, base_url: str, username: str, password: str = PASSWORD) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base_url}/")


def screenshot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def wait_ready(page: Any) -> None:
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)


def select_text(page: Any, start: int, end: int) -> None:
    """Drag the mouse over characters ``start``..``end`` of the editor's text."""
    box = page.evaluate(
        """([start, end]) => {
            const view = window.__editor.view;
            const rect = (offset, side) => {
                const [node, at] = view.positionOf(offset);
                const range = document.createRange();
                range.setStart(node, side ? at - 1 : at);
                range.setEnd(node, side ? at : at + 1);
                const r = range.getBoundingClientRect();
                const y = r.top + r.height / 2;
                return side ? [r.right - 1, y] : [r.left + 1, y];
            };
            view.positionOf(start)[0].parentElement.scrollIntoView({block: "center"});
            return [rect(start, false), rect(end, true)];
        }""",
        [start, end],
    )
    (x1, y1), (x2, y2) = box
    page.mouse.move(x1, y1)
    page.mouse.down()
    page.mouse.move((x1 + x2) / 2, (y1 + y2) / 2, steps=4)
    page.mouse.move(x2, y2, steps=4)
    page.mouse.up()
