"""The command-line contract benchmarks rely on: sanitize → evaluate, with no database
and no SECRET_KEY (the commands run as a user would type them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TAB_KEYS = {
    "ER_all",
    "ER_direct",
    "ER_quasi",
    "token_recall",
    "token_precision",
    "F1",
    "token_recall_by_type",
}


def _manage(*args: str, pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DATABASE_URL", "DEBUG"}}
    # A database that does not exist: the commands must not need one.
    env["DATABASE_URL"] = "postgres://nobody@127.0.0.1:1/none"
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _tab_documents() -> list[dict[str, Any]]:
    return [
        {
            "doc_id": "a",
            "text": "The applicant, Mr John Smith, a British engineer born on 5 August 1962, "
            "lodged application no. 12345/06 in London.",
            "annotations": {
                "ann1": {
                    "entity_mentions": [
                        {
                            "entity_mention_id": "a_1",
                            "start_offset": 18,
                            "end_offset": 28,
                            "span_text": "John Smith",
                            "entity_type": "PERSON",
                            "identifier_type": "DIRECT",
                            "entity_id": "e1",
                            "confidential_status": "NOT_CONFIDENTIAL",
                        },
                        {
                            "entity_mention_id": "a_2",
                            "start_offset": 96,
                            "end_offset": 104,
                            "span_text": "12345/06",
                            "entity_type": "CODE",
                            "identifier_type": "DIRECT",
                            "entity_id": "e2",
                            "confidential_status": "NOT_CONFIDENTIAL",
                        },
                    ]
                }
            },
        }
    ]


def test_sanitize_then_evaluate(tmp_path: Path) -> None:
    docs = _tab_documents()
    assert docs[0]["text"][18:28] == "John Smith" and docs[0]["text"][95:103] == "12345/06"
    source = tmp_path / "docs.json"
    source.write_text(json.dumps(docs))
    masks_path = tmp_path / "masks.json"
    for strategy in ("mask-all", "most-specific"):
        result = _manage(
            "sanitize", "--input", str(source), "--output", str(masks_path), "--strategy", strategy
        )
        assert result.returncode == 0, result.stderr[-2000:]
        masks = json.loads(masks_path.read_text())
        assert set(masks) == {"a"}
        covered = {docs[0]["text"][s:e] for s, e in masks["a"]}
        assert {"John Smith", "12345/06"} <= covered
        # Nationality and occupation are DEM: masked by mask-all only.
        assert any("British" in text for text in covered) == (strategy == "mask-all")

    result = _manage("evaluate", "--gold", str(source), "--masks", str(masks_path))
    assert result.returncode == 0, result.stderr[-2000:]
    metrics = json.loads(result.stdout)
    assert set(metrics) >= TAB_KEYS
    assert metrics["ER_all"] == 1.0 and metrics["ER_direct"] == 1.0


PLUGIN = '''"""A masking strategy kept outside the repository: one file, nothing else edited."""

from sanitizer.recognizer.registry import masking_strategy


@masking_strategy("codes-only")
def codes_only(spans):
    return [s for s in spans if s.label == "CODE"]
'''


def test_a_strategy_registered_in_one_file_is_a_sanitize_choice(tmp_path: Path) -> None:
    # The plugin is one module in a ``sanitizer/recognizer/strategies/`` directory on the
    # Python path, outside the repository; the strategy package picks it up (pkgutil-style).
    plugin_dir = tmp_path / "plugins"
    strategies = plugin_dir / "sanitizer" / "recognizer" / "strategies"
    strategies.mkdir(parents=True)
    (strategies / "codes_only.py").write_text(PLUGIN)
    docs = _tab_documents()
    source = tmp_path / "docs.json"
    source.write_text(json.dumps(docs))
    masks_path = tmp_path / "masks.json"

    help_text = _manage("sanitize", "--help", pythonpath=plugin_dir)
    assert help_text.returncode == 0, help_text.stderr[-2000:]
    assert "codes-only" in help_text.stdout
    # Without the plugin the name is refused, so the choice really comes from the plugin.
    refused = _manage(
        "sanitize", "--input", str(source), "--output", str(masks_path), "--strategy", "codes-only"
    )
    assert refused.returncode != 0 and "codes-only" in refused.stderr

    result = _manage(
        "sanitize",
        "--input",
        str(source),
        "--output",
        str(masks_path),
        "--strategy",
        "codes-only",
        pythonpath=plugin_dir,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    masks = json.loads(masks_path.read_text())
    covered = {docs[0]["text"][s:e] for s, e in masks["a"]}
    assert "12345/06" in covered
    assert not any("John" in text or "British" in text for text in covered)


def _risk_documents() -> list[dict[str, Any]]:
    """The TAB document plus a background judgment about the same applicant."""
    docs = _tab_documents()
    docs[0]["meta"] = {"applicant": "John Smith"}
    docs.append(
        {
            "doc_id": "b",
            "text": "Mr John Smith, an engineer, was born in 1962 and lives in Diyarbakır. "
            "The Court heard the Government of Turkey on 3 March 2004.",
        }
    )
    return docs


def test_sanitize_risk_explains_every_mask_and_breaks_every_risky_combination(
    tmp_path: Path,
) -> None:
    docs = _risk_documents()
    source = tmp_path / "docs.json"
    source.write_text(json.dumps(docs))
    masks_path, explain_path = tmp_path / "masks.json", tmp_path / "explain.json"
    result = _manage(
        "sanitize",
        "--input",
        str(source),
        "--output",
        str(masks_path),
        "--strategy",
        "risk",
        "--measures",
        "lm,linkage",
        "--threshold",
        "9",
        "--max-arity",
        "2",
        "--explain",
        str(explain_path),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    masks = json.loads(masks_path.read_text())
    explain = json.loads(explain_path.read_text())
    assert set(masks) == set(explain) == {"a", "b"}
    for doc in docs:
        doc_id = doc["doc_id"]
        record = explain[doc_id]
        assert set(record) == {"masks", "risky"}
        masked = {(m["start"], m["end"]) for m in record["masks"]}
        # masks covers exactly the masked spans, and no mask lacks a reason.
        assert masked == {tuple(span) for span in masks[doc_id]}
        for mask in record["masks"]:
            assert mask["reasons"], mask
            assert {"measure", "combination", "score", "text"} <= set(mask["reasons"][0])
        # Every risky combination has at least one masked member.
        for risky in record["risky"]:
            assert {"measure", "combination", "score"} <= set(risky)
            assert any(tuple(span) in masked for span in risky["combination"]), risky
    covered = {docs[0]["text"][s:e] for s, e in masks["a"]}
    assert {"John Smith", "12345/06"} <= covered  # DIRECT: always masked
    assert any(m["reasons"][0]["measure"] == "lm" for m in explain["b"]["masks"])

    result = _manage("evaluate", "--gold", str(source), "--masks", str(masks_path))
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["ER_direct"] == 1.0


def test_sanitize_refuses_risk_settings_it_cannot_honour(tmp_path: Path) -> None:
    source = tmp_path / "docs.json"
    source.write_text(json.dumps(_risk_documents()))
    out = str(tmp_path / "masks.json")
    supervised = _manage(
        "sanitize", "--input", str(source), "--output", out, "--strategy", "risk",
        "--measures", "lm,supervised",
    )  # fmt: skip
    assert supervised.returncode != 0
    assert "supervised risk measure needs a trained model" in supervised.stderr
    misplaced = _manage(
        "sanitize", "--input", str(source), "--output", out, "--threshold", "4"
    )  # fmt: skip
    assert misplaced.returncode != 0
    assert "only --strategy risk takes these options" in misplaced.stderr
    assert not (tmp_path / "masks.json").exists()
