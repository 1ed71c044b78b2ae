"""Live-rank benchmark: ``POST /api/documents/<id>/reid/rank/`` on a 5,000-profile KB.

Generates 5,000 people and long (~150-word) biographies of some of them, registers the
knowledge base as ready, makes one biography a document of a project (its ``target`` the
person's profile id) and, unless ``--no-dense``, activates a dense re-identifier (an
untrained bi-encoder over the bundled MiniLM: the same computation as a trained one;
``--dense DIR`` names a trained model instead). Everything runs in a throw-away SQLite
database under a temporary directory.

The first request loads the ensemble (BM25 index, dense profile embeddings) into the
process cache; it is reported but not counted. Then ``--runs`` requests are timed end to
end through Django's test client, each with one more word masked, as after every decision
in the editor (top 5 candidates with their links included).

Prints the document's size, the load time, the median and 95th percentile of the requests
and, on the last line, ``rank_api_ms=<float>``: the median.

Usage::

    .venv/bin/python benchmarks/reid_rank_api.py [--people 5000] [--runs 20] [--no-dense]
        [--dense DIR] [--threads N]

``--dense DIR`` with an empty directory creates an untrained model there and keeps it, so
the 5,000 profile embeddings (minutes on a busy CPU) are computed once across runs.
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
TARGET_WORDS = 150


def _setup_django(var_dir: Path) -> None:
    os.environ["SANITIZER_VAR_DIR"] = str(var_dir)
    os.environ["DATABASE_URL"] = f"sqlite:///{var_dir / 'bench.sqlite3'}"
    os.environ["SANITIZER_DEMO"] = "1"  # a throw-away secret key is fine here
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sanitizer_app.settings.local")
    sys.path.insert(0, str(REPO_ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _closest_biography(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """The biography whose length is closest to 150 words."""
    return min(docs, key=lambda d: abs(len(d["text"].split()) - TARGET_WORDS))


def _word_spans(text: str) -> list[list[int]]:
    from sanitizer.reid.words import word_spans

    return [[s, e] for s, e in word_spans(text)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--no-dense", action="store_true", help="BM25 only")
    parser.add_argument("--dense", help="a trained dense model directory (default: untrained)")
    parser.add_argument(
        "--threads", type=int, help="torch threads (default: torch's; 1 on a busy machine)"
    )
    args = parser.parse_args()

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory(prefix="reid-rank-") as tmp:
        var_dir = Path(tmp)
        _setup_django(var_dir)
        from django.contrib.auth import get_user_model
        from django.test import Client
        from django.utils import timezone

        from annotation.models import Document, Membership, Project, Role
        from knowledge.models import KbFormat, KbStatus, KnowledgeBase
        from ml.models import ModelKind, ModelVersion
        from sanitizer.kanon.synthetic import generate_dataset

        dataset = generate_dataset(var_dir / "people", args.people, 20, seed=0, style="long")
        docs = json.loads(Path(dataset.docs_path).read_text(encoding="utf-8"))
        biography = _closest_biography(docs)
        project = Project.objects.create(name="reid benchmark")
        user = get_user_model().objects.create_user("bench", password="bench-pass-123")
        Membership.objects.create(project=project, user=user, role=Role.REVIEWER)
        KnowledgeBase.objects.create(
            name="people",
            project=project,
            source_format=KbFormat.JSONL,
            source_path=str(dataset.kb_path),
            status=KbStatus.READY,
            n_persons=args.people,
            built_at=timezone.now(),
        )
        document = Document.objects.create(
            project=project,
            external_id=biography["doc_id"],
            text=biography["text"],
            meta={"target": biography["meta"]["person_id"]},
        )
        if not args.no_dense:
            model_dir = args.dense
            if model_dir is None:
                from sanitizer.reid.dense import create_untrained

                model_dir = str(var_dir / "dense")
                create_untrained(model_dir)
            elif not (Path(model_dir) / "reid.json").is_file():
                # A directory to keep between runs: the profile embeddings are cached in it.
                from sanitizer.reid.dense import create_untrained

                create_untrained(model_dir)
            ModelVersion.objects.create(
                kind=ModelKind.REIDENTIFIER,
                project=project,
                name="reid-bench",
                version="bench",
                artefact_path=model_dir,
                is_active=True,
            )

        from django.conf import settings

        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
        client = Client()
        client.force_login(user)
        url = f"/api/documents/{document.pk}/reid/rank/"
        words = _word_spans(document.text)

        def rank(masks: list[list[int]]) -> tuple[float, dict[str, Any]]:
            started = time.perf_counter()
            response = client.post(
                url, {"masks": masks, "k": 10, "top": 5}, content_type="application/json"
            )
            elapsed = (time.perf_counter() - started) * 1000
            if response.status_code != 200:
                raise SystemExit(f"rank API answered {response.status_code}: {response.content!r}")
            return elapsed, response.json()

        load_ms, first = rank([])
        print(f"document: {len(words)} words, {len(document.text)} characters")
        print(f"profiles: {first['n_candidates']}, models: {sorted(first['ranks'])}")
        print(f"first request (loads the ensemble): {load_ms:.0f} ms; ranks {first['ranks']}")
        times = []
        for i in range(args.runs):
            elapsed, body = rank(words[: i + 1])
            times.append(elapsed)
        times.sort()
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        print(
            f"after {args.runs} masks: ranks {body['ranks']}, "
            f"share masked {body['share_masked']:.2f}"
        )
        print(f"requests: median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms")
        print(f"rank_api_ms={statistics.median(times):.1f}")


if __name__ == "__main__":
    main()
