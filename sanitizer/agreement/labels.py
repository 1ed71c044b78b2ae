"""Label spaces and the two kinds of units agreement is measured on.

**Label spaces** (registry :data:`label_spaces`) say which label an annotator gives a
unit. ``labels`` is ordered by precedence: when one annotator's own spans overlap with
different labels (11 of 17k TAB dev mention pairs do), the first label in the tuple wins,
so for identifier types DIRECT beats QUASI beats NO_MASK, i.e. the reading that asks for
more masking. Registered spaces:

* ``identifier``: DIRECT / QUASI / NO_MASK / NONE (NONE = not inside any span);
* ``masked``: MASKED (DIRECT or QUASI) / NOT_MASKED (NO_MASK or no span), the binary
  masking decision;
* ``entity_type``: the eight TAB semantic types / NONE (spans must carry an entity type).

Seed 000 (Table 1) reports kappa and alpha "on the identifier type (DIRECT, QUASI or
NO_MASK)" at span and character level without saying how unannotated characters or
unmatched spans count; we therefore keep NONE as a label of its own (an annotator who
marks nothing disagrees with one who marks QUASI), offer the binary ``masked`` space,
and let the caller restrict character units to annotated characters (``scope``).

**Character units** are the counted characters of a document (non-whitespace when the
text is known). With ``scope="all"`` every counted character is a unit; with
``scope="annotated"`` only those inside a span of at least one of the annotators being
compared (for NO_MASK spans too, whatever the label space).

**Span units** are the connected components of the overlap graph of all spans of the
annotators being compared: spans are sorted by start and a span joins the current unit
while it starts before the unit's furthest end, so chains of overlapping spans form one
unit. An annotator's label for a unit is the highest-precedence label among its spans
in the unit, NONE (the space's ``none_label``) if it has none there. Units therefore
depend on which annotators are compared: a pair is measured on the units of the pair's
own spans, the all-annotator alpha on the units of everyone's spans.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sanitizer.agreement.data import AnnotatedDocument, AnnotatedSpan, BoolArray
from sanitizer.intervals import merge_intervals
from sanitizer.registry import Registry
from sanitizer.types import SEMANTIC_TYPES

IntArray = npt.NDArray[np.int64]
SCOPES: tuple[str, ...] = ("all", "annotated")
LEVELS: tuple[str, ...] = ("character", "span")


@dataclass(frozen=True)
class LabelSpace:
    """Labels a unit can get; ``labels`` is in precedence order and includes ``none_label``."""

    name: str
    labels: tuple[str, ...]
    none_label: str
    span_label: Callable[[AnnotatedSpan], str]

    def __post_init__(self) -> None:
        # Span units keep the minimum code per annotator, so "no span" must rank last.
        if not self.labels or self.labels[-1] != self.none_label:
            raise ValueError(f"label space {self.name!r}: none_label must be the last label")

    def code(self, label: str) -> int:
        """Index of ``label`` (lower = higher precedence)."""
        return self.labels.index(label)

    @property
    def none_code(self) -> int:
        """Index of the label of units outside every span."""
        return self.labels.index(self.none_label)


label_spaces: Registry[Callable[[], LabelSpace]] = Registry("label space")


@label_spaces.register("identifier")
def identifier_space() -> LabelSpace:
    """DIRECT / QUASI / NO_MASK / NONE."""
    return LabelSpace(
        "identifier",
        ("DIRECT", "QUASI", "NO_MASK", "NONE"),
        "NONE",
        lambda span: span.identifier_type,
    )


@label_spaces.register("masked")
def masked_space() -> LabelSpace:
    """MASKED (DIRECT or QUASI) / NOT_MASKED (NO_MASK or outside every span)."""
    return LabelSpace(
        "masked",
        ("MASKED", "NOT_MASKED"),
        "NOT_MASKED",
        lambda span: "MASKED" if span.identifier_type in ("DIRECT", "QUASI") else "NOT_MASKED",
    )


def _entity_label(span: AnnotatedSpan) -> str:
    if span.entity_type not in SEMANTIC_TYPES:
        raise ValueError(
            f"span {span.start}..{span.end} has entity_type {span.entity_type!r}, "
            f"not one of {SEMANTIC_TYPES}"
        )
    return span.entity_type


@label_spaces.register("entity_type")
def entity_type_space() -> LabelSpace:
    """The TAB semantic types (precedence in ``SEMANTIC_TYPES`` order) / NONE."""
    return LabelSpace("entity_type", (*SEMANTIC_TYPES, "NONE"), "NONE", _entity_label)


def get_label_space(space: str | LabelSpace) -> LabelSpace:
    """Resolve a registered name (or pass a :class:`LabelSpace` through)."""
    return space if isinstance(space, LabelSpace) else label_spaces.get(space)()


def check_choice(name: str, value: str, allowed: Sequence[str]) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {tuple(allowed)}, not {value!r}")


def char_codes(
    doc: AnnotatedDocument, annotator: Hashable, space: LabelSpace
) -> tuple[IntArray, BoolArray]:
    """Per-character label codes of one annotator and the mask of characters in its spans.

    Both arrays have the document's length (whitespace included; callers select with
    ``doc.counted``). Cached on the document.
    """
    key = ("char", annotator, space.name)
    cached = doc._cache.get(key)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    codes = np.full(doc.length, space.none_code, dtype=np.int64)
    covered = np.zeros(doc.length, dtype=bool)
    coded = [(space.code(space.span_label(span)), span) for span in doc.annotations[annotator]]
    # Painting lowest precedence first lets higher-precedence labels overwrite overlaps.
    for code, span in sorted(coded, key=lambda item: -item[0]):
        codes[span.start : span.end] = code
        covered[span.start : span.end] = True
    doc._cache[key] = (codes, covered)
    return codes, covered


def char_units(
    doc: AnnotatedDocument, annotators: Sequence[Hashable], space: LabelSpace, scope: str
) -> IntArray:
    """Label codes of the character units, shape ``(len(annotators), n_units)``."""
    check_choice("scope", scope, SCOPES)
    pairs = [char_codes(doc, name, space) for name in annotators]
    selected = doc.counted.copy()
    if scope == "annotated":
        any_covered = np.zeros(doc.length, dtype=bool)
        for _, covered in pairs:
            any_covered |= covered
        selected &= any_covered
    if not pairs:
        return np.zeros((0, int(selected.sum())), dtype=np.int64)
    return np.stack([codes[selected] for codes, _ in pairs])


def span_unit_bounds(
    doc: AnnotatedDocument, annotators: Sequence[Hashable]
) -> list[tuple[int, int]]:
    """Offsets of the span units (overlap components) of the given annotators' spans."""
    return merge_intervals(
        ((span.start, span.end) for name in annotators for span in doc.annotations[name]),
        touching=False,
    )


