"""The ``distant_label`` management command, run as a user would run it."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures" / "distant"


def test_manage_py_distant_label(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "sanitizer_app.settings.local",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    cmd = [
        sys.executable,
        str(ROOT / "manage.py"),
        "distant_label",
        "--kb",
        str(FIXTURES / "kb.jsonl"),
        "--input",
        str(FIXTURES / "docs.json"),
        "--k",
        "5",
        "--max-arity",
        "3",
        "--selection",
        "random",
        "--output",
        str(tmp_path / "masks.json"),
        "--explain",
        str(tmp_path / "explain.json"),
    ]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    masks = json.loads((tmp_path / "masks.json").read_text())
    explain = json.loads((tmp_path / "explain.json").read_text())
    docs = json.loads((FIXTURES / "docs.json").read_text())
    assert set(masks) == {d["doc_id"] for d in docs}
    assert explain["selection"] == "random" and explain["k"] == 5
    texts = {d["doc_id"]: d["text"] for d in docs}
    for doc_id, spans in masks.items():
        masked_terms = {m["term"] for m in explain["documents"][doc_id]["masked"]}
        for start, end in spans:
            # every mask covers an occurrence of a term the explanation lists as masked
            assert " ".join(texts[doc_id][start:end].lower().split()) in masked_terms
        for m in explain["documents"][doc_id]["masked"]:
            assert 1 <= m["count"] < 5 and m["term"] in m["combination"]
    assert f"{len(docs)} documents" in done.stdout
