"""The live re-identification rank in the editor, in a real Chromium.

Builds a throw-away SQLite database (temporary folder), a 5,000-profile knowledge base
from the synthetic generator and a biography of one of its people (the generator's
"long" style, 120-180 words, topped up with ordinary sentences to at least 150),
with the annotator's own spans (decided NO_MASK) on ``--decisions`` of its words. With
``--dense`` (the default) the project also has an active dense re-identifier, as in
use: ``--model DIR`` (a trained one) or an untrained one with the bundled MiniLM's
weights (the same work per request). Serves the app on a local port from this process,
logs in, opens the editor and waits for the first rank (the ensemble is loaded then).

Then, for each of those spans in turn: select it and press ``q`` (mask it); the time
from the key press to the panel showing the rank for the new masks (#reid-rank ready
with the new masks' signature) and the next painted frame. Target: median under 300 ms.

Last line: ``rank_update_ms=<float>``.

Usage: ``.venv/bin/python benchmarks/ui_reid_rank.py [--profiles 5000] [--words 150]
[--decisions 20] [--no-dense | --model DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The same flags as the browser tests, and the same way of serving the app.
from benchmarks.ui_long_document import _login, _serve, _setup_django  # noqa: E402
from tests.frontend.browser import CHROMIUM_ARGS  # noqa: E402

PASSWORD = "bench-pass-123"  # ui_long_document's _login
# Sentences no profile holds: a biography's ordinary prose around the facts.
FILLER = [
    "Colleagues describe a careful worker who is generous with time and advice.",
    "Outside of work there is a long walk every morning, whatever the weather.",
    "A first job was at a small family business, answering the telephone.",
    "Friends remember long evenings of music and conversation at home.",
    "Several short articles for a local newsletter followed over the years.",
    "Travel has always mattered, mostly by train and mostly in the autumn.",
    "There was a brief period of teaching evening classes to adults.",
    "A modest garden behind the house produces more tomatoes than anyone can eat.",
    "Public speaking came late, after years of preferring to stay in the background.",
    "An old bicycle, repaired many times, is still the usual way to get around.",
]
# Resolves when the panel shows the rank for the masks after the key press, then on the
# next painted frame.
DECISION_JS = """
async (key) => {
  const node = document.querySelector('#reid-rank');
  const t0 = performance.now();
  document.body.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
  const want = window.__editor.reid.signature();
  await new Promise((resolve) => {
    const done = () => node.dataset.state === 'ready' && node.dataset.signature === want;
    if (done()) return resolve();
    const observer = new MutationObserver(() => {
      if (done()) { observer.disconnect(); resolve(); }
    });
    observer.observe(node, {attributes: true});
  });
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  return {ms: performance.now() - t0, rank: +node.dataset.rank, server_ms: +node.dataset.ms};
}
"""


def _biography(text: str, words: int) -> str:
    """The generated ("long" style) biography, with ordinary sentences added if it is
    shorter than ``words`` words."""
    sentences = [text]
    i = 0
    while len(" ".join(sentences).split()) < words:
        sentences.append(FILLER[i % len(FILLER)])
        i += 1
    return " ".join(sentences)


def _decision_words(text: str, name: str, n: int) -> list[tuple[int, int]]:
    """``n`` distinct content words of the text (not the name: it is masked last, if
    ever), in reading order."""
    skip = set(name.split())
    seen: set[str] = set()
    out = []
    for match in re.finditer(r"[A-Za-z][\w-]{3,}", text):
        word = match.group()
        if word in skip or word.lower() in seen:
            continue
        seen.add(word.lower())
        out.append((match.start(), match.end()))
    return out[:n]


def _project(tmp: Path, args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import AnnotationSet, Assignment, Document, SetKind, Span
    from annotation.services import membership_set, project_create
    from knowledge.models import KbFormat, KbStatus, KnowledgeBase
    from ml.models import ModelKind, ModelVersion
    from sanitizer.kanon.synthetic import generate_dataset

    started = time.perf_counter()
    generated = generate_dataset(tmp / "people", args.profiles, 1, seed=args.seed, style="long")
    doc = json.loads(generated.docs_path.read_text(encoding="utf-8"))[0]
    text = _biography(doc["text"], args.words)
    annotator = get_user_model().objects.create_user("bench", password=PASSWORD)
    project = project_create(name="reid bench", created_by=None)
    membership_set(project=project, user=annotator, role="annotator")
    document = Document.objects.create(
        project=project,
        external_id=doc["doc_id"],
        text=text,
        target_person=doc["meta"]["applicant"],
        meta={"target": doc["meta"]["person_id"]},
    )
    Assignment.objects.create(document=document, user=annotator)
    KnowledgeBase.objects.create(
        name="generated people",
        project=project,
        source_format=KbFormat.JSONL,
        source_path=str(generated.kb_path),
        status=KbStatus.READY,
        n_persons=args.profiles,
        built_at=timezone.now(),
    )
    own = AnnotationSet.objects.create(document=document, kind=SetKind.HUMAN, annotator=annotator)
    words = _decision_words(text, doc["meta"]["applicant"], args.decisions)
    Span.objects.bulk_create(
        Span(
            annotation_set=own,
            start=start,
            end=end,
            text=text[start:end],
            entity_type="MISC",
            identifier_type="NO_MASK",
        )
        for start, end in words
    )
    model = "none"
    if args.dense:
        model_dir = args.model
        if model_dir is None:
            from sanitizer.reid.dense import create_untrained

            model_dir = str(tmp / "dense")
            create_untrained(model_dir)  # returns the version string
            model = "dense (untrained, bundled MiniLM weights)"
        else:
            model = f"dense ({model_dir})"
        ModelVersion.objects.create(
            kind=ModelKind.REIDENTIFIER,
            project=project,
            name="bench-reid",
            version="1",
            artefact_path=str(model_dir),
            is_active=True,
        )
    return int(document.pk), {
        "words": len(text.split()),
        "decisions": len(words),
        "dense": model,
        "setup_s": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, default=5_000)
    parser.add_argument("--words", type=int, default=150)
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--no-dense", dest="dense", action="store_false")
    parser.add_argument("--model", default=None, help="a trained dense model directory")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ui-reid-bench-") as tmp_name:
        tmp = Path(tmp_name)
        _setup_django(tmp)
        document_id, facts = _project(tmp, args)
        base, server = _serve()
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            _login(page, base, "bench")
            page.goto(f"{base}/documents/{document_id}/annotate/")
            page.wait_for_selector("body[data-ready='1']", timeout=120_000)
            loaded = time.perf_counter()
            # The first rank loads the knowledge base and the models (cached afterwards).
            page.wait_for_selector(
                "#reid-rank[data-state='ready'], #reid-rank[data-state='error'], #reid-error",
                timeout=900_000,
            )
            if page.get_attribute("#reid-rank", "data-state") != "ready":
                raise SystemExit(f"no rank: {page.inner_text('#reid-panel')}")
            first_s = time.perf_counter() - loaded
            first_rank = page.get_attribute("#reid-rank", "data-rank")
            keys = page.evaluate(
                "window.__editor.store.own().sort((a, b) => a.start - b.start).map((s) => s.key)"
            )
            results = []
            for key in keys:
                page.evaluate(f"window.__editor.select('{key}', {{scroll: false}})")
                results.append(page.evaluate(DECISION_JS, "q"))
            # (A selector: the pages' Content-Security-Policy forbids wait_for_function's eval.)
            page.wait_for_selector("#save-status:text-is('All changes saved')", timeout=60_000)
            browser.close()
        server.shutdown()  # type: ignore[attr-defined]
    times = [r["ms"] for r in results]
    server_ms = [r["server_ms"] for r in results]
    print(
        f"biography: {facts['words']} words; {args.profiles} profiles; models: bm25 + "
        f"{facts['dense']}; set-up {facts['setup_s']:.1f} s"
    )
    print(f"first rank (ensemble loaded): {first_s:.1f} s, rank {first_rank}")
    print(f"ranks after each decision: {' '.join(str(r['rank']) for r in results)}")
    print(
        f"decision to rank shown (ms): median {statistics.median(times):.1f}, "
        f"max {max(times):.1f} over {len(times)}; server compute median "
        f"{statistics.median(server_ms):.1f} ms"
    )
    print(f"rank_update_ms={statistics.median(times):.2f}")


if __name__ == "__main__":
    main()
