"""``manage.py distant_label``: k-anonymity masks from a knowledge base (distant supervision).

Writes ``{doc_id: [[start, end], ...]}`` and, with ``--explain``, each masked term
with the combination of terms that forced it and how many persons share it.
Touches no database: all the work is :func:`sanitizer.kanon.labelling.label_file`.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from sanitizer.kanon.algorithm import selection_functions
from sanitizer.kanon.kb import kb_readers
from sanitizer.kanon.labelling import label_file


class Command(BaseCommand):
    help = "Label documents with the terms to mask for k-anonymity against a knowledge base."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--kb", default=None, help="knowledge base (JSONL profiles or Wikidata dump)"
        )
        parser.add_argument(
            "--kb-format",
            default=None,
            choices=kb_readers.names(),
            help="default: from the file name",
        )
        parser.add_argument(
            "--index-dir",
            default=None,
            help="load the index from here if present, else build it from --kb and save it here",
        )
        parser.add_argument("--input", required=True, help="documents: TAB JSON list or JSONL")
        parser.add_argument(
            "--output", required=True, help='masks JSON {"doc_id": [[start, end], ...]}'
        )
        parser.add_argument("--explain", default=None, help="write per-document explanations here")
        parser.add_argument("--k", type=int, default=5)
        parser.add_argument("--max-arity", type=int, default=3)
        parser.add_argument("--selection", default="greedy", choices=selection_functions.names())
        parser.add_argument("--seed", type=int, default=0, help="seed of the random selection")
        parser.add_argument(
            "--max-df",
            type=float,
            default=None,
            help="drop terms shared by more persons than this (a count, or a fraction if ≤ 1)",
        )
        parser.add_argument(
            "--known-fact",
            action="append",
            default=[],
            help="a fact the adversary always knows (repeatable); never masked",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["kb"] and not options["index_dir"]:
            raise CommandError("give --kb or an existing --index-dir")
        max_df: float | int | None = options["max_df"]
        if max_df is not None and max_df > 1:
            max_df = int(max_df)
        verbosity = int(options.get("verbosity", 1))

        def log(message: str) -> None:
            if verbosity >= 1:
                self.stderr.write(message)

        def progress(done: int, total: int | None, message: str) -> None:
            if verbosity >= 2:
                sys.stderr.write(f"{message}: {done}{'/' + str(total) if total else ''}\n")

        try:
            summary = label_file(
                options["input"],
                options["output"],
                kb_path=options["kb"],
                explain_path=options["explain"],
                index_dir=options["index_dir"],
                k=options["k"],
                max_arity=options["max_arity"],
                selection=options["selection"],
                seed=options["seed"],
                kb_format=options["kb_format"],
                max_df=max_df,
                known_facts=options["known_fact"],
                progress=progress,
                log=log,
            )
        except (OSError, ValueError, KeyError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"{summary['documents']} documents, {summary['masks']} masks → {options['output']}"
        )
