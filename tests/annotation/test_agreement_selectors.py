"""DB sets → sanitizer.agreement inputs → figures, checked against hand-computed values.

Text ``"aaaa bbbb cccc dddd"``: four 4-letter words (16 non-whitespace characters).
alice: w1 DIRECT, w2 QUASI. bob: w1 DIRECT, w2 NO_MASK, w3 QUASI.

Character level (labels DIRECT, QUASI, NO_MASK, NONE): pairs (D,D)×4, (Q,N)×4,
(NONE,Q)×4, (NONE,NONE)×4 → p_o = 1/2; alice's marginals (¼, ¼, 0, ½), bob's all ¼ →
p_e = 1/16 + 1/16 + 0 + 1/8 = 1/4 → κ = (1/2 − 1/4)/(3/4) = 1/3.
Alpha: value totals D 8, Q 8, N 4, NONE 12 (n = 32); D_o = 16/32; D_e = (32² − 288)/(32·31)
= 736/992 → α = 1 − (1/2)/(736/992) = 15/46.
Span level: units w1, w2, w3 → (D,D), (Q,N), (NONE,Q): p_o = 1/3, p_e = 2/9 → κ = 1/7;
alpha: totals D 2, Q 2, N 1, NONE 1 (n = 6), D_o = 4/6, D_e = 26/30 → α = 3/13.
Span F1 (alice as reference): 2 exact matches of 2 vs 3 spans → F1 = 4/5, P = 2/3, R = 1.
"""

from __future__ import annotations

import pytest

from annotation.models import SetKind, SetSource, SetStatus
from annotation.selectors.agreement import (
    document_agreement,
    document_disagreements,
    documents_as_agreement_input,
    project_agreement,
)
from tests.factories import (
    AnnotationSetFactory,
    DocumentFactory,
    ProjectFactory,
    SpanFactory,
    UserFactory,
)

TEXT = "aaaa bbbb cccc dddd"
W1, W2, W3 = (0, 4), (5, 9), (10, 14)

pytestmark = pytest.mark.django_db


def _set(document, spans, *, kind=SetKind.HUMAN, annotator=None, **extra):
    annotation_set = AnnotationSetFactory.create(
        document=document,
        kind=kind,
        annotator=annotator if kind == SetKind.HUMAN else None,
        status=SetStatus.SUBMITTED,
        **extra,
    )
    for (start, end), identifier_type, *entity in spans:
        SpanFactory.create(
            annotation_set=annotation_set,
            start=start,
            end=end,
            identifier_type=identifier_type,
            entity_type=entity[0] if entity else "MISC",
        )
    return annotation_set


@pytest.fixture
def document():
    document = DocumentFactory.create(text=TEXT, external_id="d1")
    _set(document, [(W1, "DIRECT"), (W2, "QUASI")], annotator=UserFactory.create(username="alice"))
    _set(
        document,
        [(W1, "DIRECT"), (W2, "NO_MASK"), (W3, "QUASI")],
        annotator=UserFactory.create(username="bob"),
    )
    return document


def test_sets_become_named_annotators(document):
    _set(document, [(W1, "DIRECT")], kind=SetKind.GOLD, source=SetSource.ADJUDICATION)
    _set(document, [(W1, "DIRECT")], kind=SetKind.MACHINE, source_name="ner")
    (item,) = documents_as_agreement_input(documents=[document])
    assert item.humans == ["alice", "bob"]
    assert item.machines == ["machine:ner"]
    assert item.has_gold
    assert [(s.start, s.end, s.identifier_type) for s in item.document.annotations["bob"]] == [
        (0, 4, "DIRECT"),
        (5, 9, "NO_MASK"),
        (10, 14, "QUASI"),
    ]
    assert item.document.text == TEXT


def test_newest_machine_run_of_a_name_is_used(document):
    _set(document, [(W1, "DIRECT")], kind=SetKind.MACHINE, source_name="ner")
    _set(document, [(W2, "QUASI")], kind=SetKind.MACHINE, source_name="ner")
    (item,) = documents_as_agreement_input(documents=[document])
    assert [(s.start, s.end) for s in item.document.annotations["machine:ner"]] == [W2]


