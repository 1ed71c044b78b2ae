"""The ``reid`` masking strategy through ``sanitize_documents``."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from sanitizer.recognizer import apply_strategy, sanitize_documents, strategy_registry
from sanitizer.reid.base import build_model
from sanitizer.reid.greedy import ranks
from tests.sanitizer.reid.helpers import DOCS, StubRecognizer, profiles, write_kb

STRANGER = {"doc_id": "x", "text": "Zoe Quinn is a pilot in Braga.", "target": "nobody"}
ANONYMOUS = {"doc_id": "y", "text": "Eva Novak plays the violin in Prague."}


@pytest.fixture
def kb(tmp_path: Path) -> str:
    return str(write_kb(tmp_path / "kb.jsonl"))


def test_spans_alone_are_refused() -> None:
    assert "reid" in strategy_registry
    with pytest.raises(ValueError, match="reid needs a knowledge base"):
        apply_strategy("reid", [])
    with pytest.raises(ValueError, match="reid needs a knowledge base"):
        sanitize_documents(list(DOCS), "reid", StubRecognizer(), options={"k": 2})


def test_masks_until_rank_above_k_and_explains(kb: str) -> None:
    docs: list[dict[str, Any]] = [*DOCS, STRANGER, ANONYMOUS]
    explain: dict[str, Any] = {}
    masks = sanitize_documents(
        docs, "reid", StubRecognizer(), options={"kb": kb, "k": 2}, explain=explain
    )
    bm25 = build_model("bm25", profiles())
    for doc, target in (("d0", "p0"), ("d3", "p3"), ("d4", "p4")):
        record = explain[doc]
        assert record["target"] == target and record["strategy"] == "reid"
        assert record["ranks_before"] == {"bm25": 1}
        assert record["reached"] and record["ranks_after"]["bm25"] > 2
        assert record["steps"] and record["models"]["bm25"].startswith("bm25s-")
        text = next(str(d["text"]) for d in docs if d["doc_id"] == doc)
        spans = [(s, e) for s, e in masks[doc]]
        assert spans == sorted(spans) and all(a[1] <= b[0] for a, b in pairwise(spans))
        assert ranks([bm25], text, spans, target)["bm25"] > 2
    # Documents whose person is unknown are masked like mask-all, and the record says why.
    for doc, why in (("x", "not in the knowledge base"), ("y", "names no target")):
        assert explain[doc]["strategy"] == "mask-all" and why in explain[doc]["reason"]
    assert masks["x"] == [[24, 29]]  # "Braga", the stub recognizer's only span there
    assert masks["y"] == [[0, 9], [30, 36]]


def test_start_from_the_risk_masks(kb: str) -> None:
    docs = [DOCS[0]]
    explain: dict[str, Any] = {}
    options = {"kb": kb, "k": 2, "start": "risk", "risk_options": {"measures": "lm"}}
    masks = sanitize_documents(docs, "reid", StubRecognizer(), options=options, explain=explain)
    record = explain["d0"]
    assert record["start"]["strategy"] == "risk" and record["start"]["spans"] >= 1
    # The risk strategy masks the PERSON name (DIRECT); greedy keeps it and adds the rest.
    assert [0, 17] in masks["d0"]
    assert "ana" not in {step["text"].lower() for step in record["steps"]}
    assert record["reached"]
    with pytest.raises(ValueError, match="start must be"):
        sanitize_documents(docs, "reid", StubRecognizer(), options={"kb": kb, "start": "x"})
