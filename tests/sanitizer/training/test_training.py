"""Tiny end-to-end fine-tuning runs on CPU with the packaged MiniLM encoder.

A 40-sentence synthetic corpus (person names and file codes in four templates) is
easy enough that ~30 optimizer steps learn it; held-out sentences use unseen names and
codes. The saved model is reloaded in a fresh Python process to prove the directory is
self-contained.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from faker import Faker

from sanitizer.training import (
    TrainingConfig,
    TrainingResult,
    encode_text,
    load_tagger,
    read_manifest,
    relabel_for_masking,
    train,
)
from sanitizer.types import EntitySpan

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = (
    "{P} filed application no. {C} on Monday.",
    "The applicant, {P}, received file {C}.",
    "Case {C} concerns {P} and the police.",
    "According to {P}, the reference {C} was wrong.",
)


def synthetic(n: int, seed: int) -> list[tuple[str, list[EntitySpan]]]:
    """``n`` sentences with one PERSON and one CODE span each (deterministic per seed)."""
    fake = Faker("en_US")
    fake.seed_instance(seed)
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        person = f"{fake.first_name()} {fake.last_name()}"
        code = f"{rnd.randint(100, 99999)}/{rnd.randint(10, 99)}"
        text = TEMPLATES[i % len(TEMPLATES)].replace("{P}", person).replace("{C}", code)
        p, c = text.index(person), text.index(code)
        spans = [
            EntitySpan(p, p + len(person), "PERSON", person),
            EntitySpan(c, c + len(code), "CODE", code),
        ]
        out.append((text, sorted(spans, key=lambda s: s.start)))
    return out


def tiny_config(**overrides: Any) -> TrainingConfig:
    settings: dict[str, Any] = {
        "labels": ["PERSON", "CODE"],
        "max_length": 32,
        "window_overlap": 8,
        "batch_size": 8,
        "eval_batch_size": 16,
        "learning_rate": 3e-4,
        "epochs": 20,
        "max_steps": 30,
        "early_stopping_patience": 3,
        "num_threads": 1,
        "device": "cpu",
        "seed": 7,
    }
    settings.update(overrides)
    return TrainingConfig(**settings)


@pytest.fixture(scope="module")
def typed_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[TrainingResult, list[Any]]:
    calls: list[tuple[int, int, str]] = []
    out = tmp_path_factory.mktemp("typed") / "model"
    result = train(
        tiny_config(),
        synthetic(40, seed=1),
        synthetic(8, seed=2),
        out,
        progress_callback=lambda done, total, msg: calls.append((done, total, msg)),
    )
    return result, calls


def test_training_result_and_manifest(typed_run: tuple[TrainingResult, list[Any]]) -> None:
    result, calls = typed_run
    out = Path(result.output_dir)
    assert (out / "config.json").is_file()
    assert (out / "tokenizer.json").is_file()
    assert (out / "model.safetensors").is_file()
    assert result.train_size == 40
    assert result.dev_size == 8
    # Each sentence fits in one 32-token window.
    assert result.train_windows == 40
    assert result.labels == ["PERSON", "CODE"]
    assert 1 <= result.steps <= 30
    assert result.best_epoch is not None
    assert 1 <= result.best_epoch <= result.epochs_run
    assert result.ignored_spans == 0
    assert len(result.history) == result.epochs_run
    assert result.duration_seconds > 0
    # The reported metrics are those of the saved epoch.
    assert result.metrics == result.history[result.best_epoch - 1]
    assert result.best_step == result.metrics["step"]
    assert result.metrics["gold_entities"] == 16
    # An easy pattern: dev token F1 must be high after <= 30 steps.
    assert result.metrics["token_f1"] >= 0.9

    manifest = read_manifest(out)
    assert manifest["model_version"] == result.model_version
    assert manifest["tags"] == ["O", "B-PERSON", "I-PERSON", "B-CODE", "I-CODE"]
    assert manifest["best_epoch"] == result.best_epoch
    assert manifest["metrics"]["token_f1"] == pytest.approx(result.metrics["token_f1"])
    assert TrainingConfig.from_dict(manifest["config"]) == tiny_config()

    assert json.loads(json.dumps(result.to_dict()))["model_version"] == result.model_version

    dones = [done for done, _, _ in calls]
    assert dones == sorted(dones)
    assert calls[-1][0] == calls[-1][1]
    assert any("dev loss" in msg for _, _, msg in calls)


def test_saved_model_predicts_in_a_fresh_process(
    typed_run: tuple[TrainingResult, list[Any]],
) -> None:
    result, _ = typed_run
    held_out = synthetic(4, seed=3)
    # netguard makes any non-loopback connection fail and records it; the offline
    # variables are removed so load_tagger's own local-only loading is what is tested.
    script = (
        "import json, sys\n"
        "import tests.netguard as guard\n"
        "from sanitizer.training import load_tagger\n"
        "tagger = load_tagger(sys.argv[1], device='cpu', num_threads=1)\n"
        "texts = json.loads(sys.stdin.read())\n"
        "out = [[[s.start, s.end, s.label, s.text, s.confidence, s.source] for s in spans]\n"
        "       for spans in tagger.predict_batch(texts)]\n"
        "print(json.dumps({'spans': out, 'network': guard.ATTEMPTS}))\n"
    )
    env = {
        k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    }
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-c", script, result.output_dir],
        input=json.dumps([t for t, _ in held_out]),
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    answer = json.loads(proc.stdout.strip().splitlines()[-1])
    assert answer["network"] == []
    predicted = answer["spans"]
    assert len(predicted) == len(held_out)
    exact = {"PERSON": 0, "CODE": 0}
    for (text, gold), spans in zip(held_out, predicted, strict=True):
        for start, end, label, span_text, confidence, source in spans:
            assert text[start:end] == span_text
            assert label in ("PERSON", "CODE")
            assert 0.0 < confidence <= 1.0
            assert source == f"token-tagger@{result.model_version}"
        found = {(s[0], s[1], s[2]) for s in spans}
        for g in gold:
            exact[g.label] += (g.start, g.end, g.label) in found
    # Unseen names and codes in the trained templates: codes are always recovered,
    # names at least 3 times out of 4.
    assert exact["CODE"] == 4
    assert exact["PERSON"] >= 3


def test_masking_tagger_on_long_documents_without_dev(tmp_path: Path) -> None:
    sentences = synthetic(40, seed=11)
    # One long document made of 20 sentences: several 32-token windows.
    long_text = ""
    long_spans: list[EntitySpan] = []
    for text, spans in sentences[20:]:
        offset = len(long_text)
        long_spans.extend(
            EntitySpan(s.start + offset, s.end + offset, s.label, s.text) for s in spans
        )
        long_text += text + " "
    examples = relabel_for_masking([*sentences[:20], (long_text, long_spans)])
    config = tiny_config(labels=["MASK"], max_steps=20)
    result = train(config, examples, [], tmp_path / "mask")
    assert result.dev_size == 0
    assert result.metrics == {}
    assert result.best_epoch == result.epochs_run
    assert result.train_windows > len(examples)

    tagger = load_tagger(tmp_path / "mask", device="cpu")
    assert tagger.tags == ["O", "B-MASK", "I-MASK"]
    held_out = synthetic(12, seed=12)
    text = " ".join(t for t, _ in held_out)
    gold: set[tuple[int, int]] = set()
    offset = 0
    for sentence, sentence_spans in held_out:
        gold.update((s.start + offset, s.end + offset) for s in sentence_spans)
        offset += len(sentence) + 1
    # The held-out text needs many 30-token windows.
    assert len(encode_text(tagger.tokenizer, text)) > 5 * 30
    spans = tagger.predict(text)
    previous_end = 0
    for s in spans:
        assert s.label == "MASK"
        assert text[s.start : s.end] == s.text
        assert s.start >= previous_end  # sorted, non-overlapping
        assert s.confidence is not None and 0.0 < s.confidence <= 1.0
        previous_end = s.end
    # 24 gold spans (12 names, 12 codes); the easy pattern is learnt in 20 steps.
    assert len(gold) == 24
    assert sum((s.start, s.end) in gold for s in spans) >= 20


def test_missing_base_model_fails_without_download(tmp_path: Path) -> None:
    config = tiny_config(base_model=str(tmp_path / "no-such-model"))
    with pytest.raises(OSError, match="no download is attempted"):
        train(config, synthetic(2, seed=1), [], tmp_path / "out")


def test_step_evaluation_and_early_stopping(tmp_path: Path) -> None:
    # With a zero learning rate the weights never change, so the second evaluation
    # cannot beat the first and patience 1 stops the run right there.
    config = tiny_config(learning_rate=0.0, eval_steps=2, early_stopping_patience=1)
    result = train(config, synthetic(40, seed=1), synthetic(4, seed=2), tmp_path / "m")
    assert result.stopped_early
    assert result.steps == 4
    assert result.epochs_run == 1
    assert [h["step"] for h in result.history] == [2.0, 4.0]
    assert result.history[0]["dev_loss"] == pytest.approx(result.history[1]["dev_loss"])
    assert result.best_step == 2
    assert read_manifest(tmp_path / "m")["metrics"]["step"] == 2.0
