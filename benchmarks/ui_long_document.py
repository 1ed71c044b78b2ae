"""Editor and review speed on long documents, in a real Chromium.

Builds a throw-away SQLite database (temporary folder), creates a project, an
annotator, a reviewer and three documents, serves the app on a local port from this
process, logs in and opens the pages:

* the editor on a 60,000-character document with 400 own spans and 400 machine
  suggestions: ``interactive_s`` (from navigation start to the editor being ready: text
  rendered, spans indexed, keyboard handlers attached, and the next frame painted),
  median of ``--runs`` page loads, and ``keystroke_ms`` (from a decision key press,
  ``q``/``x`` alternately on the selected span, to the next painted frame showing the
  span's new class), median of ``--keys``. Targets: under 2 s and under 100 ms;
* the editor on a 300,000-character document with 5,000 spans (half own, half
  suggestions): ``big_interactive_s`` and ``big_keystroke_ms``, the same measures.
  Targets: under 2 s and under 100 ms;
* the review page of a 60,000-character document with 10 versions (9 submitted
  annotator sets and a machine run, about 700 spans each, differing in places):
  ``review_s``, from navigation start to the page being ready and painted. Target:
  under 1 s.

Last line: ``interactive_s=<float> keystroke_ms=<float> big_interactive_s=<float>
big_keystroke_ms=<float> review_s=<float>``.

Usage: ``.venv/bin/python benchmarks/ui_long_document.py [--runs 3] [--keys 20]``
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The same flags as the browser tests (no background networking on this closed network).
from tests.frontend.browser import CHROMIUM_ARGS  # noqa: E402

WORDS = [
    "the",
    "applicant",
    "court",
    "government",
    "article",
    "convention",
    "judgment",
    "proceedings",
    "case",
    "application",
    "period",
    "domestic",
    "remedies",
    "complaint",
    "decision",
    "appeal",
    "hearing",
    "evidence",
    "district",
    "regional",
    "authorities",
    "lawyer",
    "representative",
]
TYPES = ["PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC"]
DECISIONS = ["DIRECT", "QUASI", "NO_MASK"]
PASSWORD = "bench-pass-123"
# Resolves on the frame after the current one: layout and paint are included.
NEXT_FRAME_JS = (
    "() => new Promise((r) => requestAnimationFrame(() =>"
    " setTimeout(() => r(performance.now()), 0)))"
)


def _setup_django(var_dir: Path) -> None:
    os.environ["SANITIZER_VAR_DIR"] = str(var_dir)
    os.environ["DATABASE_URL"] = f"sqlite:///{var_dir / 'bench.sqlite3'}"
    os.environ["SANITIZER_DEMO"] = "1"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sanitizer_app.settings.local")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _long_text(chars: int, rng: random.Random) -> str:
    paragraphs = []
    size = 0
    while size < chars:
        sentences = []
        for _ in range(rng.randint(3, 7)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(8, 20))]
            sentences.append(" ".join(words).capitalize() + ".")
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(paragraphs)[:chars]


def _words(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"\w+", text)]


def _users() -> tuple[Any, Any, Any]:
    from django.contrib.auth import get_user_model

    from annotation.services import membership_set, project_create

    users = get_user_model().objects
    annotator = users.create_user("bench", password=PASSWORD)
    reviewer = users.create_user("bench-reviewer", password=PASSWORD)
    project = project_create(name="bench", created_by=None)
    membership_set(project=project, user=annotator, role="annotator")
    membership_set(project=project, user=reviewer, role="reviewer")
    return project, annotator, reviewer


def _create_editor_document(
    project: Any, user: Any, external_id: str, n_chars: int, n_spans: int
) -> int:
    """A document with ``n_spans`` one-word spans, alternately own and suggested."""
    from annotation.models import AnnotationSet, Assignment, Document, SetKind, SetSource, Span

    rng = random.Random(7)
    text = _long_text(n_chars, rng)
    document = Document.objects.create(
        project=project, external_id=external_id, text=text, target_person="Nobody"
    )
    Assignment.objects.create(document=document, user=user)
    own = AnnotationSet.objects.create(document=document, kind=SetKind.HUMAN, annotator=user)
    machine = AnnotationSet.objects.create(
        document=document, kind=SetKind.MACHINE, source=SetSource.PREANNOTATION, source_name="ner"
    )
    words = _words(text)
    chosen = sorted(rng.sample(range(len(words)), n_spans))
    rows = []
    for i, index in enumerate(chosen):
        start, end = words[index]
        rows.append(
            Span(
                annotation_set=own if i % 2 == 0 else machine,
                start=start,
                end=end,
                text=text[start:end],
                entity_type=rng.choice(TYPES),
                identifier_type=rng.choice(DECISIONS),
                confidence=None if i % 2 == 0 else 0.8,
            )
        )
    Span.objects.bulk_create(rows, batch_size=2000)
    return int(document.pk)


def _create_review_document(project: Any, n_chars: int, n_spans: int, versions: int) -> int:
    """A document with ``versions`` sets (submitted annotators and one machine run) over
    one base of ``n_spans`` spans: each keeps 90% of them, 20% with another decision."""
    from django.contrib.auth import get_user_model

    from annotation.models import AnnotationSet, Document, SetKind, SetSource, SetStatus, Span

    rng = random.Random(11)
    text = _long_text(n_chars, rng)
    document = Document.objects.create(
        project=project, external_id="review", text=text, target_person="Nobody"
    )
    words = _words(text)
    base = [
        (words[i], rng.choice(TYPES), rng.choice(DECISIONS))
        for i in sorted(rng.sample(range(len(words)), n_spans))
    ]
    rows = []
    for v in range(versions):
        if v == versions - 1:
            annotation_set = AnnotationSet.objects.create(
                document=document,
                kind=SetKind.MACHINE,
                source=SetSource.PREANNOTATION,
                source_name="ner",
                status=SetStatus.SUBMITTED,
            )
        else:
            annotator = get_user_model().objects.create_user(f"annotator{v}")
            annotation_set = AnnotationSet.objects.create(
                document=document,
                kind=SetKind.HUMAN,
                annotator=annotator,
                status=SetStatus.SUBMITTED,
            )
        for (start, end), entity_type, decision in base:
            if rng.random() >= 0.9:
                continue
            rows.append(
                Span(
                    annotation_set=annotation_set,
                    start=start,
                    end=end,
                    text=text[start:end],
                    entity_type=entity_type,
                    identifier_type=rng.choice(DECISIONS) if rng.random() < 0.2 else decision,
                )
            )
    Span.objects.bulk_create(rows, batch_size=2000)
    return int(document.pk)


def _serve() -> tuple[str, object]:
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = ThreadedWSGIServer(("127.0.0.1", 0), QuietHandler)
    server.set_app(StaticFilesHandler(get_wsgi_application()))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


KEYSTROKE_JS = """
async (key) => {
  const editor = window.__editor;
  const sel = editor.store.selected;
  const seg = editor.view.elements(sel)[0];
  const want = key === 'q' ? 'i-QUASI' : 'i-NO_MASK';
  const t0 = performance.now();
  document.body.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
  const applied = seg.classList.contains(want);
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  return {ms: performance.now() - t0, applied};
}
"""


def _login(page: Any, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def _load_times(page: Any, url: str, runs: int) -> list[float]:
    """Seconds from navigation start to the page's ready mark and the next frame."""
    loads = []
    for _ in range(runs):
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']", timeout=120_000)
        loads.append(page.evaluate(NEXT_FRAME_JS) / 1000)
    return loads


