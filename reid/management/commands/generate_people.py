"""``manage.py generate_people``: generated people and biographies of them (no database).

Writes ``kb.jsonl`` (the profile format knowledge bases import) and ``docs.json`` (TAB
style: ``doc_id``, ``text`` and ``target``, the profile id of the person the biography is
about) with :func:`sanitizer.kanon.synthetic.generate_dataset`. The same seed gives the
same people; a different seed, different ones (for held-out knowledge bases).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

STYLES = ("short", "long")


class Command(BaseCommand):
    help = "Generate a knowledge base of people and TAB-style biographies with their target."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--people", type=int, required=True, help="profiles in kb.jsonl")
        parser.add_argument(
            "--docs", type=int, required=True, help="biographies of people of the KB"
        )
        parser.add_argument("--seed", type=int, default=0, help="default: %(default)s")
        parser.add_argument("--out", required=True, help="directory to write into")
        parser.add_argument(
            "--style",
            choices=STYLES,
            default="short",
            help="short biographies (a few facts) or long ones (~150 words; default: %(default)s)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from sanitizer.kanon.synthetic import generate_dataset

        people, docs = options["people"], options["docs"]
        if people < 1:
            raise CommandError("--people must be at least 1")
        if not 0 <= docs <= people:
            raise CommandError("--docs must be from 0 to --people (one biography per person)")
        try:
            dataset = generate_dataset(
                options["out"],
                n_people=people,
                n_docs=docs,
                seed=options["seed"],
                style=options["style"],
            )
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"wrote {dataset.n_people} people to {dataset.kb_path} and {dataset.n_docs_in_kb} "
            f"biographies to {dataset.docs_path}"
        )
