"""Benchmark of greedy de-identification: 150-word biographies against 5,000 profiles.

Generates ``--people`` synthetic profiles and ``--docs`` long biographies (the ``long``
style, ~150 words) into a work directory, builds the ensemble (``--models``, default
``bm25,dense``; the dense model is ``--model DIR``, or an untrained one with the bundled
MiniLM's weights when no directory is given: same architecture, same speed), then times
``deidentify`` on each document (models loaded and profile embeddings computed beforehand;
detection is not timed: with ``--entities`` the recognizer's spans are found first and
added as candidates). Prints per-document figures, the CPU time per document and, as its last line,
``deid_s_per_doc=<float>``.

Run: ``python benchmarks/reid_deid.py --model DIR [--people 5000 --docs 20 --k 10]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanitizer.kanon.synthetic import generate_dataset
from sanitizer.reid.ensemble import build_ensemble, model_names
from sanitizer.reid.greedy import deidentify
from sanitizer.reid.profiles import load_profiles, target_of
from sanitizer.reid.words import word_spans


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", default=None, help="dense model directory (train_reid)")
    ap.add_argument("--models", default=None, help="comma list (default: bm25,dense)")
    ap.add_argument("--people", type=int, default=5000)
    ap.add_argument("--docs", type=int, default=20)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--style", default="long")
    ap.add_argument("--entities", action="store_true", help="recognizer spans as candidates")
    ap.add_argument("--no-prune", action="store_true", help="time without the pruning pass")
    ap.add_argument("--workdir", default=None, help="keep data here instead of a temp dir")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="reid_deid_") as tmp:
        work = Path(args.workdir or tmp)
        model_dir = args.model
        names = model_names(args.models, model_dir or "untrained")
        if "dense" in names and model_dir is None:
            from sanitizer.reid.dense import create_untrained

            model_dir = create_untrained(work / "untrained_dense")
            print(f"no --model: untrained dense model (MiniLM weights) in {model_dir}")
        ds = generate_dataset(
            work / "data", args.people, args.docs, seed=args.seed, style=args.style
        )
        profiles = load_profiles(ds.kb_path)
        docs = json.loads(ds.docs_path.read_text(encoding="utf-8"))
        words = sum(len(word_spans(d["text"])) for d in docs) / max(1, len(docs))
        print(f"{len(profiles)} profiles, {len(docs)} {args.style} docs, {words:.0f} words/doc")

        t0 = time.perf_counter()
        models = build_ensemble(profiles, names, str(model_dir) if model_dir else None)
        print(
            f"models {', '.join(m.name for m in models)} ready in {time.perf_counter() - t0:.1f}s"
        )
        entities: dict[str, list[tuple[int, int]]] = {}
        if args.entities:
            from sanitizer.recognizer.pipeline import build_recognizer

            found = build_recognizer().predict_batch([d["text"] for d in docs])
            entities = {
                d["doc_id"]: [(s.start, s.end) for s in spans]
                for d, spans in zip(docs, found, strict=True)
            }
        # Warm-up (first forward passes allocate); not timed.
        deidentify(docs[0]["text"], str(target_of(docs[0])), models, k=args.k, max_steps=1)

        times: list[float] = []
        cpu: list[float] = []
        shares: list[float] = []
        steps: list[int] = []
        reached = 0
        for d in docs:
            t1, c1 = time.perf_counter(), time.process_time()
            result = deidentify(
                d["text"],
                str(target_of(d)),
                models,
                k=args.k,
                entities=entities.get(d["doc_id"], ()),
                prune=not args.no_prune,
            )
            times.append(time.perf_counter() - t1)
            cpu.append(time.process_time() - c1)
            shares.append(result.share_masked)
            steps.append(len(result.steps))
            reached += result.reached
            print(
                f"{d['doc_id']}: {times[-1]:.2f}s, {len(result.steps)} steps, "
                f"{100 * result.share_masked:.1f}% masked, ranks {result.ranks_after}"
            )
        n = max(1, len(docs))
        print(
            f"k={args.k}: reached {reached}/{len(docs)}, {sum(steps) / n:.1f} steps/doc, "
            f"{100 * sum(shares) / n:.1f}% of words masked, max {max(times):.2f}s"
        )
        # Wall time suffers when other processes share the CPU; CPU time does not (torch
        # spreads it over its intra-op threads, so it bounds wall time from above).
        print(
            f"cpu_s_per_doc={sum(cpu) / n:.3f} (torch threads {torch.get_num_threads()}, "
            f"load average {os.getloadavg()[0]:.1f})"
        )
        print(f"deid_s_per_doc={sum(times) / n:.3f}")


if __name__ == "__main__":
    main()
