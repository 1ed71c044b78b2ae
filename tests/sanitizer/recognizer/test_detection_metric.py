"""The token-level metric of ``benchmarks/detection.py`` on a hand-checked example."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType


def _load() -> ModuleType:
    path = Path(__file__).resolve().parents[3] / "benchmarks" / "detection.py"
    spec = importlib.util.spec_from_file_location("detection_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_token_scores_by_hand() -> None:
    detection = _load()
    text = "John Smith lives in Oslo, Norway."
    # tokens: John Smith lives in Oslo Norway (6); gold: John Smith, Oslo, Norway (4 tokens)
    gold = [[(0, 10), (20, 24), (26, 32)]]
    # predicted: "Smi" (touches Smith), "lives in Oslo" -> masked: Smith, lives, in, Oslo (4)
    pred = [[(5, 8), (11, 24)]]
    precision, recall = detection.token_scores([text], gold, pred)
    assert precision == 2 / 4  # Smith, Oslo are gold among 4 masked tokens
    assert recall == 2 / 4  # John and Norway missed


def test_tab_gold_keeps_direct_and_quasi_only(tmp_path: Path) -> None:
    detection = _load()
    doc = {
        "doc_id": "x",
        "text": "Ann met Bob in 1990.",
        "annotations": {
            "a1": {
                "entity_mentions": [
                    {"start_offset": 0, "end_offset": 3, "identifier_type": "DIRECT"},
                    {"start_offset": 8, "end_offset": 11, "identifier_type": "NO_MASK"},
                ]
            },
            "a2": {
                "entity_mentions": [
                    {"start_offset": 15, "end_offset": 19, "identifier_type": "QUASI"}
                ]
            },
        },
    }
    path = tmp_path / "tab.json"
    path.write_text(json.dumps([doc]), encoding="utf-8")
    texts, gold = detection.load_tab_data(path)
    assert texts == ["Ann met Bob in 1990."]
    assert sorted(gold[0]) == [(0, 3), (15, 19)]
