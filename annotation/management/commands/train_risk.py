"""``manage.py train_risk``: train the supervised risk model on the decisions in a TAB file.

The recognizer runs over the documents, its entities are labelled by the annotators' majority
(:mod:`sanitizer.risk.supervised.labels`) and the default model, gradient boosting over
general features, is fitted and stored in ``--output`` with its cross-validated metrics
(:mod:`sanitizer.risk.supervised.training`). ``sanitize --strategy risk --measures supervised
--risk-model DIR`` then uses it. No database is needed.

``--base-model NAME_OR_PATH`` (``default`` = the bundled MiniLM) trains the transformer
classifier instead (:mod:`sanitizer.risk.supervised.transformer`), ``--epochs N`` sets its
schedule (short CPU default) and its metrics are on a held-out share of the documents.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


def parse_range(text: str, total: int) -> slice:
    """``"0:60"`` → documents 0..59 (file order, end exclusive; either bound may be empty)."""
    start_text, sep, end_text = text.partition(":")
    try:
        start = int(start_text) if start_text.strip() else 0
        end = int(end_text) if sep and end_text.strip() else total
    except ValueError as exc:
        raise CommandError(f"--documents {text!r}: expected START:END, e.g. 0:60") from exc
    if not sep or not 0 <= start < end <= total:
        raise CommandError(f"--documents {text!r}: expected START:END within 0:{total}")
    return slice(start, end)


class Command(BaseCommand):
    """Parse options, run the recognizer, train and store the model."""

    help = "Train the supervised risk classifier on the human decisions of a TAB file."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        """Declare --gold, --output, --documents, --folds, --threshold and the transformer's."""
        parser.add_argument("--gold", required=True, help="TAB-format documents with annotations")
        parser.add_argument("--output", required=True, help="model directory to write")
        parser.add_argument(
            "--documents", default=None, help="train on part of the file: START:END (e.g. 0:60)"
        )
        parser.add_argument("--folds", type=int, default=5, help="cross-validation folds")
        parser.add_argument(
            "--threshold", type=float, default=None, help="p(mask) stored as the model's default"
        )
        parser.add_argument(
            "--base-model",
            default=None,
            help="train the transformer classifier on this encoder (a local directory or "
            "cached name; 'default' = the bundled MiniLM)",
        )
        parser.add_argument("--epochs", type=int, default=None, help="transformer epochs")

    def handle(self, *args: Any, **options: Any) -> None:
        """Train and write the model directory; print its training summary and metrics."""
        from sanitizer.recognizer.pipeline import build_recognizer
        from sanitizer.risk.supervised.model import DEFAULT_SUPERVISED_THRESHOLD
        from sanitizer.risk.supervised.training import labelled_documents, train_risk_model

        base_model = options.get("base_model")
        if options.get("epochs") is not None and not base_model:
            self.stderr.write("--epochs is ignored: the gradient-boosting model has no epochs")
        gold = Path(options["gold"])
        try:
            docs = json.loads(gold.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CommandError(f"{gold}: {exc}") from exc
        if not isinstance(docs, list) or not docs:
            raise CommandError(f"{gold}: expected a non-empty JSON list of TAB documents")
        if options.get("documents"):
            docs = docs[parse_range(options["documents"], len(docs))]
        threshold = options.get("threshold")
        threshold = DEFAULT_SUPERVISED_THRESHOLD if threshold is None else threshold
        if not 0 <= threshold <= 1:
            raise CommandError(f"--threshold is a probability, got {threshold}")
        try:
            recognizer = build_recognizer()
            predictions = recognizer.predict_batch([str(d["text"]) for d in docs])
            spans = {str(d["doc_id"]): p for d, p in zip(docs, predictions, strict=True)}
            source = f"{gold.name} [{options.get('documents') or 'all'}]"
            labelled = labelled_documents(docs, spans)
            model = (
                _train_transformer(labelled, base_model, options.get("epochs"), threshold, source)
                if base_model
                else train_risk_model(
                    labelled, folds=options["folds"], threshold=threshold, source=source
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CommandError(f"{gold}: {exc}") from exc
        target = model.save(options["output"])
        summary = {"training": model.config["training"], "metrics": model.config["metrics"]}
        self.stdout.write(f"wrote the supervised risk model to {target}")
        self.stdout.write(json.dumps(summary, indent=1))


def _train_transformer(
    labelled: Any, base_model: str, epochs: int | None, threshold: float, source: str
) -> Any:
    """The transformer classifier (torch and transformers imported only when asked for)."""
    from sanitizer.risk.supervised.transformer import (
        TransformerRiskParams,
        train_transformer_risk_model,
    )

    if epochs is not None and epochs < 1:
        raise CommandError(f"--epochs must be at least 1, got {epochs}")
    params = TransformerRiskParams() if epochs is None else TransformerRiskParams(epochs=epochs)
    try:
        return train_transformer_risk_model(
            labelled,
            base_model=None if base_model == "default" else base_model,
            params=params,
            threshold=threshold,
            source=source,
        )
    except OSError as exc:  # not a local directory nor in the offline cache
        raise CommandError(f"--base-model {base_model}: {exc}") from exc
