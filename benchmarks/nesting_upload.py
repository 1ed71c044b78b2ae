"""Nesting benchmark: how fast, and with how much memory, a file of nested brackets is refused.

Issue 12: a 200 KB JSON file of nested brackets, uploaded by any logged-in user, drove
a web worker to 18 GB (ijson's ``items`` keeps a prefix string per level for every
event: memory grows with the square of the depth). The file is now refused before
anything deep is built (``sanitizer.formats.bounded_json``).

Builds the file (``--bytes``, default 200 KB: ``[`` × n then ``]`` × n), uploads it
through the API (Django's test client, in-process: ``POST /api/projects/<id>/import/``
with ``sync=true``, which is the web worker's path) and then imports the same file
with the service a worker runs. Each is measured in a fresh child process, after a
warm-up request: the time to the refusal, then (in a second refusal, as tracemalloc
slows Python down) the peak of Python allocations, and the growth of the process's
peak RSS over both. Targets: under 1 s, under 200 MB. The last line
reads ``reject_s=<float> peak_mb=<float>`` (the API upload; peak_mb is the larger of
the tracemalloc peak and the RSS growth).

Everything runs in a transaction that is rolled back: the database is left as it was.

Usage::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sanitizer \\
        .venv/bin/python benchmarks/nesting_upload.py [--bytes 200000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 1.0
TARGET_MB = 200.0


def peak_rss_mb() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build(path: Path, size: int) -> None:
    depth = size // 2
    path.write_bytes(b"[" * depth + b"]" * depth)


def child(path: Path, mode: str) -> dict[str, Any]:
    """Refuse ``path`` once (``mode`` "api" or "service") and report; runs in a child."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sanitizer_app.settings.local")
    os.environ.setdefault("SANITIZER_DEMO", "1")  # a throw-away secret key is fine here
    os.environ["ALLOWED_HOSTS"] = "testserver"
    sys.path.insert(0, str(REPO_ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.db import transaction
    from rest_framework.test import APIClient

    from annotation.services import document_import, project_create
    from sanitizer.formats.tab import FormatError

    content = path.read_bytes()
    with transaction.atomic():
        user = get_user_model().objects.create(username=f"nesting-bench-{time.time_ns()}")
        project = project_create(name=f"nesting benchmark {time.time_ns()}", created_by=user)
        client = APIClient()
        client.force_authenticate(user)

        def refuse() -> tuple[int, str]:
            if mode == "api":
                response = client.post(
                    f"/api/projects/{project.pk}/import/",
                    {
                        "file": SimpleUploadedFile("nested.json", content),
                        "format": "tab",
                        "sync": "true",
                    },
                    format="multipart",
                )
                return response.status_code, response.json().get("detail", "")
            try:
                document_import(project=project, path=path, fmt="tab")
            except FormatError as exc:
                return 400, str(exc)
            return 201, "imported"

        # The first request of a process imports the views and the URL table: warm up
        # with a cheap one, so the timing is the refusal's.
        client.get("/api/me/")
        baseline = peak_rss_mb()
        started = time.perf_counter()
        status, detail = refuse()
        elapsed = time.perf_counter() - started
        # Once more under tracemalloc, which slows Python down: memory only.
        tracemalloc.start()
        refuse()
        traced_peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        transaction.set_rollback(True)
    return {
        "mode": mode,
        "status": status,
        "detail": detail,
        "seconds": elapsed,
        "traced_peak_mb": traced_peak,
        "rss_growth_mb": max(peak_rss_mb() - baseline, 0.0),
        "peak_rss_mb": peak_rss_mb(),
    }


def run_child(path: Path, mode: str) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", str(path), "--mode", mode]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the {mode} run failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--bytes", type=int, default=200_000, help="size of the nested file")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=["api", "service"], default="api", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        print(json.dumps(child(args.child, args.mode)))
        return

    results = {}
    with tempfile.TemporaryDirectory(prefix="nesting-bench-") as tmp:
        path = Path(tmp) / "nested.json"
        build(path, args.bytes)
        for mode in ("api", "service"):
            result = results[mode] = run_child(path, mode)
            print(
                f"{mode:>7}: {result['status']} in {result['seconds']:.3f} s, "
                f"traced peak {result['traced_peak_mb']:.1f} MB, "
                f"peak RSS +{result['rss_growth_mb']:.1f} MB "
                f"(process {result['peak_rss_mb']:.0f} MB): {result['detail'][:100]}",
                flush=True,
            )
    api = results["api"]
    peak = max(api["traced_peak_mb"], api["rss_growth_mb"])
    refused = all(r["status"] == 400 for r in results.values())
    within = api["seconds"] < TARGET_SECONDS and peak < TARGET_MB
    print(
        f"file {args.bytes} bytes, depth {args.bytes // 2}: "
        f"{'refused' if refused else 'NOT REFUSED'}; targets < {TARGET_SECONDS:g} s and "
        f"< {TARGET_MB:g} MB {'met' if within and refused else 'MISSED'}"
    )
    print(f"reject_s={api['seconds']:.4f} peak_mb={peak:.2f}")


if __name__ == "__main__":
    main()
