"""``manage.py train_reid``: train the dense re-identifier (seed 004 §5) from files.

The documents (TAB-style JSON with a ``target`` profile id, e.g. from ``generate_people``)
are matched against every profile of ``--kb``; a share of the people is held out for the
metrics (top-1/top-10, unmasked and 30% masked), which are printed and kept in
``DIR/reid.json``. No database needed.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reid.management.commands._reid_io import read_documents, read_profiles, reid_documents

MAX_EPOCHS = 50


class Command(BaseCommand):
    help = "Train the dense re-identification model on documents with a target profile."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--kb", required=True, help="knowledge base (JSONL profiles)")
        parser.add_argument("--docs", required=True, help="TAB-style documents with target")
        parser.add_argument("--output", required=True, help="model directory to write")
        parser.add_argument("--epochs", type=int, default=4, help="default: %(default)s")
        parser.add_argument(
            "--base-model", default=None, help="encoder to start from (default: bundled MiniLM)"
        )
        parser.add_argument("--batch-size", type=int, default=32, help="default: %(default)s")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--device", default=None, help="cpu, cuda... (default: best)")

    def handle(self, *args: Any, **options: Any) -> None:
        from sanitizer.reid.training import train_dense

        if not 1 <= options["epochs"] <= MAX_EPOCHS:
            raise CommandError(f"--epochs must be from 1 to {MAX_EPOCHS}")
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be positive")
        profiles = read_profiles(options["kb"])
        documents, skipped = reid_documents(read_documents(options["docs"]), profiles)
        if skipped:
            self.stderr.write(f"skipped {skipped} documents without a target in the KB")

        def progress(done: int, total: int | None, message: str) -> None:
            if message:
                self.stderr.write(f"[{done}/{total or '?'}] {message}")

        try:
            result = train_dense(
                profiles,
                documents,
                options["output"],
                epochs=options["epochs"],
                base_model=options.get("base_model"),
                batch_size=options["batch_size"],
                seed=options["seed"],
                device=options.get("device"),
                progress=progress,
            )
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"saved {result.model_dir} (version {result.version})")
        self.stdout.write(json.dumps(result.metrics, indent=1, sort_keys=True))
