"""Editor speed on a long document: 60,000 characters, 800 spans, in a real Chromium.

Builds a throw-away SQLite database (temporary folder), creates a project, an
annotator and one document with 400 own spans and 400 machine suggestions, serves the
app on a local port from this process, logs in and opens the editor. Prints:

* ``interactive_s``: from navigation start to the editor being ready (text rendered,
  spans indexed, keyboard handlers attached), median of ``--runs`` page loads;
* ``keystroke_ms``: from a decision key press (``q``/``x`` alternately, on the selected
  span) to the next painted frame showing the span's new class, median of ``--keys``.

Targets: under 2 s and under 100 ms. Last line: ``interactive_s=<float> keystroke_ms=<float>``.

Usage: ``.venv/bin/python benchmarks/ui_long_document.py [--runs 3] [--keys 20]``
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
from pathlib import Path

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


def _create_data(n_chars: int, n_spans: int) -> tuple[int, str, str]:
    from django.contrib.auth import get_user_model

    from annotation.models import AnnotationSet, Assignment, Document, SetKind, SetSource, Span
    from annotation.services import membership_set, project_create

    rng = random.Random(7)
    text = _long_text(n_chars, rng)
    user = get_user_model().objects.create_user("bench", password="bench-pass-123")
    project = project_create(name="bench", created_by=None)
    membership_set(project=project, user=user, role="annotator")
    document = Document.objects.create(
        project=project, external_id="long", text=text, target_person="Nobody"
    )
    Assignment.objects.create(document=document, user=user)
    own = AnnotationSet.objects.create(document=document, kind=SetKind.HUMAN, annotator=user)
    machine = AnnotationSet.objects.create(
        document=document, kind=SetKind.MACHINE, source=SetSource.PREANNOTATION, source_name="ner"
    )
    words = [(m.start(), m.end()) for m in __import__("re").finditer(r"\w+", text)]
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
    Span.objects.bulk_create(rows)
    return document.pk, "bench", "bench-pass-123"


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=60_000)
    parser.add_argument("--spans", type=int, default=800)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ui-bench-") as tmp:
        _setup_django(Path(tmp))
        document_id, username, password = _create_data(args.chars, args.spans)
        base, server = _serve()
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"{base}/accounts/login/")
            page.fill("input[name=username]", username)
            page.fill("input[name=password]", password)
            page.click("button[type=submit]")
            page.wait_for_url(f"{base}/")
            loads = []
            for _ in range(args.runs):
                page.goto(f"{base}/documents/{document_id}/annotate/")
                page.wait_for_selector("body[data-ready='1']", timeout=60_000)
                # Wait for the frame after ready, so layout and paint are included.
                loads.append(
                    page.evaluate(
                        "() => new Promise((r) => requestAnimationFrame(() => setTimeout(() =>"
                        " r(performance.now()), 0)))"
                    )
                    / 1000
                )
            counts = page.evaluate(
                "() => ({chars: window.__editor.doc.text.length,"
                " spans: window.__editor.store.size,"
                " segments: document.querySelectorAll('#doc .seg').length})"
            )
            page.keyboard.press("j")
            keys = []
            for i in range(args.keys):
                result = page.evaluate(KEYSTROKE_JS, "q" if i % 2 == 0 else "x")
                if not result["applied"]:
                    raise SystemExit("the keystroke did not change the span's class")
                keys.append(result["ms"])
            browser.close()
        server.shutdown()  # type: ignore[attr-defined]
    interactive = statistics.median(loads)
    keystroke = statistics.median(keys)
    print(
        f"document: {counts['chars']} characters, {counts['spans']} spans "
        f"({counts['segments']} rendered segments)"
    )
    print(f"page loads (s): {', '.join(f'{v:.3f}' for v in loads)}")
    print(f"keystrokes (ms): median {keystroke:.2f}, max {max(keys):.2f} over {len(keys)}")
    print(f"interactive_s={interactive:.3f} keystroke_ms={keystroke:.2f}")


if __name__ == "__main__":
    main()
