"""Quality of the offline masked LM (``train_mlm``) and what it changes in the risk pipeline.

Fixed split of ``../shared/data/tab_dev.json`` as in ``risk_tab_dev.py``: the masked LM is
trained on the text of documents 0–59 (MiniLM encoder + fresh MLM head, ``--steps`` steps of
16 blocks of 128 tokens; 7–12 minutes on 2 CPU cores) and judged on documents 60–79, which it
never saw:

1. masked-token prediction on the held-out text (15% of tokens masked, 80/10/10, fixed
   seed): top-1/top-5 accuracy and perplexity for (a) MiniLM with its untrained head, (b) the
   trained model, (c) a unigram model of the training text over the same sub-word tokens
   (the context-free baseline that is comparable token for token);
2. entity surprisal: the mean −ln p of the recognizer's entities on the held-out documents,
   all entities masked at once, in nats per entity (``total``, the solver's IC) and of its
   worst word (``peak``, the ``lm`` measure's score), for the ``wordfreq`` scorer (the
   default) and both masked LMs. Lower is a better model of the text; higher is what
   makes an entity "risky";
3. the risk pipeline's TAB scores on the held-out part with ``--mlm`` against the default:
   ``lm`` and ``lm+linkage`` at the default threshold, the threshold chosen on the tune part
   (where the MLM's text was seen in training, so its surprisals are lower there) and the
   held-out threshold curve (reported, not used for choices).

Measured (200 steps, 706 s on 2 shared CPU cores; 2,790 masked held-out tokens)::

    1. masked tokens, docs 60–79       top1   top5    nll     ppl
    (a) MiniLM, untrained head         .000   .000   11.28   79372
    (b) MiniLM + head, trained         .338   .505    4.07      59
    (c) unigram of training text       .087   .208    6.69     806

    2. entity surprisal (1,093 entities)   total   peak   (nats, mean per entity)
    wordfreq (default)                     17.47   9.94
    mlm, untrained head                    34.76  17.46
    mlm, trained                           24.69  14.04

    3. held-out (60–79)            P     WP  ER_direct ER_quasi   F1   masked
    risk lm, wordfreq (t=9)      .832   .837    .996     .915    .874   .129
    risk lm, mlm (t=9)           .600   .628    .996     .610    .619   .116
    risk lm, mlm (t=6, tune)     .606   .630    .996     .906    .728   .180
    (lm+linkage: the same rows; linkage adds nothing on TAB)

The trained head learns the domain (top-5 .505 against .208 for the unigram model), but it
models entity text worse than wordfreq does (24.7 against 17.5 nats per entity: with every
entity masked at once, a name's pieces are predicted from context alone) and, above all,
ranks the wrong entities as risky: in context a date is predictable ("on 26 November 1996"
costs a few nats per word) while wordfreq's uniform numbers give every year 9.2 nats, so the
MLM keeps dates that TAB's annotators mask (ER_quasi .61 at t=9; .91 only at t=6, where
precision is .61). No threshold on either part reaches the wordfreq scorer's F1, so
``wordfreq`` stays the default and ``--mlm`` is an option. Letting tokens attend to the masked
positions (``block_attention=False``) is worse still: F1 .715/.645/.644 at t=4/6/9.

Usage: ``nice .venv/bin/python benchmarks/mlm_quality.py [--model DIR] [--steps N]
[--spans-cache /tmp/spans.json]`` (DIR is trained when it has no ``mlm_summary.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from benchmarks.risk_tab_dev import DEFAULT_DATA, TUNE_END, load_spans, print_table, row
from sanitizer.kanon.labelling import document_id
from sanitizer.risk.mlm import load_masked_lm
from sanitizer.risk.options import RiskOptions
from sanitizer.risk.pipeline import RiskMasker, risk_document
from sanitizer.risk.surprisal import SurprisalScorer, make_scorer
from sanitizer.training.config import default_base_model
from sanitizer.training.mlm import (
    SUMMARY_FILE,
    MaskedLMMetrics,
    MLMTrainingConfig,
    build_masked_lm,
    evaluate_masked_lm,
    make_blocks,
    mask_batch,
    train_masked_lm,
)
from sanitizer.types import EntitySpan

BLOCK = 128
EVAL_BLOCKS = 200


def unigram_metrics(
    tokenizer: Any, train: Sequence[list[int]], held: Sequence[list[int]]
) -> MaskedLMMetrics:
    """A unigram model of the training tokens (add-one) at the positions the MLMs predict."""
    special = set(tokenizer.all_special_ids)
    counts = Counter(t for block in train for t in block if t not in special)
    total = sum(counts.values()) + len(tokenizer)
    top5 = [t for t, _ in counts.most_common(5)]
    generator = torch.Generator().manual_seed(0)  # the same masks as evaluate_masked_lm
    hits1 = hits5 = n = 0
    nll = 0.0
    for b in range(0, len(held), 16):
        *_, originals = mask_batch(tokenizer, held[b : b + 16], 0.15, generator)
        for t in originals.tolist():
            hits1 += t == top5[0]
            hits5 += t in top5
            nll -= float(torch.log(torch.tensor((counts[t] + 1) / total)))
            n += 1
    mean = nll / n
    return MaskedLMMetrics(hits1 / n, hits5 / n, mean, float(torch.exp(torch.tensor(mean))), n)


def quality_rows(model_dir: Path, docs: Sequence[Mapping[str, Any]]) -> list[tuple[str, Any]]:
    tokenizer, trained = load_masked_lm(str(model_dir))
    train_blocks = make_blocks(tokenizer, [str(d["text"]) for d in docs[:TUNE_END]], BLOCK)
    held = make_blocks(tokenizer, [str(d["text"]) for d in docs[TUNE_END:]], BLOCK)[:EVAL_BLOCKS]
    _, untrained = build_masked_lm(default_base_model())
    return [
        ("(a) MiniLM, untrained head", evaluate_masked_lm(untrained, tokenizer, held)),
        ("(b) MiniLM + head, trained", evaluate_masked_lm(trained, tokenizer, held)),
        ("(c) unigram of training text", unigram_metrics(tokenizer, train_blocks, held)),
    ]


def entity_rows(
    scorers: Mapping[str, SurprisalScorer],
    docs: Sequence[Mapping[str, Any]],
    spans: Mapping[str, Sequence[EntitySpan]],
) -> list[tuple[str, float, float, int]]:
    out = []
    for name, scorer in scorers.items():
        totals, peaks = [], []
        for d in docs:
            doc = risk_document(str(d["doc_id"]), str(d["text"]), spans[str(d["doc_id"])])
            for s in scorer.entity_surprisals(doc).values():
                totals.append(s.total)
                peaks.append(s.peak)
        out.append((name, sum(totals) / len(totals), sum(peaks) / len(peaks), len(totals)))
    return out


def masks_with(
    scorer: SurprisalScorer,
    docs: Sequence[Mapping[str, Any]],
    spans: Mapping[str, Sequence[EntitySpan]],
    options: Mapping[str, Any],
) -> dict[str, list[list[int]]]:
    """``sanitize --strategy risk`` over ``docs`` with a given (cached) scorer."""
    background = [(document_id(d, i), str(d["text"])) for i, d in enumerate(docs, 1)]
    masker = RiskMasker(RiskOptions.from_mapping(options), background, scorer=scorer)
    return {
        str(d["doc_id"]): masker.assess(
            str(d["doc_id"]), str(d["text"]), spans[str(d["doc_id"])], meta=d.get("meta")
        ).masks()
        for d in docs
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--model", type=Path, default=Path(tempfile.gettempdir()) / "mlm_tab")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--spans-cache", type=Path, default=None)
    parser.add_argument("--thresholds", default="6,8,10,12,14,16,18,20,24")
    args = parser.parse_args(argv)
    docs = json.loads(args.data.read_text(encoding="utf-8"))
    tune, held = docs[:TUNE_END], docs[TUNE_END:]

    if not (args.model / SUMMARY_FILE).is_file():
        train_masked_lm(
            [str(d["text"]) for d in tune],
            args.model,
            MLMTrainingConfig(max_steps=args.steps),
            heldout_texts=[str(d["text"]) for d in held],
            log=print,
        )
    summary = json.loads((args.model / SUMMARY_FILE).read_text(encoding="utf-8"))
    print(
        f"trained on documents 0–{TUNE_END - 1}: {summary['steps']} steps, "
        f"{summary['train_blocks']} blocks, {summary['seconds']} s, final loss "
        f"{summary['final_loss']:.3f}"
    )

    print(f"\n1. masked-token prediction on documents {TUNE_END}–{len(docs) - 1}")
    print(f"{'model':<32}{'top1':>8}{'top5':>8}{'nll':>8}{'ppl':>10}{'tokens':>8}")
    for name, m in quality_rows(args.model, docs):
        print(
            f"{name:<32}{m.top1:>8.3f}{m.top5:>8.3f}{m.nll:>8.3f}{m.perplexity:>10.1f}{m.tokens:>8}"
        )

    spans = load_spans(docs, args.spans_cache)
    untrained_dir = Path(tempfile.mkdtemp()) / "untrained"
    for part in build_masked_lm(default_base_model()):
        part.save_pretrained(untrained_dir)
    held_bg = [(document_id(d, i), str(d["text"])) for i, d in enumerate(held, 1)]
    scorers: dict[str, SurprisalScorer] = {
        "wordfreq": make_scorer("wordfreq", held_bg),
        "mlm untrained head": make_scorer("mlm", held_bg, model=str(untrained_dir)),
        "mlm trained": make_scorer("mlm", held_bg, model=str(args.model)),
    }
    started = time.perf_counter()
    print("\n2. entity surprisal on the held-out part (nats; recognizer's entities)")
    print(f"{'scorer':<32}{'total':>8}{'peak':>8}{'entities':>10}")
    for name, total, peak, n in entity_rows(scorers, held, spans):
        print(f"{name:<32}{total:>8.2f}{peak:>8.2f}{n:>10}")
    print(f"scoring_s={time.perf_counter() - started:.1f}")

    print("\n3. risk pipeline, held-out part")
    mlm = scorers["mlm trained"]
    thresholds = [float(t) for t in args.thresholds.split(",")]
    tune_curve = [
        row(f"t={t:g}", tune, masks_with(mlm, tune, spans, {"measures": "lm", "threshold": t}))
        for t in thresholds
    ]
    best = max(tune_curve, key=lambda r: (r["ER_direct"] >= 0.99, r["F1"]))
    chosen = float(best["name"][2:])
    rows = []
    for measures in ("lm", "lm,linkage"):
        for label, scorer, threshold in (
            ("wordfreq", scorers["wordfreq"], None),
            ("mlm", mlm, None),
            (f"mlm, t={chosen:g} (tune)", mlm, chosen),
        ):
            options: dict[str, Any] = {"measures": measures}
            if threshold is not None:
                options["threshold"] = threshold
            rows.append(
                row(f"risk {measures} {label}", held, masks_with(scorer, held, spans, options))
            )
    print_table(rows)
    print("\nthreshold curve, risk lm with the trained mlm, tune part (MLM trained on its text):")
    print_table(tune_curve)
    print("\nthreshold curve, risk lm with the trained mlm, held-out part:")
    print_table(
        [
            row(f"t={t:g}", held, masks_with(mlm, held, spans, {"measures": "lm", "threshold": t}))
            for t in thresholds
        ]
    )


if __name__ == "__main__":
    main()
