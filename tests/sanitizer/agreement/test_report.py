"""Matrices, reference comparisons, project/document reports, inputs and registries."""

from __future__ import annotations

import json

import pytest

from sanitizer.agreement import (
    AnnotatedSpan,
    agreement_matrix,
    agreement_report,
    cohen_kappa,
    document_from_tab,
    krippendorff_alpha,
    label_spaces,
    light_kappa,
    make_document,
    pairwise_measures,
    reference_agreement,
    span_unit_bounds,
)
from sanitizer.types import EntitySpan


@pytest.fixture
def docs():
    # Same three annotators as the hand-computed Light's kappa case (A = B = Q Q N N,
    # C = Q Q Q Q), plus a single-annotator document that every report must skip.
    d1 = make_document(
        {"A": [(0, 2, "QUASI")], "B": [(0, 2, "QUASI")], "C": [(0, 4, "QUASI")]},
        length=4,
        doc_id="d1",
    )
    lone = make_document({"A": [(0, 1, "DIRECT")]}, length=3, doc_id="lone")
    return [d1, lone]


def test_kappa_matrix(docs) -> None:
    matrix = agreement_matrix(docs, "cohen_kappa", level="character")
    assert matrix.names == ("A", "B", "C")
    assert matrix.values[0][0] is None and matrix.n_documents[0][0] == 0
    assert matrix.get("A", "B") == pytest.approx(1.0)
    assert matrix.get("A", "C") == pytest.approx(0.0)
    assert matrix.get("C", "B") == pytest.approx(0.0)
    assert matrix.n_documents[0][1] == 1
    payload = json.loads(json.dumps(matrix.as_dict()))
    assert payload["cells"][0][2]["observed_agreement"] == 0.5


def test_f1_matrix_is_candidate_against_row_reference(docs) -> None:
    matrix = agreement_matrix(docs, "span_f1", match="exact")
    # A (0,2) vs C (0,4): no exact match -> F1 0; A vs B identical -> 1.
    assert matrix.get("A", "C") == 0.0
    assert matrix.get("A", "B") == 1.0
    assert matrix.cells[0][1] is not None and matrix.cells[0][1]["reference"] == "A"


def test_reference_agreement_machine_vs_gold() -> None:
    gold = [(0, 4, "DIRECT"), (10, 14, "QUASI")]
    doc = make_document(
        {
            "gold": gold,
            "system_x": [(0, 4, "DIRECT"), (10, 12, "QUASI"), (20, 22, "QUASI")],
            "system_y": [(0, 4, "QUASI")],
        },
        length=30,
    )
    result = reference_agreement([doc], "gold", "span_f1", match="overlap")
    x, y = result.results["system_x"], result.results["system_y"]
    # x: 2 of 3 predictions overlap the 2 gold spans -> P = 2/3, R = 1.
    assert (x["precision"], x["recall"]) == (pytest.approx(2 / 3), 1.0)
    # y: 1 prediction, matched -> P = 1, R = 1/2.
    assert (y["precision"], y["recall"]) == (1.0, 0.5)
    assert set(result.results) == {"system_x", "system_y"}
    kappas = reference_agreement([doc], "gold", "cohen_kappa", level="span")
    # Span units of gold + y: (0,4) DIRECT/QUASI, (10,14) QUASI/NONE -> p_o = 0.
    # Gold: DIRECT 1/2, QUASI 1/2; y: QUASI 1/2, NONE 1/2 -> p_e = 1/2 * 1/2 = 1/4.
    # kappa = (0 - 1/4) / (3/4) = -1/3.
    assert kappas.results["system_y"]["value"] == pytest.approx(-1 / 3)
    json.dumps(kappas.as_dict())


def test_project_report_skips_single_annotator_documents(docs) -> None:
    report = agreement_report(docs, per_document=True)
    assert (report.n_documents, report.n_skipped_documents) == (1, 1)
    light = report.find("light_kappa", "character", "identifier", "all")
    assert light.value == pytest.approx(1 / 3)
    alpha = report.find("krippendorff_alpha", "character", "identifier", "all")
    assert alpha.value == pytest.approx(5 / 16)
    assert len(report.span_f1) == 4
    assert [doc.doc_id for doc in report.documents] == ["d1"]
    payload = json.loads(json.dumps(report.as_dict()))
    assert payload["documents"][0]["n_documents"] == 1


