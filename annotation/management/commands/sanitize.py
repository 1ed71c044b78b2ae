"""``manage.py sanitize``: mask TAB-format documents with the recognizer (no database needed)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


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
            choices=["mask-all", "most-specific"],
            help="which detected entities to mask",
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
