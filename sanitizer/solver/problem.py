"""The masking problem the solvers share: its inputs, presolve, results and a checker.

The risk measures (``sanitizer.risk``) name *risky combinations*; masking one member
of each breaks them all. Choosing which members is a weighted hitting-set problem:
every entity costs its information content IC(e), the utility a reader loses when it
is masked, and DIRECT identifiers are masked whatever they cost.

This module turns entities and combinations into a small canonical integer problem
(:class:`Problem`) that both the CP-SAT solver and the greedy fallback read, so the
two agree on costs and the answer never depends on the order of the input.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations as subsets

from sanitizer.risk import RiskEntity, RiskyCombination

DIRECT = "DIRECT"
DIRECT_MEASURE = "direct"
DIRECT_REASON = "DIRECT identifier"

DEFAULT_SCALE = 1000
"""IC is multiplied by this and rounded to an integer cost, because CP-SAT only takes
integer objectives. IC is a surprisal (nats or bits, typically 0–40), so 1000 keeps
three decimals: ties below 0.0005 are treated as ties."""

MAX_DOMINANCE_ARITY = 4
"""Combinations up to this size are checked for a sub-combination that implies them
(2^k subsets each); larger ones are kept as they are, which is merely redundant."""

_MAX_OBJECTIVE = 2**62


@dataclass(frozen=True)
class MaskEntity:
    """What the solver needs to know about an entity: its id, cost and whether it is DIRECT.

    ``ic`` is the information content lost by masking the entity (all its mentions
    together); it must be finite and >= 0.
    """

    entity_id: str
    ic: float
    identifier_type: str | None = None

    @property
    def is_direct(self) -> bool:
        return (self.identifier_type or "").upper() == DIRECT


def mask_entities(
    entities: Iterable[RiskEntity], ic: Mapping[str, float], default_ic: float | None = None
) -> list[MaskEntity]:
    """Pair risk-measure entities with their IC (e.g. from the LM surprisal measure).

    A missing IC is an error unless ``default_ic`` is given, because a silent 0 would
    make the entity the cheapest thing to mask.
    """
    result: list[MaskEntity] = []
    missing: list[str] = []
    for entity in entities:
        value = ic.get(entity.entity_id, default_ic)
        if value is None:
            missing.append(entity.entity_id)
            continue
        result.append(MaskEntity(entity.entity_id, float(value), entity.identifier_type))
    if missing:
        raise ValueError(f"no information content for entities: {', '.join(sorted(missing))}")
    return result


@dataclass(frozen=True)
class MaskReason:
    """One reason an entity is masked: a combination it breaks, or being DIRECT.

    ``entity_ids`` is the combination, sorted. ``sole`` says whether this entity is
    the only masked member, i.e. whether this combination alone would force it.
    """

    measure: str
    entity_ids: tuple[str, ...]
    score: float
    text: str
    sole: bool = True


@dataclass(frozen=True)
class MaskingSolution:
    """The masks chosen, why each one, and how the solver got there.

    ``objective`` is Σ IC over all masked entities (DIRECT ones included);
    ``scaled_objective`` is the same with each IC scaled and rounded as the solver saw
    it. ``status`` is CP-SAT's (``OPTIMAL``/``FEASIBLE``), or ``GREEDY`` when the
    fallback cover was used, in which case ``fallback`` is true and ``note`` says why.
    """

    masked: tuple[str, ...]
    reasons: Mapping[str, tuple[MaskReason, ...]]
    objective: float
    scaled_objective: int
    status: str
    wall_ms: float
    fallback: bool = False
    note: str = ""
    stats: Mapping[str, int] = field(default_factory=dict)

    def is_masked(self, entity_id: str) -> bool:
        return entity_id in self.reasons


@dataclass
class Problem:
    """The canonical integer problem after validation and presolve.

    Entities are sorted by id; ``variables`` are indices into ``entity_ids`` of the
    entities that appear in a remaining constraint (only they get a boolean);
    ``constraints`` are sorted tuples of variable positions, each needing one mask.
    ``costs[v]`` = round(scale·IC)·W + 1 with W > len(variables), so the primary term
    (IC) dominates and, among equal IC, fewer masks win.
    """

    entity_ids: list[str]
    ic: list[float]
    scaled_ic: list[int]
    direct: list[int]
    variables: list[int]
    constraints: list[tuple[int, ...]]
    costs: list[int]
    groups: dict[frozenset[str], list[RiskyCombination]]
    stats: dict[str, int]

    def masked_ids(self, variable_values: Iterable[int]) -> list[int]:
        """Entity indices masked: the DIRECT ones plus the chosen variables."""
        return sorted(set(self.direct) | {self.variables[v] for v in variable_values})

    def scaled_objective(self, entity_indices: Iterable[int]) -> int:
        return sum(self.scaled_ic[i] for i in entity_indices)

    def model_cost(self, variable_values: Iterable[int]) -> int:
        return sum(self.costs[v] for v in variable_values)


def build_problem(
    entities: Sequence[MaskEntity],
    combinations: Sequence[RiskyCombination],
    scale: int = DEFAULT_SCALE,
) -> Problem:
    """Validate the input and presolve it into a :class:`Problem`.

    Presolve: identical combinations (same members) are merged into one constraint
    that keeps every source for the reasons; combinations with a DIRECT member are
    already broken and dropped; a combination with a smaller combination inside it is
    implied by it and dropped. Raises ``ValueError`` on duplicate ids, a negative or
    non-finite IC, an empty combination or one naming unknown entities.
    """
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    by_id: dict[str, MaskEntity] = {}
    for entity in entities:
        if entity.entity_id in by_id:
            raise ValueError(f"duplicate entity id {entity.entity_id!r}")
        if not math.isfinite(entity.ic) or entity.ic < 0:
            raise ValueError(f"entity {entity.entity_id!r} has invalid IC {entity.ic!r}")
        by_id[entity.entity_id] = entity
    entity_ids = sorted(by_id)
    index = {eid: i for i, eid in enumerate(entity_ids)}
    ic = [by_id[eid].ic for eid in entity_ids]
    scaled_ic = [round(value * scale) for value in ic]
    direct = [i for i, eid in enumerate(entity_ids) if by_id[eid].is_direct]

    groups: dict[frozenset[str], list[RiskyCombination]] = {}
    unknown: set[str] = set()
    for combination in combinations:
        if not combination.entity_ids:
            raise ValueError(
                f"empty risky combination from measure {combination.measure!r}: "
                f"{combination.reason!r}"
            )
        unknown.update(eid for eid in combination.entity_ids if eid not in index)
        sources = groups.setdefault(frozenset(combination.entity_ids), [])
        if combination not in sources:
            sources.append(combination)
    if unknown:
        raise ValueError(
            f"risky combinations name unknown entity ids: {', '.join(sorted(unknown))}"
        )
    for sources in groups.values():
        sources.sort(key=lambda c: (c.measure, c.reason, c.score))

    direct_set = set(direct)
    open_sets = {
        tuple(sorted(index[eid] for eid in members))
        for members in groups
        if not any(index[eid] in direct_set for eid in members)
    }
    kept = sorted((c for c in open_sets if not _implied(c, open_sets)), key=lambda c: (len(c), c))
    used = sorted({i for c in kept for i in c})
    position = {i: v for v, i in enumerate(used)}
    weight = len(used) + 1
    costs = [scaled_ic[i] * weight + 1 for i in used]
    if sum(costs) >= _MAX_OBJECTIVE:
        raise ValueError(f"IC too large for scale {scale}: lower the scale")
    return Problem(
        entity_ids=entity_ids,
        ic=ic,
        scaled_ic=scaled_ic,
        direct=direct,
        variables=used,
        constraints=[tuple(position[i] for i in c) for c in kept],
        costs=costs,
        groups=groups,
        stats={
            "entities": len(entity_ids),
            "direct": len(direct),
            "combinations": len(combinations),
            "distinct_combinations": len(groups),
            "open_combinations": len(open_sets),
            "constraints": len(kept),
            "variables": len(used),
        },
    )


def _implied(combination: tuple[int, ...], constraints: set[tuple[int, ...]]) -> bool:
    """Whether a proper sub-combination is itself a constraint (which then implies this one)."""
    size = len(combination)
    if size < 2 or size > MAX_DOMINANCE_ARITY:
        return False
    return any(sub in constraints for k in range(1, size) for sub in subsets(combination, k))


def explain(problem: Problem, masked: Sequence[int]) -> dict[str, tuple[MaskReason, ...]]:
    """For every masked entity, the combinations it breaks (and DIRECT, if it is).

    Built from every distinct input combination, including the ones presolve dropped,
    so that each risky combination appears under each of its masked members.
    """
    masked_ids = {problem.entity_ids[i] for i in masked}
    reasons: dict[str, list[MaskReason]] = {eid: [] for eid in sorted(masked_ids)}
    for i in problem.direct:
        eid = problem.entity_ids[i]
        reasons[eid].append(MaskReason(DIRECT_MEASURE, (eid,), 1.0, DIRECT_REASON))
    for members, sources in sorted(groups_items(problem.groups), key=lambda item: item[0]):
        hit = [eid for eid in members if eid in masked_ids]
        for eid in hit:
            for source in sources:
                reasons[eid].append(
                    MaskReason(source.measure, members, source.score, source.reason, len(hit) == 1)
                )
    return {eid: tuple(items) for eid, items in reasons.items()}


def groups_items(
    groups: Mapping[frozenset[str], list[RiskyCombination]],
) -> list[tuple[tuple[str, ...], list[RiskyCombination]]]:
    """Merged combinations as (sorted member ids, sources), in a stable order."""
    return [(tuple(sorted(members)), sources) for members, sources in groups.items()]


def unbroken_combinations(
    combinations: Iterable[RiskyCombination], masked: Iterable[str]
) -> list[RiskyCombination]:
    """The combinations none of whose members is masked (empty for a valid masking)."""
    masked_set = set(masked)
    return [c for c in combinations if not c.entity_ids & masked_set]


def check_masking(
    entities: Iterable[MaskEntity],
    combinations: Iterable[RiskyCombination],
    masked: Iterable[str] | MaskingSolution,
) -> list[str]:
    """Everything wrong with a masking, as sentences; an empty list means it is valid.

    Valid means: every combination has a masked member, every DIRECT entity is masked,
    and (for a :class:`MaskingSolution`) every mask has at least one reason.
    """
    problems: list[str] = []
    if isinstance(masked, MaskingSolution):
        solution = masked
        masked_set = set(solution.masked)
        problems.extend(
            f"mask {eid!r} has no reason"
            for eid in solution.masked
            if not solution.reasons.get(eid)
        )
    else:
        masked_set = set(masked)
    for combination in unbroken_combinations(combinations, masked_set):
        members = " + ".join(sorted(combination.entity_ids))
        problems.append(f"{combination.measure} combination {members} is not broken")
    problems.extend(
        f"DIRECT entity {e.entity_id!r} is not masked"
        for e in entities
        if e.is_direct and e.entity_id not in masked_set
    )
    return problems