def test_document_agreement_matches_hand_computed_values(document):
    summary = document_agreement(document=document)
    c = summary["coefficients"]
    assert c["kappa_character"] == pytest.approx(1 / 3)
    assert c["alpha_character"] == pytest.approx(15 / 46)
    assert c["kappa_span"] == pytest.approx(1 / 7)
    assert c["alpha_span"] == pytest.approx(3 / 13)
    assert c["f1_exact"] == pytest.approx(4 / 5)
    assert c["f1_overlap"] == pytest.approx(4 / 5)
    (pair,) = summary["pairs"]
    assert (pair["a"], pair["b"]) == ("alice", "bob")
    assert pair["kappa_character"] == pytest.approx(1 / 3)
    assert pair["kappa_span"] == pytest.approx(1 / 7)
    assert pair["precision_exact"] == pytest.approx(2 / 3)
    assert pair["recall_exact"] == pytest.approx(1.0)
    assert summary["matrix"]["names"] == ["alice", "bob"]
    assert summary["matrix"]["kappa_character"][0][1] == pytest.approx(1 / 3)
    assert summary["matrix"]["kappa_character"][1][0] == pytest.approx(1 / 3)
    assert summary["matrix"]["kappa_character"][0][0] is None


def test_exact_and_overlap_f1_differ_on_partial_matches():
    document = DocumentFactory.create(text=TEXT)
    _set(document, [((0, 9), "QUASI")], annotator=UserFactory.create(username="carol"))
    _set(document, [(W1, "QUASI")], annotator=UserFactory.create(username="dave"))
    c = document_agreement(document=document)["coefficients"]
    assert c["f1_exact"] == 0.0
    assert c["f1_overlap"] == 1.0


def test_machine_against_gold(document):
    # gold: w1 DIRECT, w2 QUASI; machine: w1 DIRECT, w2+w3 (5..14) QUASI.
    _set(document, [(W1, "DIRECT"), (W2, "QUASI")], kind=SetKind.GOLD)
    _set(document, [(W1, "DIRECT"), ((5, 14), "QUASI")], kind=SetKind.MACHINE, source_name="ner")
    summary = document_agreement(document=document)
    rows = {row["b"]: row for row in summary["against_gold"]}
    machine = rows["machine:ner"]
    assert machine["kind"] == "machine"
    # Exact: 1 of 2 vs 2 spans → F1 1/2; overlap: both match → 1.
    assert machine["f1_exact"] == pytest.approx(0.5)
    assert machine["f1_overlap"] == pytest.approx(1.0)
    # Characters: (D,D)×4, (Q,Q)×4, (NONE,Q)×4, (NONE,NONE)×4 → p_o 3/4; gold marginals
    # (¼, ¼, 0, ½), machine (¼, ½, 0, ¼) → p_e 5/16 → κ = (12/16 − 5/16)/(11/16) = 7/11.
    assert machine["kappa_character"] == pytest.approx(7 / 11)
    # Humans are compared with gold too: alice equals gold.
    assert rows["alice"]["f1_exact"] == 1.0
    assert rows["alice"]["kappa_character"] == pytest.approx(1.0)


def test_project_agreement_pools_documents(document):
    other = DocumentFactory.create(project=document.project, text=TEXT, external_id="d2")
    alice = document.annotation_sets.get(annotator__username="alice").annotator
    bob = document.annotation_sets.get(annotator__username="bob").annotator
    # Identical sets on the second document: 4 more exact matches out of 2 + 2 spans.
    _set(other, [(W1, "DIRECT"), (W2, "QUASI")], annotator=alice)
    _set(other, [(W1, "DIRECT"), (W2, "QUASI")], annotator=bob)
    summary = project_agreement(project=document.project)
    assert summary["n_documents"] == 2
    assert summary["n_multi_annotated"] == 2
    # Pooled exact F1: 2·(2 + 2) / (5 + 4) = 8/9.
    assert summary["coefficients"]["f1_exact"] == pytest.approx(8 / 9)
    per_doc = {row["external_id"]: row for row in summary["documents"]}
    assert per_doc["d1"]["kappa_character"] == pytest.approx(1 / 3)
    assert per_doc["d2"]["kappa_character"] == pytest.approx(1.0)


def test_single_annotator_gives_no_coefficients():
    document = DocumentFactory.create(text=TEXT)
    _set(document, [(W1, "DIRECT")], annotator=UserFactory.create(username="solo"))
    summary = project_agreement(project=document.project)
    assert summary["coefficients"] is None
    assert summary["pairs"] == []


def test_disagreements_are_the_differing_units(document):
    units = document_disagreements(document=document)
    assert [(u["start"], u["end"]) for u in units] == [W2, W3]
    assert units[1]["versions"]["alice"] == []
    assert units[1]["versions"]["bob"] == [(10, 14, "MISC", "QUASI")]


def test_no_disagreement_when_sets_are_equal():
    document = DocumentFactory.create(text=TEXT, project=ProjectFactory.create())
    for name in ("e1", "e2"):
        _set(document, [(W1, "DIRECT"), (W3, "QUASI")], annotator=UserFactory.create(username=name))
    assert document_disagreements(document=document) == []
