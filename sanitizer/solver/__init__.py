"""Masking solver: the least informative masks that break every risky combination.

The risk measures (``sanitizer.risk``) say which sets of entities are risky together;
:func:`solve_masking` picks the entities to mask (CP-SAT, with a greedy fallback)
and says, for each, which combinations forced it. :func:`check_masking` verifies a
masking against the combinations, for tests and for anyone handed a solution::

    entities = [MaskEntity("e1", ic=2.5), MaskEntity("e2", ic=0.7, identifier_type="DIRECT")]
    solution = solve_masking(entities, combinations)
    assert not check_masking(entities, combinations, solution)

Plain Python: no Django here (an import-linter contract enforces it).
"""

from sanitizer.solver.cpsat import DEFAULT_TIME_LIMIT, GREEDY, solve_masking
from sanitizer.solver.greedy import greedy_cover
from sanitizer.solver.problem import (
    DEFAULT_SCALE,
    DIRECT_MEASURE,
    DIRECT_REASON,
    MaskEntity,
    MaskingSolution,
    MaskReason,
    build_problem,
    check_masking,
    mask_entities,
    unbroken_combinations,
)

__all__ = [
    "DEFAULT_SCALE",
    "DEFAULT_TIME_LIMIT",
    "DIRECT_MEASURE",
    "DIRECT_REASON",
    "GREEDY",
    "MaskEntity",
    "MaskReason",
    "MaskingSolution",
    "build_problem",
    "check_masking",
    "greedy_cover",
    "mask_entities",
    "solve_masking",
    "unbroken_combinations",
]