def _measure_editor(page: Any, url: str, runs: int, n_keys: int) -> dict[str, Any]:
    loads = _load_times(page, url, runs)
    counts = page.evaluate(
        "() => ({chars: window.__editor.doc.text.length,"
        " spans: window.__editor.store.size,"
        " segments: document.querySelectorAll('#doc .seg').length})"
    )
    page.keyboard.press("j")
    keys = []
    for i in range(n_keys):
        result = page.evaluate(KEYSTROKE_JS, "q" if i % 2 == 0 else "x")
        if not result["applied"]:
            raise SystemExit("the keystroke did not change the span's class")
        keys.append(result["ms"])
    # Let the autosave finish before the page is left.
    # A selector, not wait_for_function: the pages' Content-Security-Policy forbids its eval.
    page.locator("#save-status", has_text="All changes saved").wait_for(timeout=60_000)
    return {"loads": loads, "keys": keys, **counts}


def _report(name: str, measured: dict[str, Any]) -> tuple[float, float]:
    interactive = statistics.median(measured["loads"])
    keystroke = statistics.median(measured["keys"])
    print(
        f"{name}: {measured['chars']} characters, {measured['spans']} spans "
        f"({measured['segments']} rendered segments)"
    )
    print(f"  page loads (s): {', '.join(f'{v:.3f}' for v in measured['loads'])}")
    keys = measured["keys"]
    print(f"  keystrokes (ms): median {keystroke:.2f}, max {max(keys):.2f} over {len(keys)}")
    return interactive, keystroke


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=60_000)
    parser.add_argument("--spans", type=int, default=800)
    parser.add_argument("--big-chars", type=int, default=300_000)
    parser.add_argument("--big-spans", type=int, default=5_000)
    parser.add_argument("--review-chars", type=int, default=60_000)
    parser.add_argument("--review-spans", type=int, default=800)
    parser.add_argument("--versions", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ui-bench-") as tmp:
        _setup_django(Path(tmp))
        project, annotator, _reviewer = _users()
        long_id = _create_editor_document(project, annotator, "long", args.chars, args.spans)
        big_id = _create_editor_document(project, annotator, "big", args.big_chars, args.big_spans)
        review_id = _create_review_document(
            project, args.review_chars, args.review_spans, args.versions
        )
        base, server = _serve()
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            _login(page, base, "bench")
            long = _measure_editor(
                page, f"{base}/documents/{long_id}/annotate/", args.runs, args.keys
            )
            big = _measure_editor(
                page, f"{base}/documents/{big_id}/annotate/", args.runs, args.keys
            )
            page.close()
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            _login(page, base, "bench-reviewer")
            reviews = _load_times(page, f"{base}/documents/{review_id}/review/", args.runs)
            browser.close()
        server.shutdown()  # type: ignore[attr-defined]
    interactive, keystroke = _report("document", long)
    big_interactive, big_keystroke = _report("big document", big)
    review = statistics.median(reviews)
    print(f"review page: {args.versions} versions of {args.review_chars} characters")
    print(f"  page loads (s): {', '.join(f'{v:.3f}' for v in reviews)}")
    print(
        f"interactive_s={interactive:.3f} keystroke_ms={keystroke:.2f} "
        f"big_interactive_s={big_interactive:.3f} big_keystroke_ms={big_keystroke:.2f} "
        f"review_s={review:.3f}"
    )


if __name__ == "__main__":
    main()
