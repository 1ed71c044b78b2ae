"""``manage.py reid_curve``: the ensemble re-identification rate against the share of words
masked, for every masking method (seed 004 §6), as JSON and PNG.

Methods (``sanitizer.reid.curve``): no masking, spaCy NER mask-all, the recognizer's
mask-all, k-anonymity distant labels (k = 2, 5, 10), the risk/CP-SAT strategy, and greedy
de-identification at each ``--k-values``. Greedy masks against ``--models`` (default BM25,
plus the dense model of ``--model``); every method is measured by ``--eval-models``
(default: those plus the independent character n-gram attacker ``tfidf-char``). Writes
``reid_curve.json`` (``{"points": [...]}``) and ``reid_curve.png`` into ``--output-dir``.
No database needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reid.management.commands._reid_io import (
    build_ensemble,
    model_names,
    read_documents,
    read_profiles,
    reid_documents,
)

INDEPENDENT_ATTACKER = "tfidf-char"


def _int_list(value: str) -> list[int]:
    try:
        values = [int(v) for v in value.replace(",", " ").split()]
    except ValueError as exc:
        raise CommandError(f"not a list of integers: {value!r}") from exc
    if not values or any(v < 1 for v in values):
        raise CommandError(f"expected positive integers: {value!r}")
    return values


class Command(BaseCommand):
    help = "Plot the ensemble re-identification rate against words masked for each method."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        from sanitizer.reid.curve import GREEDY_KS, KANON_KS, METHODS

        parser.add_argument("--model", default=None, help="dense model directory (train_reid)")
        parser.add_argument("--kb", required=True, help="knowledge base (JSONL profiles)")
        parser.add_argument("--input", required=True, help="TAB-style documents with target")
        parser.add_argument("--output-dir", required=True, help="where to write JSON and PNG")
        parser.add_argument(
            "--k-values",
            default=",".join(map(str, GREEDY_KS)),
            help="greedy de-identification's K values (default: %(default)s)",
        )
        parser.add_argument(
            "--kanon-k-values",
            default=",".join(map(str, KANON_KS)),
            help="k of the k-anonymity points (default: %(default)s)",
        )
        parser.add_argument(
            "--methods",
            default=",".join(METHODS),
            help="comma-separated methods (default: %(default)s)",
        )
        parser.add_argument(
            "--models",
            default=None,
            help="the ensemble greedy masks against (default: bm25, plus dense with --model)",
        )
        parser.add_argument(
            "--eval-models",
            default=None,
            help=f"the ensemble that measures (default: --models plus {INDEPENDENT_ATTACKER})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from sanitizer.reid.curve import compute_curve, format_table
        from sanitizer.reid.evaluate import curve_json, curve_png

        model_dir = options.get("model")
        greedy_names = model_names(options.get("models"), model_dir)
        eval_names = (
            model_names(options["eval_models"], model_dir)
            if options.get("eval_models")
            else list(dict.fromkeys([*greedy_names, INDEPENDENT_ATTACKER]))
        )
        methods = [m.strip() for m in options["methods"].split(",") if m.strip()]
        profiles = read_profiles(options["kb"])
        raw_docs = read_documents(options["input"])
        docs, skipped = reid_documents(raw_docs, profiles)
        if not docs:
            raise CommandError(f"{options['input']}: no document has a target in {options['kb']}")
        if skipped:
            self.stderr.write(f"skipped {skipped} documents without a target in the KB")
        built = {
            m.name: m
            for m in build_ensemble(
                list(dict.fromkeys([*greedy_names, *eval_names])), profiles, model_dir
            )
        }
        try:
            points = compute_curve(
                raw_docs,
                [built[n] for n in eval_names],
                greedy_models=[built[n] for n in greedy_names],
                kb_path=options["kb"],
                methods=methods,
                greedy_ks=_int_list(options["k_values"]),
                kanon_ks=_int_list(options["kanon_k_values"]),
                progress=lambda message: self.stderr.write(message),
            )
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        out = Path(options["output_dir"])
        out.mkdir(parents=True, exist_ok=True)
        curve_json(points, out / "reid_curve.json")
        curve_png(points, out / "reid_curve.png")
        self.stdout.write(format_table(points))
        self.stdout.write(f"wrote {out / 'reid_curve.json'} and {out / 'reid_curve.png'}")
