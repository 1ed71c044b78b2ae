"""Property checks on seeded random instances: valid, optimal, never worse than greedy."""

from __future__ import annotations

import random
from itertools import combinations as subsets

from sanitizer.risk import RiskyCombination
from sanitizer.solver import (
    DEFAULT_SCALE,
    MaskEntity,
    build_problem,
    check_masking,
    greedy_cover,
    solve_masking,
)


def instance(seed: int) -> tuple[list[MaskEntity], list[RiskyCombination]]:
    """Up to 10 entities (some DIRECT, some free) and up to 20 combinations of arity <= 3."""
    rng = random.Random(seed)
    n = rng.randint(1, 10)
    entities = [
        MaskEntity(
            f"e{i}",
            rng.choice((0.0, 0.5, 1.0, round(rng.uniform(0, 10), 3))),
            "DIRECT" if rng.random() < 0.1 else rng.choice((None, "QUASI")),
        )
        for i in range(n)
    ]
    combinations = [
        RiskyCombination(
            frozenset(e.entity_id for e in rng.sample(entities, rng.randint(1, min(3, n)))),
            rng.choice(("lm", "kb", "linkage")),
            rng.random(),
            "random",
        )
        for _ in range(rng.randint(0, 20))
    ]
    return entities, combinations


def brute_force_optimum(
    entities: list[MaskEntity], combinations: list[RiskyCombination]
) -> tuple[int, int]:
    """(least scaled IC, fewest masks at that IC) over every valid masking."""
    direct = {e.entity_id for e in entities if e.is_direct}
    others = [e for e in entities if not e.is_direct]
    cost = {e.entity_id: round(e.ic * DEFAULT_SCALE) for e in entities}
    best: tuple[int, int] | None = None
    for size in range(len(others) + 1):
        for chosen in subsets(others, size):
            masked = direct | {e.entity_id for e in chosen}
            if all(c.entity_ids & masked for c in combinations):
                value = (sum(cost[eid] for eid in masked), len(masked))
                best = value if best is None else min(best, value)
    assert best is not None
    return best


def test_random_instances_are_solved_validly_and_optimally() -> None:
    for seed in range(200):
        entities, combinations = instance(seed)
        solution = solve_masking(entities, combinations)
        greedy = solve_masking(entities, combinations, time_limit=0)
        assert not check_masking(entities, combinations, solution), seed
        assert not check_masking(entities, combinations, greedy), seed
        assert solution.status == "OPTIMAL", seed
        assert solution.scaled_objective <= greedy.scaled_objective, seed
        assert (solution.scaled_objective, len(solution.masked)) == brute_force_optimum(
            entities, combinations
        ), seed


def test_larger_random_instances_never_lose_to_greedy() -> None:
    rng = random.Random(11)
    for seed in range(20):
        n = rng.randint(50, 150)
        local = random.Random(seed)
        entities = [MaskEntity(f"e{i}", round(local.uniform(0, 10), 2)) for i in range(n)]
        combinations = [
            RiskyCombination(
                frozenset(e.entity_id for e in local.sample(entities, local.randint(1, 3))),
                "lm",
                1.0,
                "random",
            )
            for _ in range(4 * n)
        ]
        solution = solve_masking(entities, combinations)
        greedy = solve_masking(entities, combinations, time_limit=0)
        assert not check_masking(entities, combinations, solution)
        assert solution.scaled_objective <= greedy.scaled_objective


def test_greedy_cover_is_valid_and_drops_redundant_masks() -> None:
    # 0 (cost 1) is picked first for breaking three constraints cheaply, but 1 and 2 are
    # then needed anyway for the constraints only they break, which makes 0 redundant.
    constraints = [(0, 1), (0, 2), (0, 1, 2), (1,), (2,)]
    chosen = greedy_cover(3, constraints, [1, 2, 2])
    assert chosen == [1, 2]
    assert all(set(c) & set(chosen) for c in constraints)
    assert greedy_cover(2, [], [1, 1]) == []


def test_costs_rank_information_first_then_number_of_masks() -> None:
    entities = [MaskEntity("a", 2.0), MaskEntity("b", 1.0), MaskEntity("c", 0.0)]
    problem = build_problem(
        entities,
        [RiskyCombination(frozenset(("a", "b", "c")), "lm", 1.0, "r")],
    )
    weight = len(problem.variables) + 1
    assert problem.costs == [2000 * weight + 1, 1000 * weight + 1, 1]
    assert problem.stats["variables"] == 3
