"""The ensemble re-identification rate and the privacy/utility curve."""

from __future__ import annotations

from pathlib import Path

import pytest

from sanitizer.reid.base import ReidDocument, ReidModel, build_model
from sanitizer.reid.curve import METHODS, compute_curve, format_table
from sanitizer.reid.evaluate import (
    curve_json,
    curve_png,
    ensemble_ranks,
    load_curve,
    reidentification_rate,
)
from tests.sanitizer.reid.helpers import DOCS, StubRecognizer, profiles, write_kb


@pytest.fixture(scope="module")
def models() -> list[ReidModel]:
    people = profiles()
    return [build_model("bm25", people), build_model("tfidf-char", people)]


def test_a_document_is_reidentified_when_any_model_ranks_it_first(
    models: list[ReidModel],
) -> None:
    docs = [
        ReidDocument("d0", str(DOCS[0]["text"]), "p0"),
        ReidDocument("d4", str(DOCS[2]["text"]), "p4"),
    ]
    ranks = ensemble_ranks(models, docs, {})
    assert ranks == {"bm25": {"d0": 1, "d4": 1}, "tfidf-char": {"d0": 1, "d4": 1}}
    assert reidentification_rate(ranks) == 1.0
    assert reidentification_rate({"a": {"d0": 2, "d4": 1}, "b": {"d0": 3, "d4": 5}}) == 0.5
    everything = {d.doc_id: [(0, len(d.text))] for d in docs}
    assert reidentification_rate(ensemble_ranks(models, docs, everything)) == 0.0
    with pytest.raises(ValueError, match="targets not among"):
        ensemble_ranks(models, [ReidDocument("z", "text", "nobody")], {})


def test_curve_covers_every_method(tmp_path: Path, models: list[ReidModel]) -> None:
    kb = write_kb(tmp_path / "kb.jsonl")
    docs = [*DOCS, {"doc_id": "out", "text": "Someone else.", "target": "nobody"}]
    points = compute_curve(
        docs,
        models,
        greedy_models=models[:1],
        kb_path=str(kb),
        recognizer=StubRecognizer(),
        greedy_ks=(1, 3),
        kanon_ks=(2, 5),
        risk_options={"measures": "lm"},
    )
    assert [p.method for p in points] == [
        "none",
        "spacy",
        "mask-all",
        "kanon",
        "kanon",
        "risk",
        "greedy",
        "greedy",
    ]
    assert set(METHODS) == {p.method for p in points}
    for p in points:
        assert 0.0 <= p.rate <= 1.0 and 0.0 <= p.share_masked <= 1.0 and 0.0 <= p.info_loss <= 1.0
        assert p.n_docs == 3 and set(p.per_model) == {"bm25", "tfidf-char"}
    assert points[0].rate == 1.0 and points[0].share_masked == 0.0
    greedy = [p for p in points if p.method == "greedy"]
    assert greedy[0].per_model["bm25"] == 0.0  # K=1 fools the search's own model
    assert greedy[1].share_masked >= greedy[0].share_masked
    curve_json(points, tmp_path / "curve.json")
    assert load_curve(tmp_path / "curve.json") == points
    curve_png(points, tmp_path / "curve.png")
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "greedy K=3" in format_table(points)
