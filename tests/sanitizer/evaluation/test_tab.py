"""TAB metrics on tiny documents whose expected values were worked out by hand."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from sanitizer.evaluation import (
    GoldDocument,
    UniformWeighting,
    evaluate_files,
    evaluate_tab,
    is_span_masked,
)
from sanitizer.intervals import coverage_mask
from tests.sanitizer.evaluation.helpers import find, mention, tab_doc

# One annotator. "Mr" and the spaces of mention 1, "the"/"of" of the LOC mention
# need not be masked; the second "Smith" is left unmasked.
TEXT1 = "Mr John Smith lives in the City of Oslo. Smith was born in 1970."


def doc1() -> dict:
    t = TEXT1
    return tab_doc(
        "d1",
        t,
        a1=[
            mention(t, "Mr John Smith", "e1", "PERSON", "DIRECT"),
            mention(t, "Smith", "e1", "PERSON", "DIRECT", occurrence=1),
            mention(t, "the City of Oslo", "e2", "LOC", "QUASI"),
            mention(t, "1970", "e3", "DATETIME", "QUASI"),
            mention(t, "born", "e4", "MISC", "NO_MASK"),
        ],
    )


def masks1() -> dict:
    t = TEXT1
    return {"d1": [find(t, "John Smith"), find(t, "City"), find(t, "Oslo"), find(t, "1970")]}


def test_single_annotator_ignored_words_and_unmasked_mention() -> None:
    m = evaluate_tab([doc1()], masks1(), weighting="uniform")
    # e1 not masked (second "Smith" missing), e2 and e3 masked; e4 is NO_MASK.
    assert m.er_all == pytest.approx(2 / 3)
    assert m.er_direct == 0.0
    assert m.er_quasi == 1.0
    # Tokens: Mr* John Smith | Smith(x) | the* City of* Oslo | 1970 -> 8 of 9 masked
    # (* = ignorable, counts as masked).
    assert m.counts.tokens == 9
    assert m.token_recall == pytest.approx(8 / 9)
    assert m.token_recall_by_type == pytest.approx({"DATETIME": 1.0, "LOC": 1.0, "PERSON": 3 / 4})
    assert m.mention_recall == pytest.approx(3 / 4)
    # System tokens John, Smith, City, Oslo, 1970 are all inside a1's mentions.
    assert m.counts.system_tokens == 5
    assert m.token_precision == 1.0
    assert m.token_precision_weighted == 1.0
    assert m.f1 == pytest.approx(2 * 1.0 * (2 / 3) / (1.0 + 2 / 3))  # 0.8
    assert m.f1 == pytest.approx(0.8)


def test_partly_masked_mention() -> None:
    t = "She moved to Oslo Municipality in May."
    doc = tab_doc("d", t, a1=[mention(t, "Oslo Municipality", "e1", "LOC", "QUASI")])
    m = evaluate_tab([doc], {"d": [find(t, "Oslo")]}, weighting="uniform")
    assert m.er_all == 0.0
    assert m.er_quasi == 0.0
    assert m.mention_recall == 0.0
    assert m.token_recall == pytest.approx(1 / 2)
    assert m.token_precision == 1.0
    assert m.f1 == 0.0


def test_partly_masked_token_is_not_masked() -> None:
    t = "Witness Kowalski testified."
    doc = tab_doc("d", t, a1=[mention(t, "Kowalski", "e1", "PERSON", "DIRECT")])
    s, _ = find(t, "Kowalski")
    m = evaluate_tab([doc], {"d": [[s, s + 4]]}, weighting="uniform")
    assert m.token_recall == 0.0
    assert m.er_direct == 0.0
    # The masked piece "Kowa" lies inside the annotated mention: a correct token.
    assert m.counts.system_tokens == 1
    assert m.token_precision == 1.0


def test_two_annotators_micro_average() -> None:
    t = "Anna Berg met Olav Lie in Bergen on 3 May 2001."
    doc = tab_doc(
        "d2",
        t,
        A=[
            mention(t, "Anna Berg", "A1", "PERSON", "DIRECT"),
            mention(t, "Olav Lie", "A2", "PERSON", "QUASI"),
            mention(t, "Bergen", "A3", "LOC", "QUASI"),
            mention(t, "3 May 2001", "A4", "DATETIME", "QUASI"),
        ],
        B=[
            mention(t, "Anna Berg", "B1", "PERSON", "DIRECT"),
            mention(t, "Olav Lie", "B2", "PERSON", "NO_MASK"),
            mention(t, "Bergen", "B3", "LOC", "QUASI"),
        ],
    )
    masks = {"d2": [find(t, "Anna Berg"), find(t, "Bergen"), find(t, "3 May")]}
    m = evaluate_tab([doc], masks, weighting="uniform")
    # Entities to mask: A1 A2 A3 A4 B1 B3; masked: A1 A3 B1 B3 ("2001" left).
    assert (m.counts.entities, m.counts.entities_masked) == (6, 4)
    assert m.er_all == pytest.approx(4 / 6)
    assert m.er_direct == 1.0
    assert m.er_quasi == pytest.approx(2 / 4)
    # Tokens A: Anna Berg 2/2, Olav Lie 0/2, Bergen 1/1, 3 May 2001 2/3; B: 2/2, 1/1.
    assert m.token_recall == pytest.approx(8 / 11)
    assert m.token_recall_by_type == pytest.approx(
        {"PERSON": 4 / 6, "LOC": 2 / 2, "DATETIME": 2 / 3}
    )
    assert m.mention_recall == pytest.approx(4 / 6)
    # Masked tokens Anna Berg Bergen (both annotators), 3 May (A only): (2+2+2+1+1)/(5*2).
    assert m.token_precision == pytest.approx(8 / 10)
    assert m.f1 == pytest.approx(8 / 11)


def test_weighted_precision_uses_the_weighting() -> None:
    class LengthWeighting:
        name = "length"

        def weights(self, text: str, spans: Sequence[tuple[int, int]]) -> list[float]:
            return [float(e - s) for s, e in spans]

    t = "Anna Berg met Olav Lie in Bergen on 3 May 2001."
    doc = tab_doc(
        "d2",
        t,
        A=[
            mention(t, "Anna Berg", "A1", "PERSON", "DIRECT"),
            mention(t, "Bergen", "A3", "LOC", "QUASI"),
            mention(t, "3 May 2001", "A4", "DATETIME", "QUASI"),
        ],
        B=[
            mention(t, "Anna Berg", "B1", "PERSON", "DIRECT"),
            mention(t, "Bergen", "B3", "LOC", "QUASI"),
        ],
    )
    masks = {"d2": [find(t, "Anna Berg"), find(t, "Bergen"), find(t, "3 May")]}
    m = evaluate_tab([doc], masks, weighting=LengthWeighting())
    # Weights Anna 4, Berg 4, Bergen 6, 3 1, May 3; agreeing annotators 2,2,2,1,1.
    assert m.token_precision_weighted == pytest.approx((8 + 8 + 12 + 1 + 3) / (2 * 18))
    assert m.token_precision == pytest.approx(8 / 10)
    assert m.weighting == "length"


def test_punctuation_and_possessive_need_not_be_masked() -> None:
    t = 'The applicant, "Smith-Jones, J.", appealed.'
    doc = tab_doc("d", t, a1=[mention(t, '"Smith-Jones, J."', "e1", "PERSON", "DIRECT")])
    j = find(t, "J.")[0]
    masks = {"d": [find(t, "Smith"), find(t, "Jones"), [j, j + 1]]}
    m = evaluate_tab([doc], masks, weighting="uniform")
    # Quotes, hyphen, comma, space and period are ignorable.
    assert m.er_all == 1.0
    assert m.mention_recall == 1.0
    assert m.token_recall == 1.0  # Smith, Jones, J


def test_possessive_suffix_is_ignorable_in_mentions_only() -> None:
    t = "It was Smith\u2019s car."
    doc = tab_doc("d", t, a1=[mention(t, "Smith\u2019s", "e1", "PERSON", "DIRECT")])
    m = evaluate_tab([doc], {"d": [find(t, "Smith")]}, weighting="uniform")
    # The mention counts as masked ("\u2019s" is on TAB's list), but as in TAB the
    # lone token "s" is not an ignorable word, so token recall is 1/2.
    assert m.mention_recall == 1.0
    assert m.er_all == 1.0
    assert m.token_recall == pytest.approx(1 / 2)


def test_titles_outside_tab_list_must_be_masked() -> None:
    # TAB's list holds mr/mrs/ms but not "dr": an unmasked "Dr" leaves the mention unmasked.
    t = "Dr Hansen and Mrs Olsen spoke."
    doc = tab_doc(
        "d",
        t,
        a1=[
            mention(t, "Dr Hansen", "e1", "PERSON", "DIRECT"),
            mention(t, "Mrs Olsen", "e2", "PERSON", "DIRECT"),
        ],
    )
    m = evaluate_tab([doc], {"d": [find(t, "Hansen"), find(t, "Olsen")]}, weighting="uniform")
    assert m.er_direct == pytest.approx(1 / 2)
    assert m.token_recall == pytest.approx(3 / 4)  # Dr missing; Mrs ignorable


def test_ignorable_words_are_judged_inside_the_span() -> None:
    t = "Pa a of offer"
    masked = coverage_mask(len(t), [])
    assert is_span_masked(t, 3, 4, masked)  # lone "a"
    assert is_span_masked(t, 5, 7, masked)  # lone "of"
    assert not is_span_masked(t, 0, 2, masked)  # "a" inside "Pa" is not a word
    assert not is_span_masked(t, 8, 13, masked)  # "of" inside "offer"
    assert is_span_masked(t, 2, 8, masked)  # " a of " = space, a, space, of, space


def test_empty_masks() -> None:
    m = evaluate_tab([doc1()], {"d1": []}, weighting="uniform")
    assert (m.er_all, m.er_direct, m.er_quasi) == (0.0, 0.0, 0.0)
    # "Mr", "the" and "of" are ignorable tokens, so they count as masked even here.
    assert m.token_recall == pytest.approx(3 / 9)
    assert m.mention_recall == 0.0
    assert m.counts.system_tokens == 0
    assert m.token_precision == 0.0  # no masked token: zero denominator reported as 0
    assert m.f1 == 0.0


def test_drop_ignorable_tokens() -> None:
    # Without Mr, the, of: John Smith | Smith | City Oslo | 1970 -> 5 of 6 masked.
    m = evaluate_tab([doc1()], masks1(), weighting="uniform", drop_ignorable_tokens=True)
    assert m.counts.tokens == 6
    assert m.token_recall == pytest.approx(5 / 6)
    assert m.er_all == pytest.approx(2 / 3)  # entity recall is unchanged
    empty = evaluate_tab([doc1()], {"d1": []}, weighting="uniform", drop_ignorable_tokens=True)
    assert empty.token_recall == 0.0


def test_missing_document_counts_as_unmasked_unless_skipped() -> None:
    t = "Ola Nordmann was heard."
    other = tab_doc("d9", t, a1=[mention(t, "Ola Nordmann", "x1", "PERSON", "DIRECT")])
    masks = masks1()
    m = evaluate_tab([doc1(), other], masks, weighting="uniform")
    assert m.counts.n_documents == 2
    assert m.counts.n_documents_without_masks == 1
    assert m.er_direct == 0.0
    assert m.er_all == pytest.approx(2 / 4)
    skipped = evaluate_tab([doc1(), other], masks, weighting="uniform", skip_missing_documents=True)
    assert skipped.counts.n_documents == 1
    assert skipped.er_all == pytest.approx(2 / 3)


def test_perfect_masks_score_one() -> None:
    docs = [doc1()]
    gold = GoldDocument.from_tab(docs[0])
    masks = {
        "d1": [[mm.start, mm.end] for e in gold.entities for mm in e.mentions_to_mask],
    }
    m = evaluate_tab(docs, masks)
    assert m.weighting == "corpus_unigram"
    for value in (
        m.er_all,
        m.er_direct,
        m.er_quasi,
        m.token_recall,
        m.mention_recall,
        m.token_precision,
        m.token_precision_weighted,
        m.mention_precision,
        m.f1,
    ):
        assert value == 1.0
    assert set(m.token_recall_by_type.values()) == {1.0}


def test_over_masking_lowers_precision_only() -> None:
    t = "Anna Berg met Olav Lie."
    doc = tab_doc("d", t, a1=[mention(t, "Anna Berg", "e1", "PERSON", "DIRECT")])
    m = evaluate_tab([doc], {"d": [[0, len(t)]]}, weighting="uniform")
    assert m.er_all == 1.0
    assert m.token_precision == pytest.approx(2 / 5)  # Anna Berg met Olav Lie
    assert m.mention_precision == 0.0  # the one masked span is not inside a mention
    assert m.f1 == pytest.approx(2 * 0.4 / 1.4)


def test_overlapping_masks_are_not_counted_twice() -> None:
    t = "Anna Berg met Olav Lie."
    doc = tab_doc("d", t, a1=[mention(t, "Anna Berg", "e1", "PERSON", "DIRECT")])
    m = evaluate_tab([doc], {"d": [[0, 9], [0, 9], [5, 13]]}, weighting="uniform")
    assert m.counts.system_tokens == 3  # Anna Berg met
    assert m.token_precision == pytest.approx(2 / 3)


def test_labeled_mask_spans_are_accepted() -> None:
    t = "Anna Berg met Olav Lie."
    doc = tab_doc("d", t, a1=[mention(t, "Anna Berg", "e1", "PERSON", "DIRECT")])
    m = evaluate_tab([doc], {"d": [[0, 9, "PERSON"], {"start": 14, "end": 18, "label": "PERSON"}]})
    assert m.er_all == 1.0
    assert m.token_precision == pytest.approx(2 / 3)


def test_invalid_masks_raise() -> None:
    with pytest.raises(ValueError, match="absent from the gold"):
        evaluate_tab([doc1()], {"nope": [[0, 1]]})
    with pytest.raises(ValueError, match="beyond the text end"):
        evaluate_tab([doc1()], {"d1": [[0, len(TEXT1) + 5]]})
    with pytest.raises(ValueError, match="invalid span"):
        evaluate_tab([doc1()], {"d1": [[5, 5]]})


def test_uniform_weighting_object_matches_name() -> None:
    by_name = evaluate_tab([doc1()], masks1(), weighting="uniform")
    by_obj = evaluate_tab([doc1()], masks1(), weighting=UniformWeighting())
    assert by_name.to_dict() == by_obj.to_dict()


def test_evaluate_files_keys(tmp_path: Path) -> None:
    gold_path = tmp_path / "gold.json"
    masks_path = tmp_path / "masks.json"
    gold_path.write_text(json.dumps([doc1()]), encoding="utf-8")
    masks_path.write_text(json.dumps(masks1()), encoding="utf-8")
    out = evaluate_files(gold_path, masks_path, weighting="uniform")
    for key in (
        "ER_all",
        "ER_direct",
        "ER_quasi",
        "token_recall",
        "token_precision",
        "F1",
        "token_recall_by_type",
        "mention_recall",
        "token_precision_weighted",
    ):
        assert key in out
    assert out["ER_all"] == pytest.approx(2 / 3)
    assert out["F1"] == pytest.approx(0.8)
    assert out["token_recall_by_type"]["PERSON"] == pytest.approx(0.75)
    json.dumps(out)  # must serialise as is
