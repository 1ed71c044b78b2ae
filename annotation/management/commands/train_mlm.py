"""``manage.py train_mlm``: build the offline masked LM the ``lm`` risk measure can read.

The bundled MiniLM encoder (or ``--base-model``, a local directory or a cached hub name) gets
a masked-LM head and is fine-tuned on the text of ``--input`` (TAB-format documents: a JSON
list of objects with ``text``); :mod:`sanitizer.training.mlm` does the work. ``--output`` gets
the model, its tokenizer and ``mlm_summary.json`` (steps, loss, held-out top-5 accuracy and
perplexity before and after training). ``sanitize --strategy risk --mlm DIR`` then scores
entities in context with it. No database is needed and nothing is downloaded.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    """Parse options, train and save the masked LM, print its summary."""

    help = "Train a masked language model (MiniLM + MLM head) on the text of a documents file."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        """Declare --input, --output and the training settings."""
        parser.add_argument("--input", required=True, help="documents JSON (list with 'text')")
        parser.add_argument("--output", required=True, help="model directory to write")
        parser.add_argument(
            "--base-model", default=None, help="encoder directory or cached hub name (MiniLM)"
        )
        parser.add_argument("--epochs", type=int, default=None, help="passes over the text")
        parser.add_argument("--max-steps", type=int, default=None, help="cap optimizer steps")
        parser.add_argument("--batch-size", type=int, default=None)
        parser.add_argument("--learning-rate", type=float, default=None)
        parser.add_argument(
            "--holdout", type=float, default=None, help="share of documents kept for evaluation"
        )
        parser.add_argument("--seed", type=int, default=None)

    def handle(self, *args: Any, **options: Any) -> None:
        """Train, save, and print the summary (without the per-step losses)."""
        from sanitizer.training.mlm import MLMTrainingConfig, train_masked_lm

        path = Path(options["input"])
        try:
            docs = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CommandError(f"{path}: {exc}") from exc
        if not isinstance(docs, list) or not all(isinstance(d, dict) for d in docs):
            raise CommandError(f"{path}: expected a JSON list of documents with 'text'")
        texts = [str(d.get("text") or "") for d in docs]
        if not any(texts):
            raise CommandError(f"{path}: no document has text")
        names = ("base_model", "epochs", "max_steps", "batch_size", "learning_rate", "holdout")
        settings = {n: options[n] for n in (*names, "seed") if options.get(n) is not None}
        if settings.get("epochs", 1) < 1 or settings.get("max_steps", 1) < 1:
            raise CommandError("--epochs and --max-steps must be ≥ 1")
        try:
            summary = train_masked_lm(
                texts,
                options["output"],
                MLMTrainingConfig(**settings),
                log=lambda line: self.stderr.write(line),
            )
        except (ValueError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        data = asdict(summary)
        data.pop("losses")
        self.stdout.write(json.dumps(data, indent=2))
