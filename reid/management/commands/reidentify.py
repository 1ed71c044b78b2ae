"""``manage.py reidentify``: rank each document's person among a knowledge base's profiles.

Writes ``{doc_id: {"rank", "ranks", "top", "top_model"}}``: ``rank`` is the best rank any
model of the ensemble gives the target (the attacker's best; 1 = re-identified),
``ranks`` each model's, ``top`` the highest-scoring profiles ``[[profile_id, score], ...]``
of the model that ranks the target best. Prints the ensemble re-identification rate (seed
004: a document is re-identified when any model ranks its person first) and the share of
words masked. No database needed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from django.core.management.base import BaseCommand, CommandError, CommandParser

from reid.management.commands._reid_io import (
    build_ensemble,
    model_names,
    read_documents,
    read_masks,
    read_profiles,
    reid_documents,
)

BATCH = 32


class Command(BaseCommand):
    help = (
        "Rank every document's target person (its `target` profile id) among the profiles "
        "of a knowledge base, under optional masks; write the ranks as JSON."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--model", default=None, help="dense model directory (train_reid)")
        parser.add_argument("--kb", required=True, help="knowledge base (JSONL profiles)")
        parser.add_argument("--input", required=True, help="TAB-style documents with target")
        parser.add_argument("--masks", default=None, help="TAB masks {doc_id: [[start, end]]}")
        parser.add_argument("--output", required=True, help="where to write the ranks JSON")
        parser.add_argument(
            "--models",
            default=None,
            help="comma-separated ensemble (default: bm25, plus dense with --model)",
        )
        parser.add_argument("--top", type=int, default=5, help="profiles listed per document")

    def handle(self, *args: Any, **options: Any) -> None:
        from sanitizer.reid.base import rank_of
        from sanitizer.reid.words import share_masked

        if options["top"] < 0:
            raise CommandError("--top must not be negative")
        names = model_names(options.get("models"), options.get("model"))
        profiles = read_profiles(options["kb"])
        documents, skipped = reid_documents(read_documents(options["input"]), profiles)
        if not documents:
            raise CommandError(f"{options['input']}: no document has a target in {options['kb']}")
        masks = read_masks(options.get("masks"))
        models = build_ensemble(names, profiles, options.get("model"))
        columns = {m.name: {pid: j for j, pid in enumerate(m.profile_ids)} for m in models}
        out: dict[str, dict[str, Any]] = {}
        shares: list[float] = []
        for offset in range(0, len(documents), BATCH):
            batch = documents[offset : offset + BATCH]
            texts = [d.text for d in batch]
            batch_masks = [masks.get(d.doc_id, []) for d in batch]
            scores = {m.name: (m, m.scores(texts, batch_masks)) for m in models}
            for row, doc in enumerate(batch):
                ranks: dict[str, int] = {}
                for name, (_model, matrix) in scores.items():
                    ranks[name] = rank_of(matrix[row], columns[name][doc.target])
                best = min(ranks, key=lambda n: ranks[n])
                model, matrix = scores[best]
                order = np.argsort(-matrix[row], kind="stable")[: options["top"]]
                out[doc.doc_id] = {
                    "rank": ranks[best],
                    "ranks": ranks,
                    "top_model": best,
                    "top": [[model.profile_ids[j], float(matrix[row][j])] for j in order],
                }
                shares.append(share_masked(doc.text, batch_masks[row]))
        Path(options["output"]).write_text(json.dumps(out, indent=1), encoding="utf-8")
        reidentified = sum(1 for r in out.values() if r["rank"] == 1)
        rate = reidentified / len(out)
        if skipped:
            self.stderr.write(f"skipped {skipped} documents without a target in the KB")
        self.stdout.write(
            f"ensemble ({', '.join(names)}) re-identified {reidentified} of {len(out)} documents"
        )
        self.stdout.write(f"reidentification_rate={rate:.4f}")
        self.stdout.write(f"share_masked={float(np.mean(shares)):.4f}")
