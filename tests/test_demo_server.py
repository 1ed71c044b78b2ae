"""The README's demo: the real server (gunicorn + a Celery worker on the file-system
broker, SQLite) comes up with demo data and shows the demo annotator their documents."""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
DEMO_DOC_IDS = {
    d["doc_id"] for d in json.loads((REPO / "fixtures/demo/tab_sample.json").read_text())
}
# The demo assigns the first ten biographies alternately to alice and bob.
BIOGRAPHY_IDS = [d["doc_id"] for d in json.loads((REPO / "fixtures/distant/docs.json").read_text())]
ALICE_BIOGRAPHIES = set(BIOGRAPHY_IDS[0:10:2])
# The long biographies with a target (the live rank) are also dealt out alternately.
REID_IDS = [d["doc_id"] for d in json.loads((REPO / "fixtures/distant/reid_docs.json").read_text())]
ALICE_REID = REID_IDS[0::2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory: pytest.TempPathFactory):
    var_dir = tmp_path_factory.mktemp("demo-var")
    port = _free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(SANITIZER_VAR_DIR=str(var_dir), SANITIZER_DEMO="1", HF_HUB_OFFLINE="1")
    log = (var_dir / "demo.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "demo", "--port", str(port), "--web-workers", "1"],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    # Migrating, loading the demo data and starting gunicorn share a loaded two-core
    # machine with another test process: generous, and the wait ends once it serves.
    deadline = time.monotonic() + 300
    up = False
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            with urllib.request.urlopen(base + "/accounts/login/", timeout=2) as response:
                if response.status == 200:
                    up = True
                    break
        except OSError:
            time.sleep(0.5)
    output = (var_dir / "demo.log").read_text(errors="replace")
    if proc.poll() is not None:
        pytest.fail(f"demo server exited early:\n{output}")
    if not up:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=20)
        pytest.fail(f"demo server did not serve within 300 s:\n{output[-4000:]}")
    yield base, var_dir
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def _browser() -> urllib.request.OpenerDirector:
    jar = http.cookiejar.CookieJar()
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))


def _login(base: str, username: str, password: str) -> urllib.request.OpenerDirector:
    opener = _browser()
    page = opener.open(base + "/accounts/login/").read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token, page
    body = urllib.parse.urlencode(
        {
            "csrfmiddlewaretoken": token.group(1),
            "username": username,
            "password": password,
            "next": "/",
        }
    ).encode()
    request = urllib.request.Request(
        base + "/accounts/login/", data=body, headers={"Referer": base + "/accounts/login/"}
    )
    opener.open(request).read()
    return opener


def test_demo_prints_url_and_logins(demo_server):
    base, var_dir = demo_server
    output = (var_dir / "demo.log").read_text()
    assert f"running at http://localhost:{base.rsplit(':', 1)[1]}/" in output
    for username in ("admin", "reviewer", "alice", "bob"):
        assert re.search(rf"\b{username} / demo-{username}-pass", output), output
    # The worker boots (torch, the apps) alongside the web server and may be ready long
    # after it serves, on a machine shared with another test process: generous.
    deadline = time.monotonic() + 300
    while " ready." not in output and time.monotonic() < deadline:
        time.sleep(0.5)
        output = (var_dir / "demo.log").read_text()
    assert " ready." in output  # the Celery worker came up on the file-system broker


def test_demo_annotator_sees_their_documents(demo_server):
    base, _ = demo_server
    page = _login(base, "alice", "demo-alice-pass").open(base + "/").read().decode()
    shown = set(re.findall(r'<td class="doc-id">([^<]+)</td>', page))
    assert shown == DEMO_DOC_IDS | ALICE_BIOGRAPHIES | set(ALICE_REID)
    assert "My queue" in page


def test_demo_anonymous_is_sent_to_login(demo_server):
    base, _ = demo_server
    with urllib.request.urlopen(base + "/") as response:
        assert response.url.startswith(base + "/accounts/login/")


@contextlib.contextmanager
def _demo_page(base: str, username: str, password: str) -> Iterator[Any]:
    """A Chromium page logged in to the demo as ``username``."""
    from tests.frontend.browser import CHROMIUM, CHROMIUM_ARGS, login

    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        login(page, base, username, password)
        yield page
        browser.close()


@pytest.mark.browser
def test_demo_shows_distant_labels_with_their_explanations(demo_server):
    """A demo biography opens with its k-anonymity masks and the reason for each."""
    from tests.frontend.browser import screenshot, wait_ready

    base, _ = demo_server
    with _demo_page(base, "alice", "demo-alice-pass") as page:
        biography = sorted(ALICE_BIOGRAPHIES)[0]
        page.click(f"tr:has(td.doc-id:text-is('{biography}')) a.open-annotate")
        wait_ready(page)
        segments = page.locator("#doc .seg")
        assert segments.count() > 0
        segments.first.hover()
        tooltip = page.locator("#tooltip")
        tooltip.wait_for(state="visible")
        text = tooltip.inner_text()
        assert "Why:" in text and "→" in text and "person" in text, text
        screenshot(page, "demo-distant-explanation")