def test_project_pools_units_over_documents() -> None:
    # d1: A = Q Q, B = Q Q; d2: A = Q N, B = N Q (length 2, no whitespace, 4 units pooled).
    # Pooled pairs: d1 gives (Q,Q) twice, d2 gives (Q,N) and (N,Q).
    # p_o = 2/4; A: Q 3, N 1; B: Q 3, N 1 -> p_e = (9 + 1)/16 = 5/8; kappa = (1/2-5/8)/(3/8) = -1/3.
    d1 = make_document({"A": [(0, 2, "QUASI")], "B": [(0, 2, "QUASI")]}, length=2)
    d2 = make_document({"A": [(0, 1, "QUASI")], "B": [(1, 2, "QUASI")]}, length=2)
    pooled = cohen_kappa([d1, d2], "A", "B")
    assert pooled.value == pytest.approx(-1 / 3)
    assert (pooled.n_units, pooled.n_documents) == (4, 2)
    # d1 alone has one label everywhere: undefined, not 1.0.
    assert cohen_kappa([d1], "A", "B").value is None
    # Alpha, 8 values Q 6, N 2: D_e = (64 - 36 - 4)/56 = 3/7, D_o = 4/8; alpha = 1 - 7/6 = -1/6.
    assert krippendorff_alpha([d1, d2]).value == pytest.approx(-1 / 6)
    assert light_kappa([d1, d2]).value == pytest.approx(-1 / 3)


def test_span_units_are_overlap_components() -> None:
    doc = make_document(
        {
            "A": [(0, 5, "QUASI")],
            "B": [(4, 10, "QUASI"), (20, 22, "DIRECT")],
            "C": [(9, 12, "NO_MASK")],
        },
        length=30,
    )
    assert span_unit_bounds(doc, ["A", "B", "C"]) == [(0, 12), (20, 22)]
    # Touching spans (end == start) share no character: two units.
    assert span_unit_bounds(doc, ["A"]) == [(0, 5)]
    touching = make_document({"A": [(0, 3, "QUASI")], "B": [(3, 6, "QUASI")]}, length=6)
    assert span_unit_bounds(touching, ["A", "B"]) == [(0, 3), (3, 6)]


def test_inputs_from_tab_and_entity_spans() -> None:
    text = "Mr Smith lives in Oslo."
    raw = {
        "doc_id": "tab-1",
        "text": text,
        "annotations": {
            "annotator1": {
                "entity_mentions": [
                    {
                        "start_offset": 3,
                        "end_offset": 8,
                        "identifier_type": "DIRECT",
                        "entity_type": "PERSON",
                    },
                    {
                        "start_offset": 18,
                        "end_offset": 22,
                        "identifier_type": "QUASI",
                        "entity_type": "LOC",
                    },
                ]
            },
            "annotator2": {
                "entity_mentions": [
                    {
                        "start_offset": 3,
                        "end_offset": 8,
                        "identifier_type": "DIRECT",
                        "entity_type": "PERSON",
                    }
                ]
            },
        },
    }
    doc = document_from_tab(raw)
    assert doc.annotations["annotator1"][1] == AnnotatedSpan(18, 22, "QUASI", "LOC")
    machine = EntitySpan(3, 8, "PERSON", "Smith", identifier_type="DIRECT")
    doc2 = make_document({"gold": doc.annotations["annotator1"], "ner": [machine]}, text=text)
    assert doc2.annotations["ner"] == (AnnotatedSpan(3, 8, "DIRECT", "PERSON"),)
    # Entity-type agreement on span units: (3,8) PERSON/PERSON, (18,22) LOC/NONE.
    kappa = cohen_kappa([doc], "annotator1", "annotator2", level="span", label_space="entity_type")
    # p_o = 1/2; A: PERSON 1, LOC 1; B: PERSON 1, NONE 1 -> p_e = 1/4; kappa = 1/3.
    assert kappa.value == pytest.approx(1 / 3)


def test_invalid_inputs_are_rejected() -> None:
    with pytest.raises(ValueError, match="identifier_type"):
        make_document({"A": [(0, 2, "MAYBE")]}, length=3)
    with pytest.raises(ValueError, match="exceeds the text length"):
        make_document({"A": [(0, 5, "QUASI")]}, length=3)
    with pytest.raises(ValueError, match="scope"):
        cohen_kappa([make_document({"A": [], "B": []}, length=1)], "A", "B", scope="some")


def test_registries_list_components() -> None:
    assert label_spaces.names() == ["entity_type", "identifier", "masked"]
    assert pairwise_measures.names() == ["cohen_kappa", "span_f1"]
    with pytest.raises(KeyError, match="known: cohen_kappa, span_f1"):
        pairwise_measures.get("fleiss")
