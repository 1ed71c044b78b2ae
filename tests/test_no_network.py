"""This is a privacy tool: loading and running its models must not touch the network.

Each check runs in a fresh process with ``tests.netguard`` installed (any
non-loopback connect or name lookup raises and is recorded) and without the
``HF_HUB_OFFLINE`` variables, so the code itself must keep to local files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SCRIPT = textwrap.dedent(
    """
    import tests.netguard as guard

    from sanitizer.recognizer.pipeline import build_recognizer
    spans = build_recognizer(None).predict(
        "Mr John Smith, a British engineer, lodged application no. 12345/06 in London."
    )
    assert any(s.label == "CODE" for s in spans), spans

    from transformers import AutoModel, AutoTokenizer
    from sanitizer.training.config import default_base_model
    path = default_base_model()
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModel.from_pretrained(path, local_files_only=True)
    out = model(**tokenizer("hello world", return_tensors="pt"))
    assert out.last_hidden_state.shape[-1] > 0

    print("ATTEMPTS", guard.ATTEMPTS)
    """
)


def test_models_load_and_run_without_network():
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"}
    }
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ATTEMPTS []" in result.stdout, result.stdout + result.stderr[-2000:]


def test_guard_blocks_outside_addresses():
    code = textwrap.dedent(
        """
        import socket, tests.netguard as guard
        try:
            socket.create_connection(("192.0.2.1", 80), timeout=1)
        except OSError as exc:
            print(type(exc).__name__)
        print(len(guard.ATTEMPTS))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.stdout.split() == ["NetworkBlocked", "1"], result.stderr
