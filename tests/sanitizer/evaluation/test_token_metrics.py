"""Per-category token-level precision/recall/F1 (seed 001, Table 2)."""

from __future__ import annotations

import pytest

from sanitizer.evaluation import (
    TAB_INTERCHANGEABLE,
    gold_spans_from_tab,
    token_labels,
    token_scores_by_type,
)
from tests.sanitizer.evaluation.helpers import find, mention, tab_doc

TEXT = "Anna Berg works for Acme Corp in Oslo since 2001"
GOLD = [
    [*find(TEXT, "Anna Berg"), "PERSON"],
    [*find(TEXT, "Acme Corp"), "ORG"],
    [*find(TEXT, "Oslo"), "LOC"],
    [*find(TEXT, "2001"), "DATETIME"],
]
PRED = [
    [*find(TEXT, "Anna Berg works"), "PERSON"],
    [*find(TEXT, "Acme Corp"), "LOC"],
    [*find(TEXT, "Oslo"), "LOC"],
]


def test_token_labels() -> None:
    assert token_labels(TEXT, GOLD) == [
        "PERSON", "PERSON", "O", "O", "ORG", "ORG", "O", "LOC", "O", "DATETIME"
    ]  # fmt: skip
    # The longest overlapping span wins; unlabeled spans are "SPAN".
    assert token_labels("Anna Berg", [[0, 9, "PERSON"], [5, 9, "MISC"]]) == ["PERSON"] * 2
    assert token_labels("Anna Berg", [[5, 7]]) == ["O", "SPAN"]


def test_per_category_scores() -> None:
    s = token_scores_by_type(TEXT, GOLD, PRED, labels=["PERSON", "ORG", "LOC", "DATETIME"])
    # gold  P P O O ORG ORG O LOC O DT
    # pred  P P P O LOC LOC O LOC O O
    per = s.by_label["PERSON"]
    assert (per.precision, per.recall, per.f1, per.support) == pytest.approx((2 / 3, 1, 0.8, 2))
    org = s.by_label["ORG"]
    assert (org.precision, org.recall, org.f1, org.support) == (0.0, 0.0, 0.0, 2)
    loc = s.by_label["LOC"]
    assert (loc.precision, loc.recall, loc.f1) == pytest.approx((1 / 3, 1.0, 0.5))
    dt = s.by_label["DATETIME"]
    assert (dt.precision, dt.recall, dt.support) == (0.0, 0.0, 1)
    assert (s.micro.precision, s.micro.recall, s.micro.f1) == pytest.approx((0.5, 0.5, 0.5))
    assert s.micro.support == 6
    # Detection alone: 5 of the 6 predicted tokens are gold tokens, 5 of 6 gold found.
    assert (s.untyped.precision, s.untyped.recall) == pytest.approx((5 / 6, 5 / 6))


def test_org_loc_interchangeable() -> None:
    s = token_scores_by_type(TEXT, GOLD, PRED, equivalent_labels=TAB_INTERCHANGEABLE)
    assert sorted(s.by_label) == ["DATETIME", "LOC", "ORG", "PERSON"]
    assert (s.by_label["ORG"].precision, s.by_label["ORG"].recall) == (1.0, 1.0)
    assert (s.by_label["LOC"].precision, s.by_label["LOC"].recall) == (1.0, 1.0)
    assert s.micro.precision == pytest.approx(5 / 6)
    assert s.to_dict()["micro"]["recall"] == pytest.approx(5 / 6)


def test_several_documents_and_gold_from_tab() -> None:
    t = "Ola met Kari in Paris."
    doc = tab_doc(
        "x",
        t,
        a1=[
            mention(t, "Ola", "e1", "PERSON", "DIRECT"),
            mention(t, "Kari", "e2", "PERSON", "NO_MASK"),
            mention(t, "Paris", "e3", "LOC", "QUASI"),
        ],
        a2=[mention(t, "Paris", "f3", "LOC", "QUASI")],
    )
    gold = {"x": gold_spans_from_tab(doc), "y": []}
    assert [g.label for g in gold["x"]] == ["PERSON", "PERSON", "LOC"]
    assert len(gold_spans_from_tab(doc, "a2")) == 1
    assert len(gold_spans_from_tab(doc, identifier_types=("DIRECT",))) == 1
    pred = {"x": [[*find(t, "Ola"), "PERSON"]], "y": [[0, 3, "PERSON"]]}
    s = token_scores_by_type({"x": t, "y": "Bob left."}, gold, pred)
    assert s.by_label["PERSON"].precision == pytest.approx(1 / 2)
    assert s.by_label["PERSON"].recall == pytest.approx(1 / 2)
    assert s.by_label["LOC"].recall == 0.0
    with pytest.raises(ValueError, match="without text"):
        token_scores_by_type({"x": t}, {"z": []}, {})
