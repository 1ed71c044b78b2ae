"""Dial benchmark: re-solving a 60,000-character document's stored risk assessment.

Builds one 60,000-character document from TAB dev judgments concatenated (all 80
judgments are also the project's background documents, which the linkage measure searches),
assesses it once through ``risk_assess_documents`` (recognizer + measures, stored), then
times 20 re-solves through the service with thresholds swept over the dial's range and
one through the API (``POST /api/documents/<id>/risk/solve/``). Everything runs in a
throw-away SQLite database under a temporary directory.

Prints the document's size, its entities and combinations, the re-solve times (median,
95th percentile, max), the API call's time and, on the last line, ``dial_ms=<float>``:
the slower of the service's 95th percentile and the API call.

Usage::

    .venv/bin/python benchmarks/risk_dial.py [--tab ../shared/data/tab_dev.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TAB = REPO_ROOT.parent / "shared" / "data" / "tab_dev.json"
CHARS = 60_000
RUNS = 20


def _setup_django(var_dir: Path) -> None:
    os.environ["SANITIZER_VAR_DIR"] = str(var_dir)
    os.environ["DATABASE_URL"] = f"sqlite:///{var_dir / 'bench.sqlite3'}"
    os.environ["SANITIZER_DEMO"] = "1"  # a throw-away secret key is fine here
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sanitizer_app.settings.local")
    sys.path.insert(0, str(REPO_ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def long_text(docs: list[dict[str, Any]], chars: int) -> tuple[str, int]:
    """Judgments joined until ``chars`` characters, cut at the last space before it;
    returns the text and how many judgments it used."""
    parts: list[str] = []
    length = 0
    for doc in docs:
        parts.append(doc["text"])
        length += len(doc["text"]) + 2
        if length >= chars:
            break
    text = "\n\n".join(parts)[:chars]
    return text, len(parts)


def run(tab: Path) -> dict[str, float]:
    from django.conf import settings
    from rest_framework.test import APIClient

    from annotation.models import Role
    from annotation.services import project_create
    from risk.selectors import assessment_solve, risk_assessment_latest
    from risk.services import risk_assess_documents
    from tests.factories import DocumentFactory, MembershipFactory, UserFactory

    docs = json.loads(tab.read_text(encoding="utf-8"))
    text, used = long_text(docs, CHARS)
    project = project_create(name="risk dial benchmark")
    document = DocumentFactory.create(
        project=project,
        text=text,
        external_id="long",
        position=0,
        target_person=docs[0]["meta"].get("applicant", ""),
    )
    for i, doc in enumerate(docs, start=1):
        DocumentFactory.create(
            project=project, text=doc["text"], external_id=doc["doc_id"], position=i
        )

    started = time.perf_counter()
    risk_assess_documents(
        project=project,
        document_ids=[document.pk],
        settings={"measures": ["lm", "linkage"], "max_arity": 2},
    )
    assess_s = time.perf_counter() - started
    assessment = risk_assessment_latest(document=document)
    assert assessment is not None
    entities = len(assessment.data["entities"])
    combinations = len(assessment.data["combinations"])

    times: list[float] = []
    shares: list[float] = []
    for i in range(RUNS):
        threshold = 4.0 + i * 0.5  # 4 … 13.5 nats: the dial's useful range
        started = time.perf_counter()
        masking = assessment_solve(assessment=assessment, requested={"threshold": threshold})
        times.append((time.perf_counter() - started) * 1000)
        shares.append(masking.share_masked)

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    user = UserFactory.create(username="dial-benchmark")
    MembershipFactory.create(project=project, user=user, role=Role.REVIEWER)
    client = APIClient()
    client.force_authenticate(user)
    started = time.perf_counter()
    response = client.post(
        f"/api/documents/{document.pk}/risk/solve/", {"threshold": 7.5}, format="json"
    )
    api_ms = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, response.content

    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(f"document: {len(text)} characters from {used} TAB dev judgments")
    print(f"assessment (recognizer + measures, once): {assess_s:.1f} s")
    print(f"entities: {entities}, stored combinations: {combinations}")
    print(f"share masked over thresholds 4..13.5: {max(shares):.3f} .. {min(shares):.3f}")
    print(
        f"service re-solve x{RUNS}: median {statistics.median(times):.1f} ms, "
        f"p95 {p95:.1f} ms, max {max(times):.1f} ms"
    )
    print(f"API re-solve: {api_ms:.1f} ms ({len(response.json()['masks'])} masks)")
    dial_ms = max(p95, api_ms)
    print(f"dial_ms={dial_ms:.1f}")
    return {"dial_ms": dial_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tab", type=Path, default=DEFAULT_TAB)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="risk-dial-") as tmp:
        _setup_django(Path(tmp))
        run(args.tab)


if __name__ == "__main__":
    main()
