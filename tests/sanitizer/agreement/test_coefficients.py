"""Kappa and alpha on hand-computed cases, checked against sklearn and krippendorff."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from sanitizer.agreement import (
    cohen_kappa,
    kappa_from_table,
    krippendorff_alpha,
    light_kappa,
    make_document,
    units,
)
from sanitizer.agreement.labels import get_label_space

# "ab cd ef gh": counted (non-whitespace) characters are 0,1,3,4,6,7,9,10.
TEXT = "ab cd ef gh"
A_SPANS = [(0, 2, "DIRECT"), (3, 5, "QUASI")]
B_SPANS = [(0, 2, "DIRECT"), (3, 8, "NO_MASK")]


@pytest.fixture
def doc():
    return make_document({"A": A_SPANS, "B": B_SPANS}, text=TEXT, doc_id="d1")


def test_character_units_skip_whitespace_and_use_none(doc) -> None:
    space = get_label_space("identifier")
    codes = units(doc, ["A", "B"], space, "character", "all")
    labels = [[space.labels[c] for c in row] for row in codes]
    assert labels[0] == ["DIRECT", "DIRECT", "QUASI", "QUASI", "NONE", "NONE", "NONE", "NONE"]
    assert labels[1] == [
        "DIRECT",
        "DIRECT",
        "NO_MASK",
        "NO_MASK",
        "NO_MASK",
        "NO_MASK",
        "NONE",
        "NONE",
    ]


def test_char_kappa_identifier_scope_all(doc) -> None:
    # 8 units; agreement at 0,1 (DIRECT) and 9,10 (NONE): p_o = 4/8.
    # A: DIRECT 2, QUASI 2, NONE 4; B: DIRECT 2, NO_MASK 4, NONE 2.
    # p_e = (2*2 + 4*2) / 64 = 3/16; kappa = (1/2 - 3/16) / (13/16) = 5/13.
    result = cohen_kappa([doc], "A", "B", level="character", label_space="identifier")
    assert result.value == pytest.approx(5 / 13)
    assert result.observed_agreement == pytest.approx(0.5)
    assert (result.n_units, result.n_documents) == (8, 1)
    assert result.reason is None


def test_char_kappa_identifier_scope_annotated(doc) -> None:
    # Only characters inside a span of A or B: 0,1,3,4,6,7 (6 units), agreement 2/6.
    # A: DIRECT 2, QUASI 2, NONE 2; B: DIRECT 2, NO_MASK 4 -> p_e = 4/36 = 1/9.
    # kappa = (1/3 - 1/9) / (8/9) = 1/4.
    result = cohen_kappa([doc], "A", "B", scope="annotated")
    assert result.value == pytest.approx(0.25)
    assert result.n_units == 6


def test_char_kappa_masked(doc) -> None:
    # Binary: A = M M M M N N N N, B = M M N N N N N N (NO_MASK is not masked).
    # p_o = 6/8; A: M 4 N 4; B: M 2 N 6 -> p_e = (8 + 24)/64 = 1/2; kappa = (3/4-1/2)/(1/2) = 1/2.
    result = cohen_kappa([doc], "A", "B", label_space="masked")
    assert result.value == pytest.approx(0.5)


def test_char_alpha_identifier(doc) -> None:
    # 16 values: DIRECT 4, QUASI 2, NO_MASK 4, NONE 6; sum n_c^2 = 16+4+16+36 = 72.
    # D_e = (256 - 72) / (16*15) = 23/30. Disagreeing units 3,4,6,7 add 2 off-diagonal
    # coincidences each: D_o = 8/16 = 1/2. alpha = 1 - (1/2)/(23/30) = 8/23.
    result = krippendorff_alpha([doc], level="character", label_space="identifier")
    assert result.value == pytest.approx(8 / 23)
    assert (result.n_units, result.n_documents) == (8, 1)


def test_char_alpha_masked_scope_annotated(doc) -> None:
    # 6 units; A = M M M M N N, B = M M N N N N: M 6, N 6 values, n = 12.
    # D_e = (144 - 72) / 132 = 6/11; D_o = 4/12 = 1/3; alpha = 1 - (1/3)/(6/11) = 7/18.
    result = krippendorff_alpha([doc], label_space="masked", scope="annotated")
    assert result.value == pytest.approx(7 / 18)


def test_span_level_kappa_and_alpha(doc) -> None:
    # Units: (0,2) A DIRECT / B DIRECT; (3,8) A QUASI / B NO_MASK.
    # kappa: p_o = 1/2, p_e = 1/4 -> 1/3.
    # alpha: values DIRECT 2, QUASI 1, NO_MASK 1 (n=4): D_e = (16-6)/12 = 5/6, D_o = 2/4,
    # alpha = 1 - (1/2)/(5/6) = 2/5.
    kappa = cohen_kappa([doc], "A", "B", level="span")
    alpha = krippendorff_alpha([doc], level="span")
    assert kappa.value == pytest.approx(1 / 3)
    assert kappa.n_units == 2
    assert kappa.scope is None
    assert alpha.value == pytest.approx(0.4)


def test_three_annotators_light_kappa_and_alpha() -> None:
    # "abcd": A = Q Q N N, B = Q Q N N, C = Q Q Q Q (N = NONE).
    # Pairs: kappa(A,B) = 1; kappa(A,C): p_o = 1/2, p_e = (2*4)/16 = 1/2 -> 0; same for B,C.
    # Light's kappa = 1/3.
    # Alpha: units 0,1 give o_QQ = 3 each; units 2,3 give o_NN = 1, o_NQ = o_QN = 1 each.
    # n_Q = 8, n_N = 4, n = 12; D_o = 4/12; D_e = (144-64-16)/132 = 16/33;
    # alpha = 1 - (1/3)/(16/33) = 5/16.
    doc = make_document(
        {"A": [(0, 2, "QUASI")], "B": [(0, 2, "QUASI")], "C": [(0, 4, "QUASI")]}, length=4
    )
    light = light_kappa([doc])
    assert light.value == pytest.approx(1 / 3)
    assert light.n_pairs == 3
    alpha = krippendorff_alpha([doc])
    assert alpha.value == pytest.approx(5 / 16)
    reliability = [[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 0]]
    assert alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal")
    )


def test_own_overlapping_spans_take_the_stricter_label() -> None:
    doc = make_document(
        {"A": [(0, 3, "NO_MASK"), (2, 5, "DIRECT")], "B": [(0, 5, "DIRECT")]}, length=5
    )
    space = get_label_space("identifier")
    chars = units(doc, ["A", "B"], space, "character")
    assert [space.labels[c] for c in chars[0]] == [
        "NO_MASK",
        "NO_MASK",
        "DIRECT",
        "DIRECT",
        "DIRECT",
    ]
    spans = units(doc, ["A", "B"], space, "span")
    assert spans.tolist() == [[space.code("DIRECT")], [space.code("DIRECT")]]


def _naive_labels(length: int, spans: list[tuple[int, int, str]], text: str) -> list[str]:
    order = {"DIRECT": 0, "QUASI": 1, "NO_MASK": 2}
    labels = []
    for i in range(length):
        if text[i].isspace():
            continue
        inside = [lab for s, e, lab in spans if s <= i < e]
        labels.append(min(inside, key=order.__getitem__) if inside else "NONE")
    return labels


def test_pooled_kappa_and_alpha_match_reference_implementations() -> None:
    rng = np.random.default_rng(7)
    texts = [
        "The applicant Mr X was born in 1970 in Oslo.",
        "He lives in Bergen and works at ACME.",
    ]
    kinds = ["DIRECT", "QUASI", "NO_MASK"]
    annotations: list[dict[str, list[tuple[int, int, str]]]] = []
    for n, text in enumerate(texts):
        per_doc = {}
        # C only annotates the first document: it is missing (NaN) in the second.
        for name in ["A", "B", "C"] if n == 0 else ["A", "B"]:
            spans = []
            for _ in range(4):
                start = int(rng.integers(0, len(text) - 6))
                spans.append((start, start + int(rng.integers(2, 6)), str(rng.choice(kinds))))
            per_doc[name] = spans
        annotations.append(per_doc)
    docs = [
        make_document(ann, text=text, doc_id=str(i))
        for i, (ann, text) in enumerate(zip(annotations, texts, strict=True))
    ]
    # Kappa A vs B pooled over both documents = sklearn on the concatenated label vectors.
    pairs = list(zip(annotations, texts, strict=True))
    a_labels = [lab for ann, t in pairs for lab in _naive_labels(len(t), ann["A"], t)]
    b_labels = [lab for ann, t in pairs for lab in _naive_labels(len(t), ann["B"], t)]
    ours = cohen_kappa(docs, "A", "B")
    assert ours.value == pytest.approx(cohen_kappa_score(a_labels, b_labels))
    assert ours.n_units == len(a_labels)
    # Alpha over A, B, C with C missing on the second document.
    codes = {"DIRECT": 0, "QUASI": 1, "NO_MASK": 2, "NONE": 3}
    rows = []
    for name in ["A", "B", "C"]:
        row: list[float] = []
        for ann, text in zip(annotations, texts, strict=True):
            if name in ann:
                row += [codes[x] for x in _naive_labels(len(text), ann[name], text)]
            else:
                row += [np.nan] * sum(not ch.isspace() for ch in text)
        rows.append(row)
    expected = krippendorff.alpha(reliability_data=rows, level_of_measurement="nominal")
    assert krippendorff_alpha(docs).value == pytest.approx(expected)


def test_identical_single_label_gives_none_with_reason() -> None:
    doc = make_document({"A": [], "B": []}, text="no names here")
    kappa = cohen_kappa([doc], "A", "B")
    alpha = krippendorff_alpha([doc])
    assert kappa.value is None and "chance agreement is 1" in (kappa.reason or "")
    assert kappa.observed_agreement == 1.0
    assert alpha.value is None and "expected disagreement is 0" in (alpha.reason or "")
    json.dumps([kappa.as_dict(), alpha.as_dict()])  # no NaN, serialisable


def test_degenerate_inputs() -> None:
    single = make_document({"A": [(0, 2, "QUASI")]}, length=4)
    assert krippendorff_alpha([single]).reason == "alpha needs at least two annotators"
    assert light_kappa([single]).reason == "no two annotators share a document"
    no_spans = make_document({"A": [], "B": []}, length=0)
    assert cohen_kappa([no_spans], "A", "B").reason == "no units to compare"
    other = make_document({"C": [(0, 1, "QUASI")]}, length=2)
    unshared = cohen_kappa([single, other], "A", "C")
    assert (unshared.value, unshared.n_documents) == (None, 0)
    assert unshared.reason == "the two annotators share no document"


def test_one_sided_constant_labels_give_zero_not_none() -> None:
    # A labels everything NONE, B labels half QUASI: p_o = 1/2 = p_e -> kappa 0.
    assert kappa_from_table(np.array([[0, 0], [2, 2]])) == (0.0, None)
