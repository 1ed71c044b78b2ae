"""``manage.py sanitize``: mask TAB-format documents with the recognizer (no database needed).

``--strategy`` accepts every name in ``sanitizer.recognizer.registry.strategy_registry``: a
module added to ``sanitizer/recognizer/strategies/`` is a choice here without further edits.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from sanitizer.recognizer.registry import strategy_registry


class Command(BaseCommand):
    """Parse options and delegate to ``sanitizer.recognizer.sanitize_file``."""

    help = (
        "Detect entities in TAB-format documents (JSON list with doc_id and text) and write "
        "TAB masks {doc_id: [[start, end], ...]}."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        """Declare --input, --output and --strategy."""
        parser.add_argument("--input", required=True, help="TAB-format documents JSON")
        parser.add_argument("--output", required=True, help="where to write the masks JSON")
        parser.add_argument(
            "--strategy",
            default="mask-all",
            # Every registered strategy, plugins included (sanitizer.recognizer.strategies).
            choices=strategy_registry.names(),
            help="which detected entities to mask (default: %(default)s)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Run the recognizer over the input file and write the masks."""
        from sanitizer.recognizer import sanitize_file

        try:
            masks = sanitize_file(options["input"], options["output"], options["strategy"])
        except (OSError, ValueError, KeyError) as exc:
            raise CommandError(str(exc)) from exc
        total = sum(len(v) for v in masks.values())
        self.stdout.write(f"wrote {total} masks for {len(masks)} documents to {options['output']}")
