"""``manage.py evaluate``: TAB metrics of a masks file against a TAB gold file.

Prints one JSON object (``ER_all``, ``ER_direct``, ``ER_quasi``, ``token_recall``,
``token_recall_by_type``, ``mention_recall``, ``token_precision``,
``token_precision_weighted``, ``mention_precision``, ``F1``, ``weighting``,
``counts``). Touches no database: all the work is
:func:`sanitizer.evaluation.evaluate_files`.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from sanitizer.evaluation import DEFAULT_WEIGHTING, evaluate_files, token_weightings


class Command(BaseCommand):
    help = "Print TAB evaluation metrics (JSON) of system masks against TAB gold annotations."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--gold", required=True, help="TAB JSON file (list of documents)")
        parser.add_argument(
            "--masks", required=True, help='JSON {"doc_id": [[start, end], ...], ...}'
        )
        parser.add_argument(
            "--weighting",
            default=DEFAULT_WEIGHTING,
            choices=token_weightings.names(),
            help="token weighting for the weighted precision (default: %(default)s)",
        )
        parser.add_argument(
            "--mlm-path",
            default=None,
            help="local masked-LM directory, for --weighting masked_lm (never downloaded)",
        )
        parser.add_argument(
            "--skip-missing",
            action="store_true",
            help="ignore gold documents absent from the masks (default: score them unmasked)",
        )
        parser.add_argument(
            "--drop-ignorable-tokens",
            action="store_true",
            help='leave tokens such as "the"/"Mr" out of token recall (TAB counts them masked)',
        )
        parser.add_argument("--indent", type=int, default=None, help="JSON indentation")

    def handle(self, *args: Any, **options: Any) -> None:
        weighting_options: dict[str, Any] = {}
        if options["weighting"] == "masked_lm":
            weighting_options["model_path"] = options["mlm_path"]
        try:
            result = evaluate_files(
                options["gold"],
                options["masks"],
                weighting=options["weighting"],
                weighting_options=weighting_options,
                skip_missing_documents=options["skip_missing"],
                drop_ignorable_tokens=options["drop_ignorable_tokens"],
            )
        except (OSError, ValueError, KeyError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(result, indent=options["indent"], sort_keys=False))
