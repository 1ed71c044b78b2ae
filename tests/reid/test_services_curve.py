"""The re-identification curve of a project (the ``reid_curve`` job's service)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reid.services.curve import reid_curve_compute
from reid.services.deidentify import reid_deidentify_documents
from tests.reid.helpers import make_world

pytestmark = pytest.mark.django_db


def test_curve_has_no_masking_greedy_per_k_and_the_stored_runs(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    reid_deidentify_documents(project=world.project, k=2)
    progress: list[tuple[int, int]] = []

    result = reid_curve_compute(
        project=world.project,
        k_values=[5, 1],
        progress=lambda done, total, _m: progress.append((done, total)),
    )

    n = len(world.documents)
    assert result["documents"] == n
    points = {p["label"]: p for p in result["points"]}
    assert list(points) == ["no masking", "masking: reid", "K=1", "K=5"]
    none = points["no masking"]
    assert (none["method"], none["rate"], none["share_masked"], none["n_docs"]) == (
        "none",
        1.0,
        0.0,
        n,
    )
    # The stored greedy run (K=2) and fresh greedy runs all fool BM25, masking some words.
    for label in ("masking: reid", "K=1", "K=5"):
        point = points[label]
        assert point["rate"] == 0.0 and point["per_model"] == {"bm25": 0.0}
        assert 0 < point["share_masked"] < 1 and point["info_loss"] > 0
    assert points["K=1"]["share_masked"] <= points["K=5"]["share_masked"]
    assert points["K=5"]["method"] == "greedy" and points["K=5"]["seconds"] > 0
    assert progress[0] == (0, 4) and progress[-1] == (4, 4)


def test_curve_of_a_project_without_targets_is_empty(tmp_path: Path) -> None:
    world = make_world(tmp_path, with_target=False)
    result = reid_curve_compute(project=world.project, k_values=[1])
    assert result == {"points": [], "documents": 0, "skipped": {"no target": len(world.documents)}}
