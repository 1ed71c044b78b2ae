"""CP-SAT masking on small hand-made cases whose optimum is known."""

from __future__ import annotations

import random

import pytest

from sanitizer.risk import RiskEntity, RiskyCombination
from sanitizer.solver import (
    DIRECT_MEASURE,
    DIRECT_REASON,
    GREEDY,
    MaskEntity,
    build_problem,
    check_masking,
    cpsat,
    mask_entities,
    solve_masking,
    unbroken_combinations,
)
from sanitizer.solver.problem import Problem


def combo(*ids: str, measure: str = "lm", score: float = 1.0, reason: str = "") -> RiskyCombination:
    return RiskyCombination(frozenset(ids), measure, score, reason or f"{measure}: {'+'.join(ids)}")


def test_single_shared_cheap_entity_beats_three_separate_masks() -> None:
    entities = [
        MaskEntity("a", 1.0),
        MaskEntity("b", 3.0),
        MaskEntity("c", 3.0),
        MaskEntity("d", 3.0),
    ]
    combinations = [combo("a", "b"), combo("a", "c", measure="kb"), combo("a", "d")]
    solution = solve_masking(entities, combinations)
    assert solution.masked == ("a",)
    assert solution.status == "OPTIMAL"
    assert solution.objective == pytest.approx(1.0)
    assert solution.scaled_objective == 1000
    reasons = solution.reasons["a"]
    assert [(r.measure, r.entity_ids) for r in reasons] == [
        ("lm", ("a", "b")),
        ("kb", ("a", "c")),
        ("lm", ("a", "d")),
    ]
    assert all(r.sole for r in reasons)
    assert not check_masking(entities, combinations, solution)


def test_cheaper_pair_beats_expensive_single() -> None:
    entities = [MaskEntity("x", 10.0), MaskEntity("y", 3.0), MaskEntity("z", 3.0)]
    combinations = [combo("x", "y"), combo("x", "z")]
    solution = solve_masking(entities, combinations)
    assert solution.masked == ("y", "z")
    assert solution.objective == pytest.approx(6.0)
    assert "x" not in solution.reasons


def test_equal_information_prefers_fewer_masks() -> None:
    # Masking a (IC 2) or b + c (IC 1 + 1) loses the same: one mask wins.
    entities = [MaskEntity("a", 2.0), MaskEntity("b", 1.0), MaskEntity("c", 1.0)]
    solution = solve_masking(entities, [combo("a", "b"), combo("a", "c")])
    assert solution.masked == ("a",)


def test_information_is_never_traded_for_fewer_masks() -> None:
    # b + c lose 1.998 < 2: two masks are right even though one would do.
    entities = [MaskEntity("a", 2.0), MaskEntity("b", 0.999), MaskEntity("c", 0.999)]
    solution = solve_masking(entities, [combo("a", "b"), combo("a", "c")])
    assert solution.masked == ("b", "c")


def test_zero_ic_entities_are_masked_before_anything_costly() -> None:
    entities = [MaskEntity("free", 0.0), MaskEntity("dear", 4.0)]
    solution = solve_masking(entities, [combo("free", "dear")])
    assert solution.masked == ("free",)
    assert solution.objective == 0.0


def test_direct_identifier_is_masked_even_without_any_combination() -> None:
    entities = [MaskEntity("name", 9.0, "DIRECT"), MaskEntity("city", 2.0, "QUASI")]
    solution = solve_masking(entities, [])
    assert solution.masked == ("name",)
    assert solution.status == "OPTIMAL"
    (reason,) = solution.reasons["name"]
    assert (reason.measure, reason.text, reason.entity_ids) == (
        DIRECT_MEASURE,
        DIRECT_REASON,
        ("name",),
    )
    assert check_masking(entities, [], []) == ["DIRECT entity 'name' is not masked"]


def test_direct_identifier_breaks_its_combinations_before_the_model() -> None:
    entities = [
        MaskEntity("name", 9.0, "direct"),
        MaskEntity("job", 1.0),
        MaskEntity("town", 1.5),
    ]
    combinations = [combo("name", "job"), combo("job", "town", measure="kb")]
    problem = build_problem(entities, combinations)
    assert problem.stats["open_combinations"] == 1
    solution = solve_masking(entities, combinations)
    assert solution.masked == ("job", "name")
    # The dropped combination still explains the DIRECT mask, after the DIRECT reason.
    assert [r.measure for r in solution.reasons["name"]] == [DIRECT_MEASURE, "lm"]
    assert [r.entity_ids for r in solution.reasons["job"]] == [("job", "name"), ("job", "town")]
    assert [r.sole for r in solution.reasons["job"]] == [False, True]


def test_duplicates_are_merged_and_every_source_is_a_reason() -> None:
    entities = [MaskEntity("a", 1.0), MaskEntity("b", 2.0)]
    combinations = [
        combo("a", "b", measure="lm", reason="LM: log p = -6.1 < -4"),
        combo("b", "a", measure="lm", reason="LM: log p = -6.1 < -4"),  # exact duplicate
        combo("a", "b", measure="kb", score=2.0, reason="KB: 2 persons"),
    ]
    problem = build_problem(entities, combinations)
    assert problem.stats["distinct_combinations"] == 1
    assert len(problem.constraints) == 1
    solution = solve_masking(entities, combinations)
    assert [(r.measure, r.text) for r in solution.reasons["a"]] == [
        ("kb", "KB: 2 persons"),
        ("lm", "LM: log p = -6.1 < -4"),
    ]


