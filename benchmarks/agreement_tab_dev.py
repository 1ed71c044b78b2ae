"""Inter-annotator agreement of the multi-annotated TAB dev documents, at project level.

Prints Light's kappa (mean pairwise Cohen's kappa) and Krippendorff's alpha at character
level (identifier type and masked / not masked; all non-whitespace characters and only
annotated characters) and at span level, then span F1 pooled over all annotator pairs
(exact / overlap, untyped / same identifier type; all spans and masked spans only), with
the number of documents, pairs and units behind each figure, and the wall time.
Seed 000 Table 1 (20 Wikipedia biographies, 2 annotators each) is printed for reference.

Usage: ``.venv/bin/python benchmarks/agreement_tab_dev.py [--data PATH] [--matrix]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sanitizer.agreement import (
    Agreement,
    agreement_matrix,
    agreement_report,
    document_from_tab,
    pooled_span_f1,
)

DEFAULT_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "tab_dev.json"
SEED_000_TABLE_1 = {"span": (0.44, 0.59), "character": (0.81, 0.73)}


def _fmt(value: float | None) -> str:
    return "  n/a" if value is None else f"{value:.3f}"


def main() -> None:
    """Parse arguments, compute the report and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--matrix", action="store_true", help="also print the pairwise char kappa matrix"
    )
    args = parser.parse_args()

    started = time.perf_counter()
    with args.data.open(encoding="utf-8") as handle:
        documents = [document_from_tab(raw) for raw in json.load(handle)]
    loaded = time.perf_counter()
    report = agreement_report(documents, scopes=("all", "annotated"))
    masked_f1 = [
        pooled_span_f1(
            [d for d in documents if len(d.annotations) > 1],
            match=match,
            typed=False,
            identifier_types=("DIRECT", "QUASI"),
        )
        for match in ("exact", "overlap")
    ]
    finished = time.perf_counter()

    print(
        f"{args.data.name}: {len(documents)} documents, {report.n_documents} with 2+ annotators "
        f"({report.n_skipped_documents} single-annotator skipped), "
        f"{len(report.annotators)} annotators"
    )
    print()
    print(
        f"{'level':<10} {'labels':<11} {'scope':<10} {'kappa':>6} {'pairs':>5} "
        f"{'alpha':>6} {'units(alpha)':>12} {'docs':>5}"
    )
    by_key: dict[tuple[str, str, str | None], dict[str, Agreement]] = {}
    for item in report.coefficients:
        by_key.setdefault((item.level, item.label_space, item.scope), {})[item.coefficient] = item
    for (level, space, scope), items in by_key.items():
        kappa, alpha = items["light_kappa"], items["krippendorff_alpha"]
        print(
            f"{level:<10} {space:<11} {scope or '-':<10} {_fmt(kappa.value):>6} "
            f"{kappa.n_pairs:>5} {_fmt(alpha.value):>6} "
            f"{alpha.n_units:>12} {alpha.n_documents:>5}"
        )
    print()
    print(f"{'span F1 (all pairs)':<28} {'F1':>6} {'matched':>8} {'spans':>7} {'pairs':>5}")
    rows = [(f"{f.match}{' +type' if f.typed else ''}", f) for f in report.span_f1]
    rows += [(f"{f.match} (DIRECT/QUASI only)", f) for f in masked_f1]
    for name, f1 in rows:
        print(
            f"{name:<28} {_fmt(f1.f1):>6} {f1.matched // 2:>8} "
            f"{f1.n_reference // 2:>7} {f1.n_pairs:>5}"
        )
    print()
    print("seed 000 Table 1 (Wikipedia biographies, identifier type):")
    for level, (kappa_ref, alpha_ref) in SEED_000_TABLE_1.items():
        print(f"  {level:<10} kappa {kappa_ref:.2f}  alpha {alpha_ref:.2f}")
    print()
    print(f"time: load {loaded - started:.2f} s, agreement {finished - loaded:.2f} s")

    if args.matrix:
        matrix = agreement_matrix(
            [d for d in documents if len(d.annotations) > 1], "cohen_kappa", level="character"
        )
        print()
        print("pairwise char kappa (identifier, all chars); blank = no shared document")
        print(" " * 16 + "".join(f"{f'[{i}]':>7}" for i in range(len(matrix.names))))
        for i, (name, row) in enumerate(zip(matrix.names, matrix.values, strict=True)):
            cells = "".join(f"{'':>7}" if v is None else f"{v:>7.3f}" for v in row)
            print(f"{f'[{i}] {name}':<16}{cells}")


if __name__ == "__main__":
    main()