def span_units(
    doc: AnnotatedDocument, annotators: Sequence[Hashable], space: LabelSpace
) -> IntArray:
    """Label codes of the span units, shape ``(len(annotators), n_units)``."""
    key = ("span", tuple(annotators), space.name)
    cached = doc._cache.get(key)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    bounds = span_unit_bounds(doc, annotators)
    starts = np.array([start for start, _ in bounds], dtype=np.int64)
    codes = np.full((len(annotators), len(bounds)), space.none_code, dtype=np.int64)
    for row, name in enumerate(annotators):
        for span in doc.annotations[name]:
            # Every span lies inside exactly one unit: the last one starting at or before it.
            unit = int(np.searchsorted(starts, span.start, side="right")) - 1
            code = space.code(space.span_label(span))
            codes[row, unit] = min(codes[row, unit], code)
    doc._cache[key] = codes
    return codes


def units(
    doc: AnnotatedDocument,
    annotators: Sequence[Hashable],
    space: LabelSpace,
    level: str,
    scope: str = "all",
) -> IntArray:
    """Unit label codes at ``level`` ("character" or "span"); ``scope`` is for characters."""
    check_choice("level", level, LEVELS)
    if level == "character":
        return char_units(doc, annotators, space, scope)
    return span_units(doc, annotators, space)