def test_combinations_implied_by_a_smaller_one_are_dropped() -> None:
    entities = [MaskEntity(x, 1.0) for x in "abc"]
    problem = build_problem(entities, [combo("a"), combo("a", "b"), combo("a", "b", "c")])
    assert problem.constraints == [(0,)]
    solution = solve_masking(entities, [combo("a"), combo("a", "b"), combo("a", "b", "c")])
    assert solution.masked == ("a",)
    assert len(solution.reasons["a"]) == 3


@pytest.mark.parametrize(
    ("combinations", "message"),
    [
        ([combo("a", "ghost"), combo("phantom")], "unknown entity ids: ghost, phantom"),
        ([RiskyCombination(frozenset(), "lm", 1.0, "nothing")], "empty risky combination"),
    ],
)
def test_invalid_combinations_are_rejected(
    combinations: list[RiskyCombination], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        solve_masking([MaskEntity("a", 1.0)], combinations)


@pytest.mark.parametrize(
    ("entities", "message"),
    [
        ([MaskEntity("a", -1.0)], "invalid IC"),
        ([MaskEntity("a", float("nan"))], "invalid IC"),
        ([MaskEntity("a", 1.0), MaskEntity("a", 2.0)], "duplicate entity id"),
    ],
)
def test_invalid_entities_are_rejected(entities: list[MaskEntity], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        solve_masking(entities, [])


def test_mask_entities_pairs_risk_entities_with_their_ic() -> None:
    risk_entities = [
        RiskEntity("e1", "PERSON", (), "DIRECT"),
        RiskEntity("e2", "LOC", (), "QUASI"),
    ]
    assert mask_entities(risk_entities, {"e1": 3.0, "e2": 1.5}) == [
        MaskEntity("e1", 3.0, "DIRECT"),
        MaskEntity("e2", 1.5, "QUASI"),
    ]
    with pytest.raises(ValueError, match="no information content for entities: e2"):
        mask_entities(risk_entities, {"e1": 3.0})
    assert mask_entities(risk_entities, {}, default_ic=1.0)[1].ic == 1.0


def random_instance(
    rng: random.Random, n_entities: int, n_combinations: int
) -> tuple[list[MaskEntity], list[RiskyCombination]]:
    entities = [
        MaskEntity(f"e{i}", round(rng.uniform(0, 8), 3), "DIRECT" if rng.random() < 0.1 else None)
        for i in range(n_entities)
    ]
    combinations = [
        combo(
            *(e.entity_id for e in rng.sample(entities, rng.randint(1, min(3, n_entities)))),
            measure=rng.choice(("lm", "kb", "linkage")),
        )
        for _ in range(n_combinations)
    ]
    return entities, combinations


def test_deterministic_over_repeated_runs_and_shuffled_input() -> None:
    rng = random.Random(7)
    entities, combinations = random_instance(rng, 80, 300)
    reference = solve_masking(entities, combinations)
    assert reference.status == "OPTIMAL"
    for _ in range(5):
        shuffled_entities = rng.sample(entities, len(entities))
        shuffled_combinations = rng.sample(combinations, len(combinations))
        again = solve_masking(shuffled_entities, shuffled_combinations)
        assert again.masked == reference.masked
        assert again.reasons == reference.reasons
        assert again.scaled_objective == reference.scaled_objective


def test_hint_from_a_previous_solution_gives_the_same_optimum() -> None:
    entities, combinations = random_instance(random.Random(3), 60, 200)
    first = solve_masking(entities, combinations)
    again = solve_masking(entities, combinations, hint=first.masked)
    assert again.scaled_objective == first.scaled_objective
    assert not check_masking(entities, combinations, again)


def test_zero_time_limit_uses_the_greedy_cover() -> None:
    entities, combinations = random_instance(random.Random(5), 60, 200)
    solution = solve_masking(entities, combinations, time_limit=0)
    assert (solution.status, solution.fallback) == (GREEDY, True)
    assert "greedy" in solution.note
    assert not check_masking(entities, combinations, solution)


def test_tiny_time_limit_still_breaks_every_combination() -> None:
    entities, combinations = random_instance(random.Random(6), 300, 1500)
    solution = solve_masking(entities, combinations, time_limit=1e-6)
    assert solution.status in {"OPTIMAL", "FEASIBLE", GREEDY}
    assert not check_masking(entities, combinations, solution)


def test_no_cpsat_solution_falls_back_to_greedy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpsat, "_run_cpsat", lambda *args: None)
    entities, combinations = random_instance(random.Random(8), 40, 120)
    solution = solve_masking(entities, combinations)
    assert solution.fallback and solution.status == GREEDY
    assert "no solution" in solution.note
    assert not check_masking(entities, combinations, solution)


def test_feasible_answer_worse_than_greedy_is_discarded(monkeypatch: pytest.MonkeyPatch) -> None:
    def everything(problem: Problem, *args: object) -> tuple[str, list[int]]:
        return "FEASIBLE", list(range(len(problem.variables)))

    entities, combinations = random_instance(random.Random(9), 40, 60)
    monkeypatch.setattr(cpsat, "_run_cpsat", everything)
    solution = solve_masking(entities, combinations)
    greedy = solve_masking(entities, combinations, time_limit=0)
    assert solution.fallback and solution.masked == greedy.masked
    assert "above the greedy cover" in solution.note


def test_check_masking_names_what_is_wrong() -> None:
    entities = [MaskEntity("a", 1.0), MaskEntity("b", 1.0)]
    combinations = [combo("a", "b", measure="kb")]
    assert check_masking(entities, combinations, ["a"]) == []
    assert check_masking(entities, combinations, []) == ["kb combination a + b is not broken"]
    assert unbroken_combinations(combinations, ["b"]) == []
