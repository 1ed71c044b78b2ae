"""The per-process ensemble cache of the strategy and commands: reused while nothing changed."""

from __future__ import annotations

from pathlib import Path

from sanitizer.reid.ensemble import load_ensemble, model_names
from tests.sanitizer.reid.helpers import write_kb


def test_model_names_default_to_bm25_plus_dense_with_a_model() -> None:
    assert model_names(None, None) == ("bm25",)
    assert model_names(None, "/m") == ("bm25", "dense")
    assert model_names(" bm25, tfidf-char ,", "/m") == ("bm25", "tfidf-char")


def test_ensemble_is_reused_until_the_model_directory_is_rewritten(tmp_path: Path) -> None:
    kb = write_kb(tmp_path / "kb.jsonl")
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "reid.json").write_text('{"version": "one"}', encoding="utf-8")

    first = load_ensemble(kb, ["bm25"], model_dir)
    assert load_ensemble(kb, ["bm25"], model_dir) is first

    # Retrained into the same directory: reid.json names another version.
    (model_dir / "reid.json").write_text('{"version": "two, longer"}', encoding="utf-8")
    assert load_ensemble(kb, ["bm25"], model_dir) is not first
