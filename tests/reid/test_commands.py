"""The re-identification commands, run in-process on tiny generated data (no database):
generate_people, train_reid, reidentify, reid_curve and ``sanitize --strategy reid``."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.reid.helpers import write_people


def run(name: str, *args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(name, *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def tab_docs(directory: Path, docs: list[dict[str, Any]]) -> Path:
    """The biographies as TAB-style documents with a top-level ``target``."""
    path = directory / "docs.json"
    records = [
        {"doc_id": d["doc_id"], "text": d["text"], "target": d["meta"]["person_id"]} for d in docs
    ]
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


@pytest.fixture
def people(tmp_path: Path) -> tuple[Path, Path, list[dict[str, Any]]]:
    kb_path, docs = write_people(tmp_path)
    return kb_path, tab_docs(tmp_path, docs), docs


def test_generate_people_writes_a_kb_and_biographies_with_their_target(tmp_path: Path) -> None:
    out, _ = run(
        "generate_people", "--people", "30", "--docs", "5", "--seed", "4",
        "--out", str(tmp_path / "s"),
    )  # fmt: skip
    assert "wrote 30 people" in out
    profiles = [json.loads(line) for line in (tmp_path / "s" / "kb.jsonl").read_text().splitlines()]
    docs = json.loads((tmp_path / "s" / "docs.json").read_text())
    assert len(profiles) == 30 and len(docs) == 5
    ids = {p["id"] for p in profiles}
    assert all({"doc_id", "text", "target"} <= set(d) and d["target"] in ids for d in docs)

    run(
        "generate_people", "--people", "30", "--docs", "5", "--seed", "4", "--out",
        str(tmp_path / "l"), "--style", "long",
    )  # fmt: skip
    long_docs = json.loads((tmp_path / "l" / "docs.json").read_text())
    # The same seed: the same people, but ~150-word biographies instead of a few facts.
    assert [d["target"] for d in long_docs] == [d["target"] for d in docs]
    assert min(len(d["text"].split()) for d in long_docs) > max(
        len(d["text"].split()) for d in docs
    )


def test_generate_people_refuses_more_biographies_than_people(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="--docs must be from 0 to --people"):
        run("generate_people", "--people", "3", "--docs", "4", "--out", str(tmp_path))


def test_reidentify_ranks_the_target_and_masks_push_it_down(people, tmp_path: Path) -> None:
    kb_path, docs_path, docs = people
    ranks_path = tmp_path / "ranks.json"
    out, _ = run(
        "reidentify", "--kb", str(kb_path), "--input", str(docs_path), "--output", str(ranks_path)
    )
    ranks = json.loads(ranks_path.read_text())
    assert set(ranks) == {d["doc_id"] for d in docs}
    for doc in docs:
        entry = ranks[doc["doc_id"]]
        assert entry["ranks"] == {"bm25": entry["rank"]}
        # Unmasked, BM25 finds every generated person: their name is in the text.
        assert entry["rank"] == 1
        assert entry["top"][0][0] == doc["meta"]["person_id"] and len(entry["top"]) == 5
    assert "reidentification_rate=1.0000" in out and "share_masked=0.0000" in out

    # Everything masked: no word is left to match, so no profile is ranked above the others.
    masks_path = tmp_path / "masks.json"
    masks_path.write_text(json.dumps({d["doc_id"]: [[0, len(d["text"])]] for d in docs}))
    out, _ = run(
        "reidentify", "--kb", str(kb_path), "--input", str(docs_path), "--masks",
        str(masks_path), "--output", str(ranks_path), "--models", "bm25",
    )  # fmt: skip
    assert all(r["rank"] > 1 for r in json.loads(ranks_path.read_text()).values())
    assert "reidentification_rate=0.0000" in out and "share_masked=1.0000" in out


def test_reidentify_needs_a_model_directory_for_the_dense_model(people, tmp_path: Path) -> None:
    kb_path, docs_path, _ = people
    with pytest.raises(CommandError, match="needs --model"):
        run(
            "reidentify", "--kb", str(kb_path), "--input", str(docs_path), "--output",
            str(tmp_path / "r.json"), "--models", "bm25,dense",
        )  # fmt: skip
    with pytest.raises(CommandError, match="unknown re-identification model 'nope'"):
        run(
            "reidentify", "--kb", str(kb_path), "--input", str(docs_path), "--output",
            str(tmp_path / "r.json"), "--models", "nope",
        )  # fmt: skip


def test_train_reid_saves_a_model_that_reidentify_loads(tmp_path: Path) -> None:
    kb_path, docs = write_people(tmp_path, n_people=20, seed=8)
    docs_path = tab_docs(tmp_path, docs)
    model_dir = tmp_path / "model"
    out, _ = run(
        "train_reid", "--kb", str(kb_path), "--docs", str(docs_path), "--output", str(model_dir),
        "--epochs", "1", "--batch-size", "8",
    )  # fmt: skip
    metrics = json.loads(out[out.index("{") :])
    assert {"top1_unmasked", "top10_unmasked", "top1_masked30", "top10_masked30"} <= set(metrics)
    assert metrics["n_profiles"] == 20 and metrics["n_train"] + metrics["n_heldout"] == len(docs)
    assert json.loads((model_dir / "reid.json").read_text())

    ranks_path = tmp_path / "ranks.json"
    out, _ = run(
        "reidentify", "--model", str(model_dir), "--kb", str(kb_path), "--input",
        str(docs_path), "--output", str(ranks_path),
    )  # fmt: skip
    ranks = json.loads(ranks_path.read_text())
    assert all(set(r["ranks"]) == {"bm25", "dense"} for r in ranks.values())
    assert all(1 <= r["ranks"]["dense"] <= 20 for r in ranks.values())
    assert "ensemble (bm25, dense)" in out


def test_train_reid_refuses_epochs_out_of_bounds(people, tmp_path: Path) -> None:
    kb_path, docs_path, _ = people
    with pytest.raises(CommandError, match="--epochs must be from 1 to 50"):
        run(
            "train_reid", "--kb", str(kb_path), "--docs", str(docs_path), "--output",
            str(tmp_path / "m"), "--epochs", "51",
        )  # fmt: skip


def test_reid_curve_writes_json_and_png(people, tmp_path: Path) -> None:
    kb_path, docs_path, docs = people
    out_dir = tmp_path / "curve"
    out, _ = run(
        "reid_curve", "--kb", str(kb_path), "--input", str(docs_path), "--output-dir",
        str(out_dir), "--methods", "none,greedy", "--k-values", "1,5",
    )  # fmt: skip
    points = json.loads((out_dir / "reid_curve.json").read_text())["points"]
    assert [(p["method"], p["label"]) for p in points] == [
        ("none", "no masking"),
        ("greedy", "greedy K=1"),
        ("greedy", "greedy K=5"),
    ]
    none, k1, k5 = points
    assert none["rate"] == 1.0 and none["share_masked"] == 0.0
    # Greedy masks until BM25 is fooled; the independent attacker measures it too.
    assert set(k5["per_model"]) == {"bm25", "tfidf-char"} and k5["per_model"]["bm25"] == 0.0
    assert k5["rate"] < none["rate"] and 0 < k1["share_masked"] <= k5["share_masked"]
    assert all(p["n_docs"] == len(docs) for p in points)
    assert (out_dir / "reid_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert "greedy K=5" in out


def test_sanitize_reid_masks_until_the_rank_is_above_k(people, tmp_path: Path) -> None:
    kb_path, docs_path, docs = people
    masks_path, explain_path = tmp_path / "masks.json", tmp_path / "explain.json"
    out, _ = run(
        "sanitize", "--strategy", "reid", "--kb", str(kb_path), "--k", "3", "--input",
        str(docs_path), "--output", str(masks_path), "--explain", str(explain_path),
    )  # fmt: skip
    assert f"for {len(docs)} documents" in out
    masks = json.loads(masks_path.read_text())
    assert set(masks) == {d["doc_id"] for d in docs} and all(masks.values())
    ranks_path = tmp_path / "ranks.json"
    out, _ = run(
        "reidentify", "--kb", str(kb_path), "--input", str(docs_path), "--masks",
        str(masks_path), "--output", str(ranks_path),
    )  # fmt: skip
    assert all(r["rank"] > 3 for r in json.loads(ranks_path.read_text()).values())
    assert "reidentification_rate=0.0000" in out
    assert set(json.loads(explain_path.read_text())) == set(masks)


@pytest.mark.parametrize(
    ("strategy", "extra", "message"),
    [
        ("mask-all", ["--model", "m"], "--model: only --strategy reid takes these options"),
        ("mask-all", ["--kb", "kb.jsonl"], "--kb: only --strategy risk or reid takes these"),
        ("reid", ["--threshold", "4"], "--threshold: only --strategy risk takes these options"),
        ("risk", ["--start", "risk"], "--start: only --strategy reid takes these options"),
        ("risk", ["--reid-models", "bm25"], "--reid-models: only --strategy reid takes"),
    ],
)
def test_sanitize_refuses_options_of_other_strategies(
    people, tmp_path: Path, strategy: str, extra: list[str], message: str
) -> None:
    _, docs_path, _ = people
    masks_path = tmp_path / "masks.json"
    with pytest.raises(CommandError, match=message):
        run(
            "sanitize", "--strategy", strategy, "--input", str(docs_path), "--output",
            str(masks_path), *extra,
        )  # fmt: skip
    assert not masks_path.exists()


def test_sanitize_reid_needs_a_knowledge_base(people, tmp_path: Path) -> None:
    _, docs_path, _ = people
    with pytest.raises(CommandError, match="reid needs a knowledge base"):
        run(
            "sanitize", "--strategy", "reid", "--k", "3", "--input", str(docs_path), "--output",
            str(tmp_path / "masks.json"),
        )  # fmt: skip
