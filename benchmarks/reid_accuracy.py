"""Accuracy of a trained dense re-identifier on people it never saw (issue 11).

Generates a knowledge base of ``--people`` (5,000) synthetic profiles with ``--seed`` (2;
train on another seed) and biographies of ``--docs`` (500) of its people in each
``--styles`` (``short``: the training templates; ``long``: templates the model never saw).
Ranks every profile for each biography unmasked and with ``--share`` (30%) of its words
randomly masked (seed-fixed masks, :func:`sanitizer.reid.training.eval_masks`), and prints
top-1/top-10 per style. With ``--drops N`` it also times ``candidate_drops`` (one greedy
step's question: every non-stopword word as a candidate) on N long biographies.

The last line is ``top1_unmasked=<f> top1_masked30=<f>`` for the first style.

Usage::

    .venv/bin/python benchmarks/reid_accuracy.py --model /tmp/plan/reid_model [--drops 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="dense model directory")
    ap.add_argument("--people", type=int, default=5000)
    ap.add_argument("--docs", type=int, default=500)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--styles", default="short,long")
    ap.add_argument("--share", type=float, default=0.3)
    ap.add_argument("--mask-seed", type=int, default=0)
    ap.add_argument("--drops", type=int, default=0, help="time candidate_drops on N documents")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.path.insert(0, str(REPO_ROOT))

    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    from sanitizer.kanon.synthetic import SyntheticPeople
    from sanitizer.reid.base import ReidDocument, rank_of
    from sanitizer.reid.dense import DenseModel
    from sanitizer.reid.training import eval_masks
    from sanitizer.reid.words import is_stopword, word_spans

    gen = SyntheticPeople(args.seed)
    recs = list(gen.people(0, args.people))
    profiles = [gen.to_person(i, r) for i, r in recs]
    picked = sorted(
        np.random.default_rng([args.seed, 11]).choice(args.people, args.docs, replace=False)
    )
    t0 = time.perf_counter()
    model = DenseModel.load(args.model, profiles)
    print(
        f"model {model.version} loaded against {len(profiles)} profiles "
        f"in {time.perf_counter() - t0:.1f}s"
    )
    index = {pid: n for n, pid in enumerate(model.profile_ids)}
    first: dict[str, float] = {}
    for style in args.styles.split(","):
        docs = [
            ReidDocument(
                f"{style}-{i}", gen.biography(int(i), recs[int(i)][1], style), gen.person_id(int(i))
            )
            for i in picked
        ]
        words = statistics.mean(len(word_spans(d.text)) for d in docs)
        line = {}
        for label, share in (("unmasked", 0.0), (f"masked{round(args.share * 100)}", args.share)):
            masks = eval_masks(docs, share, args.mask_seed)
            t0 = time.perf_counter()
            S = model.scores([d.text for d in docs], masks)
            secs = time.perf_counter() - t0
            ranks = [rank_of(S[n], index[d.target]) for n, d in enumerate(docs)]
            line[f"top1_{label}"] = float(np.mean([r == 1 for r in ranks]))
            line[f"top10_{label}"] = float(np.mean([r <= 10 for r in ranks]))
            print(
                f"{style:5s} {label:9s} top1={line[f'top1_{label}']:.3f} "
                f"top10={line[f'top10_{label}']:.3f} median_rank={np.median(ranks):.0f} "
                f"({len(docs)} docs, {words:.0f} words avg, {secs / len(docs) * 1000:.1f} ms/doc)"
            )
        first = first or line
        if args.drops and style == "long":
            times = []
            for d in docs[: args.drops]:
                groups: dict[str, list[tuple[int, int]]] = {}
                for s, e in word_spans(d.text):
                    w = d.text[s:e]
                    if not is_stopword(w):
                        groups.setdefault(w.lower(), []).append((s, e))
                t0 = time.perf_counter()
                model.candidate_drops(d.text, [], index[d.target], list(groups.values()))
                times.append(time.perf_counter() - t0)
            print(
                f"candidate_drops: {len(times)} long docs, "
                f"median {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
                "per call (all non-stopword words as candidates)"
            )
    keys = [k for k in first if k.startswith("top1_")]
    print(" ".join(f"{k}={first[k]:.4f}" for k in keys))


if __name__ == "__main__":
    main()
