"""Masking-solver benchmark: how long one re-solve takes on a long document's worth of risk.

A 60,000-character document has about 600 detected entities; the risk measures name a
few thousand combinations of up to three of them. The instance is random but shaped
like that (seeded, so every run solves the same one):

- entities lie along the document in order; IC(e) is a surprisal drawn from a gamma
  distribution (mean ≈ 6 nats); 5 % are DIRECT identifiers;
- combinations are local, as the measures produce them: members are drawn within a
  window of 30 neighbouring entities; arity 1 (10 %), 2 (40 %) or 3 (50 %).

Each of ``--repeat`` solves builds the model from scratch (what the privacy dial does
on every turn) and is timed end to end by the solver itself (``wall_ms``: presolve,
greedy hint, CP-SAT, reasons). The last line is ``solve_ms=<mean>``.

``--no-singletons --window 600`` gives adversarial random hypergraphs instead, where
CP-SAT needs seconds to prove optimality; with ``--time-limit 0.4`` it shows what a
time-boxed re-solve returns (status FEASIBLE, within a few % of the bound).

Usage: ``.venv/bin/python benchmarks/solver.py [--entities N] [--combinations M] [--repeat R]
[--seed S] [--window W] [--no-singletons] [--time-limit SECONDS]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanitizer.risk import RiskyCombination
from sanitizer.solver import DEFAULT_TIME_LIMIT, MaskEntity, check_masking, solve_masking


def random_instance(
    n_entities: int,
    n_combinations: int,
    seed: int = 0,
    window: int = 30,
    arity_weights: tuple[int, int, int] = (10, 40, 50),
) -> tuple[list[MaskEntity], list[RiskyCombination]]:
    """A seeded document-shaped instance (see the module docstring)."""
    rng = random.Random(seed)
    entities = [
        MaskEntity(
            f"e{i:04d}",
            round(rng.gammavariate(2.0, 3.0), 3),
            "DIRECT" if rng.random() < 0.05 else "QUASI",
        )
        for i in range(n_entities)
    ]
    combinations: list[RiskyCombination] = []
    for _ in range(n_combinations):
        arity = rng.choices((1, 2, 3), weights=arity_weights)[0]
        start = rng.randrange(n_entities)
        pool = range(start, min(n_entities, start + window))
        members = rng.sample(pool, min(arity, len(pool)))
        measure = rng.choice(("lm", "linkage", "kb"))
        combinations.append(
            RiskyCombination(
                frozenset(entities[m].entity_id for m in members),
                measure,
                round(rng.uniform(0, 10), 2),
                f"{measure}: synthetic",
            )
        )
    return entities, combinations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=600)
    parser.add_argument("--combinations", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--window", type=int, default=30, help="members lie this close")
    parser.add_argument(
        "--no-singletons",
        action="store_true",
        help="only pairs and triples: random hypergraph covers, far harder than documents",
    )
    parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT)
    args = parser.parse_args()

    weights = (0, 45, 55) if args.no_singletons else (10, 40, 50)
    entities, combinations = random_instance(
        args.entities, args.combinations, args.seed, args.window, weights
    )
    timings: list[float] = []
    solution = None
    for _ in range(args.repeat):
        solution = solve_masking(entities, combinations, time_limit=args.time_limit)
        timings.append(solution.wall_ms)
    assert solution is not None
    problems = check_masking(entities, combinations, solution)
    if problems:
        raise SystemExit(f"invalid masking: {problems[:5]}")
    greedy = solve_masking(entities, combinations, time_limit=0)
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(f"instance: {dict(solution.stats)}")
    print(
        f"status={solution.status} masked={len(solution.masked)} "
        f"objective={solution.objective:.3f} (greedy {greedy.objective:.3f}, "
        f"{len(greedy.masked)} masks)"
    )
    print(f"mean={statistics.fmean(timings):.1f} ms p95={p95:.1f} ms over {args.repeat} solves")
    print(f"solve_ms={statistics.fmean(timings):.3f}")


if __name__ == "__main__":
    main()
