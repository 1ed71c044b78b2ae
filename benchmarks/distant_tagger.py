"""Benchmark of the distant-supervision masking tagger (seed 000 §4, Tables 2-3 protocol).

Protocol (seed 000: train on distantly labelled biographies, test generalisation):

1. Synthetic people ``0 … N-1`` form the *labelling knowledge base*; ``--train`` and
   ``--dev`` biographies are written about people drawn from it
   (:func:`sanitizer.kanon.synthetic.generate_dataset`).
2. ``--unseen`` further people (indices ``N …``) are generated too, but kept out of
   the labelling knowledge base: the tagger never sees their profiles, and no
   training biography is about them.
3. Gold masks are what Algorithm 1 masks when the adversary knows the person:
   train and dev biographies are labelled with the index of the labelling KB; the
   unseen people's biographies with a second index built from the labelling KB
   *plus* the unseen people's profiles.
4. The masking tagger (B-MASK/I-MASK/O over the bundled MiniLM encoder) is trained
   on the train split, the best epoch chosen on the dev split, and scored (SemEval
   exact/partial entity P/R/F1, token and character P/R/F1) on (a) the dev split
   and (b) the unseen people's biographies.

The last line printed is
``exact_f1_unseen=<float> partial_f1_unseen=<float> exact_f1_dev=<float>``.

Run: ``python benchmarks/distant_tagger.py``. With the defaults (1,500 training
biographies, 3 epochs, max_length 128) training is 282 optimizer steps of MiniLM:
about 100 s per epoch on 2 idle cores, up to 13 minutes per epoch when other
processes share the cores; ``--train 800 --epochs 2`` roughly thirds it.
``--model-dir DIR`` scores an already trained masker on the same data instead.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanitizer.kanon.gazetteer import Gazetteer
from sanitizer.kanon.index import build_index
from sanitizer.kanon.kb import read_jsonl_profiles
from sanitizer.kanon.masker import (
    MaskerEvaluation,
    distant_examples,
    evaluate_masker,
    label_stats,
    masker_config,
    span_policies,
    train_masker,
)
from sanitizer.kanon.synthetic import SyntheticPeople, generate_dataset
from sanitizer.training import load_tagger


def _row(name: str, ev: MaskerEvaluation) -> str:
    e, p, t = ev.exact, ev.partial, ev.token
    return (
        f"{name:<14} {e.precision:6.3f} {p.precision:6.3f} {e.recall:6.3f} {p.recall:6.3f} "
        f"{e.f1:6.3f} {p.f1:6.3f} | {t.precision:6.3f} {t.recall:6.3f} {t.f1:6.3f} "
        f"| {ev.documents:5d} {ev.gold_spans:6d} {ev.predicted_spans:6d}"
    )


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--people", type=int, default=20_000, help="labelling KB size N")
    ap.add_argument("--train", type=int, default=1500)
    ap.add_argument("--dev", type=int, default=200)
    ap.add_argument("--unseen", type=int, default=300)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--max-arity", type=int, default=3)
    ap.add_argument("--selection", default="greedy")
    ap.add_argument("--span-policy", default="as_labelled", choices=span_policies.names())
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--learning-rate", type=float, default=1e-4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--base-model", default=None, help="local encoder dir (default: MiniLM)")
    ap.add_argument("--workdir", default=None, help="keep data and model here")
    ap.add_argument(
        "--model-dir",
        default=None,
        help="evaluate this saved masker instead of training one (same data arguments)",
    )
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="distant_tagger_") as tmp:
        work = Path(args.workdir or tmp)
        t0 = time.perf_counter()
        gen = SyntheticPeople(args.seed)
        ds = generate_dataset(
            work, args.people, args.train + args.dev, args.unseen, seed=args.seed, generator=gen
        )
        docs = json.loads(ds.docs_path.read_text(encoding="utf-8"))
        in_kb = [d for d in docs if d["meta"]["in_kb"]]
        unseen = [d for d in docs if not d["meta"]["in_kb"]]
        random.Random(args.seed).shuffle(in_kb)
        train_docs, dev_docs = in_kb[: args.train], in_kb[args.train :]

        index = build_index(read_jsonl_profiles(ds.kb_path))
        gaz = Gazetteer.from_terms(index.terms)
        unseen_people = [
            gen.to_person(i, rec) for i, rec in gen.people(args.people, args.people + args.unseen)
        ]
        # The adversary's KB for the unseen people: the labelling KB plus their profiles.
        full_index = build_index([*read_jsonl_profiles(ds.kb_path), *unseen_people])
        full_gaz = Gazetteer.from_terms(full_index.terms)
        # The Algorithm 1 settings every labelling below shares.
        algorithm = {"k": args.k, "max_arity": args.max_arity, "selection": args.selection}
        unseen_examples, unseen_gold = distant_examples(
            unseen, full_index, full_gaz, **algorithm, seed=args.seed, span_policy=args.span_policy
        )
        prep_s = time.perf_counter() - t0
        print(
            f"KB {index.n_persons} people ({index.n_terms} terms), gold KB "
            f"{full_index.n_persons} people; {len(train_docs)} train, {len(dev_docs)} dev, "
            f"{len(unseen)} unseen-people docs; prepared in {prep_s:.1f}s"
        )

        config = masker_config(
            max_length=args.max_length,
            window_overlap=min(32, args.max_length // 4),
            epochs=args.epochs,
            batch_size=args.batch_size,
            learning_rate=args.learning_rate,
            num_threads=args.threads,
            device="cpu",
            seed=args.seed + 13,
            **({"base_model": args.base_model} if args.base_model else {}),
        )

        def progress(done: int, total: int, message: str) -> None:
            # Dev evaluations, and about every tenth of the training steps.
            if "dev" in message or (total > 0 and done % max(1, total // 10) == 0):
                print(f"  [{time.perf_counter() - t0:7.1f}s] {message}", flush=True)

        us = label_stats(unseen_examples)
        if args.model_dir:
            model_dir = args.model_dir
            _dev_examples, dev_gold = distant_examples(
                dev_docs, index, gaz, **algorithm, seed=args.seed, span_policy=args.span_policy
            )
            print(f"evaluating the saved model {model_dir} (no training)")
        else:
            t1 = time.perf_counter()
            res = train_masker(
                config,
                train_docs,
                dev_docs,
                index,
                gaz,
                **algorithm,
                output_dir=work / "model",
                progress=progress,
                seed=args.seed,
                span_policy=args.span_policy,
            )
            train_s = time.perf_counter() - t1
            model_dir, dev_gold = res.output_dir, res.dev_gold
            print(
                f"labels: train {res.train_stats.masks_per_doc:.2f} masks/doc "
                f"({res.train_stats.masked_share:.1%} of chars), dev "
                f"{res.dev_stats.masks_per_doc:.2f}, unseen {us.masks_per_doc:.2f} masks/doc"
            )
            print(
                f"trained {res.training.steps} steps on {res.training.train_windows} windows "
                f"in {train_s:.1f}s (best epoch {res.training.best_epoch})"
            )

        tagger = load_tagger(model_dir, device="cpu", num_threads=args.threads)
        t2 = time.perf_counter()
        dev_ev = evaluate_masker(tagger, dev_docs, dev_gold)
        unseen_ev = evaluate_masker(tagger, unseen, unseen_gold)
        eval_s = time.perf_counter() - t2
        n_eval = dev_ev.documents + unseen_ev.documents
        print(f"predicted {n_eval} docs in {eval_s:.1f}s")
        print()
        print(
            f"{'':<14} {'P(E)':>6} {'P(P)':>6} {'R(E)':>6} {'R(P)':>6} {'F1(E)':>6} "
            f"{'F1(P)':>6} | {'tokP':>6} {'tokR':>6} {'tokF1':>6} | {'docs':>5} "
            f"{'gold':>6} {'pred':>6}"
        )
        print(_row("dev (auto)", dev_ev))
        print(_row("unseen people", unseen_ev))
        print()
        print("entity recall by identifier type (exact / partial, gold spans):")
        for name, ev in (("dev (auto)", dev_ev), ("unseen people", unseen_ev)):
            cells = [
                f"{kind} {r['exact']:.3f} / {r['partial']:.3f} ({int(r['support'])})"
                for kind, r in ev.recall_by_identifier_type.items()
            ]
            print(f"{name:<14} " + "   ".join(cells))
        print()
        print(
            f"exact_f1_unseen={unseen_ev.exact.f1:.4f} "
            f"partial_f1_unseen={unseen_ev.partial.f1:.4f} "
            f"exact_f1_dev={dev_ev.exact.f1:.4f}"
        )


if __name__ == "__main__":
    main()
