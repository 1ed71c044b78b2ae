"""The ``evaluate`` management command (called directly: no settings or DB needed)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from annotation.management.commands.evaluate import Command
from tests.sanitizer.evaluation.helpers import find, mention, tab_doc


def _files(tmp_path: Path) -> tuple[Path, Path]:
    t = "Anna Berg met Olav Lie."
    doc = tab_doc(
        "d",
        t,
        a1=[
            mention(t, "Anna Berg", "e1", "PERSON", "DIRECT"),
            mention(t, "Olav Lie", "e2", "PERSON", "QUASI"),
        ],
    )
    gold, masks = tmp_path / "gold.json", tmp_path / "masks.json"
    gold.write_text(json.dumps([doc]), encoding="utf-8")
    masks.write_text(json.dumps({"d": [find(t, "Anna Berg"), find(t, "met")]}), encoding="utf-8")
    return gold, masks


def _run(*argv: str) -> dict:
    out = io.StringIO()
    cmd = Command(stdout=out)
    parser = cmd.create_parser("manage.py", "evaluate")
    options = vars(parser.parse_args(list(argv)))
    cmd.execute(**options)
    return json.loads(out.getvalue())


def test_prints_one_json_object(tmp_path: Path) -> None:
    gold, masks = _files(tmp_path)
    result = _run("--gold", str(gold), "--masks", str(masks), "--weighting", "uniform")
    assert result["ER_all"] == pytest.approx(1 / 2)
    assert result["ER_direct"] == 1.0
    assert result["ER_quasi"] == 0.0
    assert result["token_recall"] == pytest.approx(2 / 4)
    assert result["token_precision"] == pytest.approx(2 / 3)  # Anna Berg met
    assert result["F1"] == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert result["token_recall_by_type"] == {"PERSON": 0.5}
    assert result["weighting"] == "uniform"


def test_bad_file_is_a_command_error(tmp_path: Path) -> None:
    from django.core.management.base import CommandError

    gold, _ = _files(tmp_path)
    with pytest.raises(CommandError):
        _run("--gold", str(gold), "--masks", str(tmp_path / "missing.json"))
