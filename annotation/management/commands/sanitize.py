"""``manage.py sanitize``: mask TAB-format documents with the recognizer (no database needed).

``--strategy`` accepts every name in ``sanitizer.recognizer.registry.strategy_registry``: a
module added to ``sanitizer/recognizer/strategies/`` is a choice here without further edits.

``--strategy risk`` takes the dial's settings (``--measures``, ``--threshold``, ``--max-arity``,
``--k``, ``--kb``, ``--background``) and ``--explain`` writes every mask's reasons and every
risky combination. ``--measures supervised`` needs ``--risk-model DIR`` (made by
``manage.py train_risk``; ``--risk-model`` alone adds ``supervised`` to the default measures);
``--mlm DIR`` makes the ``lm`` measure and the solver's IC read entities in context with a
masked LM (a local directory, e.g. made by ``manage.py train_mlm``, or a cached hub name).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from sanitizer.recognizer.registry import strategy_registry

# Settings only the risk strategy reads (named as RiskOptions fields, plus "background").
RISK_OPTIONS = (
    "measures",
    "risk_model",
    "supervised_threshold",
    "mlm",
    "kb",
    "background",
    "threshold",
    "max_arity",
    "k",
)


class Command(BaseCommand):
    """Parse options and delegate to ``sanitizer.recognizer.sanitize_file``."""

    help = (
        "Detect entities in TAB-format documents (JSON list with doc_id and text) and write "
        "TAB masks {doc_id: [[start, end], ...]}."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        """Declare --input, --output, --strategy, the risk settings and --explain."""
        parser.add_argument("--input", required=True, help="TAB-format documents JSON")
        parser.add_argument("--output", required=True, help="where to write the masks JSON")
        parser.add_argument(
            "--strategy",
            default="mask-all",
            # Every registered strategy, plugins included (sanitizer.recognizer.strategies).
            choices=strategy_registry.names(),
            help="which detected entities to mask (default: %(default)s)",
        )
        risk = parser.add_argument_group("risk strategy (--strategy risk)")
        risk.add_argument(
            "--measures",
            default=None,
            help="comma-separated risk measures: lm, linkage, kb, supervised; "
            "default: lm,linkage (plus kb with --kb, supervised with --risk-model)",
        )
        risk.add_argument(
            "--risk-model", default=None, help="supervised risk model directory (train_risk)"
        )
        risk.add_argument(
            "--supervised-threshold",
            type=float,
            default=None,
            help="supervised: risky when p(mask) >= P (default: the model's, 0.5)",
        )
        risk.add_argument("--mlm", default=None, help="masked LM for lm/IC (train_mlm directory)")
        risk.add_argument("--kb", default=None, help="knowledge base (JSONL profiles) for kb")
        risk.add_argument(
            "--background",
            default=None,
            help="documents JSON the linkage measure searches (default: the other inputs)",
        )
        risk.add_argument(
            "--threshold", type=float, default=None, help="lm: risky when log p < -T (nats)"
        )
        risk.add_argument(
            "--max-arity", type=int, default=None, help="largest combination linkage/kb test"
        )
        risk.add_argument("--k", type=int, default=None, help="kb: risky when < k persons share")
        parser.add_argument(
            "--explain", default=None, help="where to write every mask's reasons (JSON)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Run the recognizer over the input file and write the masks."""
        from sanitizer.recognizer import sanitize_file

        # .get: callers of handle() (tests, call_command) may pass only the original options.
        settings = {name: options[name] for name in RISK_OPTIONS if options.get(name) is not None}
        if settings and options["strategy"] != "risk":
            given = ", ".join("--" + name.replace("_", "-") for name in settings)
            raise CommandError(f"{given}: only --strategy risk takes these options")
        try:
            masks = sanitize_file(
                options["input"],
                options["output"],
                options["strategy"],
                options=settings,
                explain_path=options.get("explain"),
            )
        except (OSError, ValueError, KeyError) as exc:
            raise CommandError(str(exc)) from exc
        total = sum(len(v) for v in masks.values())
        self.stdout.write(f"wrote {total} masks for {len(masks)} documents to {options['output']}")