@pytest.mark.browser
def test_demo_editor_shows_the_live_rank_of_a_long_biography(demo_server):
    """A long biography's person is in the demo's knowledge base: unmasked, rank 1 of 2,000."""
    from tests.frontend.browser import screenshot, wait_ready

    base, _ = demo_server
    with _demo_page(base, "alice", "demo-alice-pass") as page:
        page.click(f"tr:has(td.doc-id:text-is('{ALICE_REID[0]}')) a.open-annotate")
        wait_ready(page)
        page.locator("#reid-rank[data-state='ready']").wait_for(timeout=60_000)
        assert page.locator("#reid-rank").get_attribute("data-rank") == "1"
        assert page.locator(".reid-model[data-model='bm25']").count() == 1
        screenshot(page, "demo-reid-rank")


def _risk_jobs_done(base: str, timeout: float = 480) -> dict[str, dict[str, Any]]:
    """The demo's risk jobs, by kind, once its worker has finished the solve.

    Generous: the one-child worker may still be booting, and the solve waits behind the
    language-model assessment and the re-identification curve queued at start-up.

    Polls the job API (no fixed wait): fails at once if a job failed, and with the
    jobs' state if the solve has not succeeded within ``timeout`` seconds.
    """
    admin = _login(base, "admin", "demo-admin-pass")
    deadline = time.monotonic() + timeout
    jobs: dict[str, dict[str, Any]] = {}
    while time.monotonic() < deadline:
        listed = json.loads(admin.open(base + "/api/jobs/?page_size=100").read())
        jobs = {
            job["kind"]: job
            for job in listed["results"]
            if job["kind"] in ("risk_assess", "risk_solve")
        }
        failed = [job for job in jobs.values() if job["status"] in ("failed", "cancelled")]
        assert not failed, failed
        if jobs.get("risk_solve", {}).get("status") == "succeeded":
            return jobs
        time.sleep(1)
    pytest.fail(f"the demo's risk job did not finish in {timeout:.0f} s: {jobs}")


def test_demo_worker_runs_the_risk_job(demo_server):
    """Start-up queues risk_assess on the judgments; the worker runs it, then its solve."""
    base, _ = demo_server
    jobs = _risk_jobs_done(base)
    assess, solve = jobs["risk_assess"], jobs["risk_solve"]
    assert assess["status"] == "succeeded", assess
    assert assess["result"]["solve_job_id"] == solve["id"]
    assert assess["params"] == solve["params"] == {"measures": ["lm", "linkage"]}
    assert assess["queue"] == "gpu" and solve["queue"] == "cpu"
    assert solve["progress_done"] == solve["progress_total"] == len(DEMO_DOC_IDS)


@pytest.mark.browser
def test_demo_editor_shows_the_risk_reasons(demo_server):
    """After the worker's risk job, a judgment's masking suggestion says why it is masked."""
    from tests.frontend.browser import screenshot, wait_ready

    base, _ = demo_server
    _risk_jobs_done(base)
    with _demo_page(base, "alice", "demo-alice-pass") as page:
        page.click(f"tr:has(td.doc-id:text-is('{sorted(DEMO_DOC_IDS)[0]}')) a.open-annotate")
        wait_ready(page)
        key = page.evaluate(
            """window.__editor.store.suggestions()
                .find((s) => (s.attrs?.reasons || []).some((r) => r.measure === "lm"))?.key"""
        )
        assert key, "no masking suggestion with a language-model reason"
        page.evaluate(f"window.__editor.select('{key}')")
        panel = page.locator("#span-panel .reasons")
        panel.wait_for(state="visible")
        assert "Why masked:" in panel.inner_text()
        reasons = panel.locator("li").all_inner_texts()
        assert any(line.startswith("LM: log p(") for line in reasons), reasons
        screenshot(page, "demo-risk-reasons")


def test_demo_worker_runs_beat_which_sends_the_jobs_janitor(demo_server):
    """The worker has beat embedded: it sends the janitor every JOBS_JANITOR_SECONDS (60 s
    by default; the first time one interval after start-up)."""
    _, var_dir = demo_server
    sent = "Sending due task jobs-janitor (sanitizer.jobs_janitor)"
    # The worker's boot (which may still be going on) plus one 60 s interval.
    deadline = time.monotonic() + 360
    output = (var_dir / "demo.log").read_text(errors="replace")
    while sent not in output and time.monotonic() < deadline:
        time.sleep(1)
        output = (var_dir / "demo.log").read_text(errors="replace")
    assert "beat: Starting..." in output, output[-3000:]
    assert sent in output, output[-3000:]
    # Beat's record of the last runs (a shelve file; its dbm may add a suffix).
    assert any(p.name.startswith("celerybeat-schedule") for p in var_dir.iterdir())
