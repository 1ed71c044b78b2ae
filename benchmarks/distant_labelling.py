"""Benchmark of distant labelling: synthetic KB → index + gazetteer → Algorithm 1.

Generates ``--people`` synthetic profiles and ``--docs`` biographies into a
temporary directory, builds the inverted index and gazetteer from the JSONL
knowledge base (timed: ``build_s``), saves and reloads the index, labels the
documents (``docs_per_s``) and prints the process's peak RSS (``peak_mb``). The
last line is ``build_s=<float> peak_mb=<float> docs_per_s=<float>``.

Run: ``python benchmarks/distant_labelling.py --people 1000000 --docs 10000``.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanitizer.kanon.gazetteer import Gazetteer
from sanitizer.kanon.index import InvertedIndex, build_index
from sanitizer.kanon.kb import read_jsonl_profiles
from sanitizer.kanon.labelling import label_document
from sanitizer.kanon.synthetic import generate_dataset


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def dir_size_mb(path: Path) -> float:
    """Total size of the files under ``path`` in MiB."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--people", type=int, default=100_000)
    ap.add_argument("--docs", type=int, default=2_000)
    ap.add_argument("--outside", type=float, default=0.1, help="share of docs about non-KB people")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--max-arity", type=int, default=3)
    ap.add_argument("--selection", default="greedy")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", default=None, help="keep data here instead of a temp dir")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="distant_bench_") as tmp:
        work = Path(args.workdir or tmp)
        n_out = int(args.docs * args.outside)
        t0 = time.perf_counter()
        ds = generate_dataset(work, args.people, args.docs - n_out, n_out, seed=args.seed)
        gen_s = time.perf_counter() - t0
        kb_mb = ds.kb_path.stat().st_size / 2**20
        print(
            f"generated {args.people} people ({kb_mb:.1f} MiB) + {args.docs} docs in {gen_s:.1f}s"
        )
        print(f"peak_mb_after_generation={peak_rss_mb():.1f}")

        t0 = time.perf_counter()
        index = build_index(read_jsonl_profiles(ds.kb_path))
        t_index = time.perf_counter() - t0
        gaz = Gazetteer.from_terms(index.terms)
        build_s = time.perf_counter() - t0
        print(
            f"index: {index.n_persons} persons, {index.n_terms} terms in {t_index:.1f}s; "
            f"gazetteer {build_s - t_index:.1f}s"
        )
        print(f"peak_mb_after_build={peak_rss_mb():.1f}")

        t0 = time.perf_counter()
        index_dir = work / "index"
        index.save(index_dir)
        gaz.save(index_dir / "gazetteer.pkl")
        save_s = time.perf_counter() - t0
        gaz_mb = (index_dir / "gazetteer.pkl").stat().st_size / 2**20
        index_mb = dir_size_mb(index_dir) - gaz_mb
        print(f"saved in {save_s:.1f}s: index {index_mb:.1f} MiB, gazetteer {gaz_mb:.1f} MiB")
        # Drop the built structures before reloading so peak RSS reflects one copy.
        del index
        del gaz
        t0 = time.perf_counter()
        index = InvertedIndex.load(index_dir)
        load_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        gaz = Gazetteer.load(index_dir / "gazetteer.pkl", index.terms)
        print(f"reload: index {load_s:.1f}s, gazetteer {time.perf_counter() - t1:.1f}s")

        docs = json.loads(ds.docs_path.read_text(encoding="utf-8"))
        n_masks = 0
        n_found = 0
        t0 = time.perf_counter()
        for doc in docs:
            labels = label_document(
                doc["text"],
                index,
                gaz,
                args.k,
                args.max_arity,
                args.selection,
                args.seed,
                doc_id=doc["doc_id"],
            )
            n_masks += len(labels.masks)
            n_found += len({o.term for o in labels.occurrences})
        label_s = time.perf_counter() - t0
        docs_per_s = len(docs) / label_s if label_s > 0 else float("inf")
        print(
            f"labelled {len(docs)} docs in {label_s:.2f}s: {n_found / max(1, len(docs)):.1f} "
            f"found terms/doc, {n_masks / max(1, len(docs)):.1f} masks/doc"
        )
        print(f"build_s={build_s:.2f} peak_mb={peak_rss_mb():.1f} docs_per_s={docs_per_s:.1f}")


if __name__ == "__main__":
    main()
