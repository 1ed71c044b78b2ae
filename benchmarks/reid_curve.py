"""The privacy/utility curve of issue 11: ensemble re-identification rate vs words masked.

Either reads ``--kb KB.jsonl --docs DOCS.json`` (documents with a ``target``), or generates
``--people`` profiles and ``--n-docs`` biographies (``--style``, seed ``--seed``: keep it
different from the dense model's training seed so that the people are unseen). Every
method of :mod:`sanitizer.reid.curve` is measured by the evaluation ensemble
(``--eval-models``, default bm25 + dense + tfidf-char; tfidf-char is never consulted by the
greedy search, whose models are ``--greedy-models``, default bm25 + dense). Prints the
table and writes the points as JSON to ``OUTPUT`` and the plot next to it (``.png``).

Run: ``python benchmarks/reid_curve.py OUTPUT.json --model DIR [--n-docs 200]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanitizer.kanon.synthetic import generate_dataset
from sanitizer.reid.base import ReidModel, build_model
from sanitizer.reid.curve import GREEDY_KS, KANON_KS, METHODS, compute_curve, format_table
from sanitizer.reid.evaluate import curve_json, curve_png
from sanitizer.reid.profiles import load_profiles


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x.strip())


def _names(text: str | None, model: str | None, default: tuple[str, ...]) -> list[str]:
    names = [n.strip() for n in (text.split(",") if text else default) if n.strip()]
    return [n for n in names if n != "dense" or model]  # no dense without a model


def main(argv: list[str] | None = None) -> None:
    """Compute the curve, print the table, write JSON and PNG."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("output", help="curve JSON path (the PNG goes next to it)")
    ap.add_argument("--png", default=None, help="PNG path (default: OUTPUT with .png)")
    ap.add_argument("--model", default=None, help="dense model directory (train_reid)")
    ap.add_argument("--kb", default=None)
    ap.add_argument("--docs", default=None)
    ap.add_argument("--people", type=int, default=5000)
    ap.add_argument("--n-docs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--style", default="long")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--greedy-ks", default=",".join(map(str, GREEDY_KS)))
    ap.add_argument("--kanon-ks", default=",".join(map(str, KANON_KS)))
    ap.add_argument("--eval-models", default=None, help="default bm25,dense,tfidf-char")
    ap.add_argument("--greedy-models", default=None, help="default bm25,dense")
    ap.add_argument("--risk-measures", default=None, help="the risk strategy's measures")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="reid_curve_") as tmp:
        if args.kb and args.docs:
            kb_path, docs_path = Path(args.kb), Path(args.docs)
        else:
            ds = generate_dataset(
                Path(tmp) / "data", args.people, args.n_docs, seed=args.seed, style=args.style
            )
            kb_path, docs_path = ds.kb_path, ds.docs_path
        profiles = load_profiles(kb_path)
        docs = json.loads(docs_path.read_text(encoding="utf-8"))[: args.n_docs]
        print(f"{len(profiles)} profiles, {len(docs)} documents")
        t0 = time.perf_counter()
        built: dict[str, ReidModel] = {}

        def models(names: list[str]) -> list[ReidModel]:
            for n in names:
                if n not in built:
                    built[n] = build_model(n, profiles, model_dir=args.model)
            return [built[n] for n in names]

        eval_models = models(_names(args.eval_models, args.model, ("bm25", "dense", "tfidf-char")))
        greedy_models = models(_names(args.greedy_models, args.model, ("bm25", "dense")))
        print(f"models ready in {time.perf_counter() - t0:.1f}s")
        risk_options = {"measures": args.risk_measures} if args.risk_measures else None
        points = compute_curve(
            docs,
            eval_models,
            greedy_models=greedy_models,
            kb_path=str(kb_path),
            methods=[m.strip() for m in args.methods.split(",") if m.strip()],
            greedy_ks=_ints(args.greedy_ks),
            kanon_ks=_ints(args.kanon_ks),
            risk_options=risk_options,
            progress=lambda message: print(message, flush=True),
        )
    out = Path(args.output)
    png = Path(args.png) if args.png else out.with_suffix(".png")
    curve_json(points, out)
    curve_png(points, png)
    print(format_table(points))
    print(f"wrote {out} and {png}")


if __name__ == "__main__":
    main()
