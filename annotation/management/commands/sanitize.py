"""``manage.py sanitize``: mask TAB-format documents with the recognizer (no database needed).

``--strategy`` accepts every name in ``sanitizer.recognizer.registry.strategy_registry``: a
module added to ``sanitizer/recognizer/strategies/`` is a choice here without further edits.

``--strategy risk`` takes the dial's settings (``--measures``, ``--threshold``, ``--max-arity``,
``--k``, ``--kb``, ``--background``) and ``--explain`` writes every mask's reasons and every
risky combination. ``--measures supervised`` needs ``--risk-model DIR`` (made by
``manage.py train_risk``; ``--risk-model`` alone adds ``supervised`` to the default measures);
``--mlm DIR`` makes the ``lm`` measure and the solver's IC read entities in context with a
masked LM (a local directory, e.g. made by ``manage.py train_mlm``, or a cached hub name).

``--strategy reid`` masks greedily until no model of the re-identification ensemble ranks
each document's person (its ``target`` profile id) in the top ``--k`` of ``--kb``: BM25,
plus the dense model ``--model DIR`` (made by ``manage.py train_reid``); ``--reid-models``
names the ensemble instead, ``--start risk`` starts from the risk solver's masks.

Each strategy takes its own options (``STRATEGY_OPTIONS``); an option given to a strategy
that does not read it is refused rather than silently ignored.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from sanitizer.recognizer.registry import strategy_registry

# Settings the risk strategy reads (named as RiskOptions fields, plus "background").
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
# The reid strategy's settings: command option -> the strategy's option name.
REID_OPTIONS = {"kb": "kb", "k": "k", "model": "model", "reid_models": "models", "start": "start"}
# Per strategy, the options it takes (command option -> strategy option); --kb and --k are
# shared by risk and reid.
STRATEGY_OPTIONS: dict[str, dict[str, str]] = {
    "risk": {name: name for name in RISK_OPTIONS},
    "reid": REID_OPTIONS,
}
ALL_OPTIONS = tuple(dict.fromkeys(n for table in STRATEGY_OPTIONS.values() for n in table))


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
        risk.add_argument(
            "--kb",
            default=None,
            help="knowledge base (JSONL profiles): risk's kb measure, reid's candidate people",
        )
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
        risk.add_argument(
            "--k",
            type=int,
            default=None,
            help="risk (kb): risky when < k persons share; reid: mask until every model ranks "
            "the target below the top k (default 10)",
        )
        reid = parser.add_argument_group("re-identification strategy (--strategy reid)")
        reid.add_argument(
            "--model", default=None, help="dense re-identification model directory (train_reid)"
        )
        reid.add_argument(
            "--reid-models",
            default=None,
            help="comma-separated ensemble, e.g. bm25,dense (default: bm25, plus dense with "
            "--model); --kb names the candidate profiles (required)",
        )
        reid.add_argument(
            "--start",
            default=None,
            choices=("none", "risk"),
            help="start from no masks (default) or from the risk solver's masks",
        )
        parser.add_argument(
            "--explain", default=None, help="where to write every mask's reasons (JSON)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Run the recognizer over the input file and write the masks."""
        from sanitizer.recognizer import sanitize_file

        settings = _strategy_settings(options["strategy"], options)
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


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _strategy_settings(strategy: str, options: dict[str, Any]) -> dict[str, Any]:
    """The strategy's settings from the given options; options it does not take are an error
    naming the strategies that do."""
    # .get: callers of handle() (tests, call_command) may pass only the original options.
    given = [name for name in ALL_OPTIONS if options.get(name) is not None]
    accepted = STRATEGY_OPTIONS.get(strategy, {})
    misplaced: dict[tuple[str, ...], list[str]] = {}
    for name in given:
        if name not in accepted:
            takers = tuple(s for s, table in STRATEGY_OPTIONS.items() if name in table)
            misplaced.setdefault(takers, []).append(_flag(name))
    if misplaced:
        raise CommandError(
            "; ".join(
                f"{', '.join(flags)}: only --strategy {' or '.join(takers)} takes these options"
                for takers, flags in misplaced.items()
            )
        )
    return {accepted[name]: options[name] for name in given}
