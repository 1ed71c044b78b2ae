"""Import benchmark: speed and peak memory of ``document_import`` on large TAB files.

Generates TAB files of N and 4N documents (the TAB sample's documents repeated under
new doc ids) and imports each inline, in a fresh child process so that each peak
RSS is measured on its own. Prints documents/s, spans/s and peak RSS for both, and
the ratio of the two peaks: the reader streams the file and spans are written in
batches, so memory should stay flat (ratio near 1) while the file grows fourfold.

Each import runs in a transaction that is rolled back at the end, so the database
is left as it was; the time therefore excludes the final COMMIT. ``--keep`` commits
instead (into a project named ``benchmark <timestamp> <N>``).

Usage::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sanitizer \\
        .venv/bin/python benchmarks/import_large.py [--documents 2000] [--sample PATH]
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
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SAMPLE = REPO_ROOT.parent / "shared" / "data" / "tab_sample.json"


def generate(sample: Path, out: Path, documents: int, max_annotators: int | None) -> int:
    """Write ``documents`` TAB documents to ``out``, one at a time; returns the span count."""
    docs = json.loads(sample.read_text(encoding="utf-8"))
    spans = 0
    with out.open("w", encoding="utf-8") as stream:
        stream.write("[")
        for i in range(documents):
            base = docs[i % len(docs)]
            annotations = dict(list(base["annotations"].items())[:max_annotators])
            doc = {**base, "doc_id": f"{base['doc_id']}-{i:06d}", "annotations": annotations}
            spans += sum(len(a["entity_mentions"]) for a in annotations.values())
            stream.write(("," if i else "") + json.dumps(doc, ensure_ascii=False))
        stream.write("]")
    return spans


def peak_rss_mib() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(path: Path, keep: bool) -> dict[str, Any]:
    """Import ``path`` in this process and report; runs in a child of the main run."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sanitizer_app.settings.local")
    os.environ.setdefault("SANITIZER_DEMO", "1")  # a throw-away secret key is fine here
    sys.path.insert(0, str(REPO_ROOT))
    import django

    django.setup()
    from django.db import transaction

    from annotation.services import document_import, project_create

    baseline = peak_rss_mib()
    name = f"benchmark {time.strftime('%Y%m%d-%H%M%S')} {path.stem}"
    with transaction.atomic():
        project = project_create(name=name)
        started = time.perf_counter()
        summary = document_import(project=project, path=path, fmt="tab")
        elapsed = time.perf_counter() - started
        if not keep:
            transaction.set_rollback(True)
    return {
        "documents": summary.documents,
        "spans": summary.spans,
        "seconds": elapsed,
        "baseline_rss_mib": baseline,
        "peak_rss_mib": peak_rss_mib(),
    }


def run_child(path: Path, keep: bool) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", str(path)] + (["--keep"] if keep else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"import of {path.name} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--documents", type=int, default=2000, help="N (the second run uses 4N)")
    parser.add_argument("--sample", type=Path, default=DEFAULT_SAMPLE, help="TAB file to repeat")
    parser.add_argument(
        "--max-annotators", type=int, default=None, help="keep at most this many sets per document"
    )
    parser.add_argument("--keep", action="store_true", help="commit the imports")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        print(json.dumps(child(args.child, args.keep)))
        return

    rows = []
    with tempfile.TemporaryDirectory(prefix="import-bench-") as tmp:
        for n in (args.documents, 4 * args.documents):
            path = Path(tmp) / f"tab-{n}.json"
            generate(args.sample, path, n, args.max_annotators)
            size_mib = path.stat().st_size / 2**20
            result = run_child(path, args.keep)
            path.unlink()
            rows.append((n, size_mib, result))
            seconds = result["seconds"]
            print(
                f"{n:>7} documents  {size_mib:8.1f} MiB file  {result['spans']:>9} spans  "
                f"{seconds:7.1f} s  {result['documents'] / seconds:7.1f} docs/s  "
                f"{result['spans'] / seconds:8.0f} spans/s  "
                f"peak RSS {result['peak_rss_mib']:6.1f} MiB "
                f"(after start-up {result['baseline_rss_mib']:.1f} MiB)",
                flush=True,
            )
    (_, size_small, small), (_, size_large, large) = rows
    growth_small = small["peak_rss_mib"] - small["baseline_rss_mib"]
    growth_large = large["peak_rss_mib"] - large["baseline_rss_mib"]
    ratio = large["peak_rss_mib"] / small["peak_rss_mib"]
    print(
        f"file x{size_large / size_small:.1f}: peak RSS x{ratio:.2f} "
        f"(growth during the import {growth_small:.1f} -> {growth_large:.1f} MiB)"
    )


if __name__ == "__main__":
    main()
