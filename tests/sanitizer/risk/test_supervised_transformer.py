"""The transformer risk classifier on a tiny BERT: NTS input, training, storage, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from django.core.management import call_command
from transformers import AutoTokenizer, BertConfig, BertModel

from sanitizer.risk import RiskDocument, RiskEntity
from sanitizer.risk.options import RiskOptions
from sanitizer.risk.pipeline import RiskMasker
from sanitizer.risk.supervised.model import (
    CONFIG_FILE,
    TRANSFORMER_FORMAT,
    RiskModelError,
    SupervisedRiskModel,
)
from sanitizer.risk.supervised.training import labelled_documents
from sanitizer.risk.supervised.transformer import (
    CLASSIFIER_DIR,
    TRANSFORMER_VERSION,
    WEIGHTS_FILE,
    TransformerRiskModel,
    TransformerRiskParams,
    entity_inputs,
    split_documents,
    train_transformer_risk_model,
)
from sanitizer.training.config import default_base_model
from sanitizer.types import EntitySpan
from tests.sanitizer.risk.test_supervised import CITIES, REPO, _corpus

TINY = TransformerRiskParams(
    epochs=1, batch_size=8, max_length=64, window_tokens=24, max_steps=2, holdout=0.25
)


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer BERT encoder with MiniLM's vocabulary (no head), like the bundled MiniLM."""
    tokenizer = AutoTokenizer.from_pretrained(default_base_model(), local_files_only=True)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("tiny-encoder")
    BertModel(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory, tiny_encoder: Path) -> Path:
    docs, spans = _corpus(8)
    model = train_transformer_risk_model(
        labelled_documents(docs, spans), base_model=str(tiny_encoder), params=TINY, source="t"
    )
    return model.save(tmp_path_factory.mktemp("transformer-risk"))


def test_input_is_a_centred_window_and_the_nts_sentence(tiny_encoder: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_encoder), local_files_only=True)
    words = [f"w{i}" for i in range(60)]
    text = " ".join([*words[:30], "Mardin", *words[30:]])
    start = text.index("Mardin")
    mention = EntitySpan(start=start, end=start + 6, label="LOC", text="Mardin")
    later = EntitySpan(start=len(text) - 3, end=len(text), label="LOC", text=text[-3:])
    entity = RiskEntity(entity_id="e1", label="LOC", mentions=(later, mention))
    document = RiskDocument(doc_id="d", text=text, entities=[entity])
    [(window, sentence)] = entity_inputs(tokenizer, document, [entity], window_tokens=20)
    assert sentence == "Mardin is a LOC."
    # Centred on the first mention (not the later one), a strict part of the document.
    assert "Mardin" in window and window in text and len(window) < len(text)
    before, _, after = window.partition("Mardin")
    assert abs(len(tokenizer.tokenize(before)) - len(tokenizer.tokenize(after))) <= 2
    # At the end of a text the window is shifted, not shortened.
    last = RiskEntity(entity_id="e2", label="LOC", mentions=(later,))
    [(tail, _)] = entity_inputs(tokenizer, document, [last], window_tokens=20)
    assert tail.endswith(text[-3:]) and len(tokenizer.tokenize(tail)) == 20


def test_held_out_documents_are_whole_and_seeded() -> None:
    docs, spans = _corpus(8)
    labelled = labelled_documents(docs, spans)
    train, held = split_documents(labelled, 0.25, seed=3)
    assert len(held) == 2 and len(train) == 6
    assert {d.doc_id for d in train}.isdisjoint({d.doc_id for d in held})
    assert split_documents(labelled, 0.25, seed=3)[1] == held
    assert split_documents(labelled[:1], 0.5, seed=0) == (labelled[:1], [])


def test_trains_saves_and_reloads_in_a_fresh_process(model_dir: Path) -> None:
    config = json.loads((model_dir / CONFIG_FILE).read_text())
    assert config["format"] == TRANSFORMER_FORMAT and config["version"] == TRANSFORMER_VERSION
    assert config["labels"] == ["KEEP", "MASK"] and config["model"] == "transformer"
    assert config["training"]["steps"] == 2 and config["training"]["documents"] == 6
    # 6 training documents × (3 MASK, 2 KEEP) candidates; the held-out 2 are scored.
    assert (config["training"]["mask"], config["training"]["keep"]) == (18, 12)
    assert config["metrics"]["held_out_documents"] == 2
    assert config["metrics"]["held_out_entities"] == 10
    assert 0 <= config["metrics"]["f1_mask"] <= 1
    assert (model_dir / CLASSIFIER_DIR / WEIGHTS_FILE).is_file()
    docs, spans = _corpus(14)
    doc = docs[13]
    script = (
        "import json, sys\n"
        "from sanitizer.risk.pipeline import risk_document\n"
        "from sanitizer.risk.supervised.model import SupervisedRiskModel\n"
        "from sanitizer.risk.surprisal import make_scorer\n"
        "from sanitizer.types import EntitySpan\n"
        "doc, spans = json.load(sys.stdin)\n"
        "document = risk_document(doc['doc_id'], doc['text'], "
        "[EntitySpan(**s) for s in spans], doc['meta'])\n"
        f"model = SupervisedRiskModel.load({str(model_dir)!r})\n"
        "p = model.predict(document, make_scorer())\n"
        "print(json.dumps([type(model).__name__, "
        "{e.mentions[0].text: p[e.entity_id] for e in document.entities if e.entity_id in p}]))\n"
    )
    payload = [doc, [{"start": s.start, "end": s.end, "label": s.label, "text": s.text}
                     for s in spans["d13"]]]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(payload), cwd=REPO, env=env,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    kind, p = json.loads(result.stdout)
    assert kind == "TransformerRiskModel"
    assert set(p) == {
        "1979",
        CITIES[(13 * 5) % 6],
        "14 March 2003",
        "Court",
        "Government of Turkey",
    }
    assert all(0 < v < 1 for v in p.values())
    in_process = SupervisedRiskModel.load(model_dir)
    assert isinstance(in_process, TransformerRiskModel)


def test_changed_weights_are_refused(model_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    (copy / CLASSIFIER_DIR).mkdir(parents=True)
    for item in (model_dir / CLASSIFIER_DIR).iterdir():
        (copy / CLASSIFIER_DIR / item.name).write_bytes(item.read_bytes())
    (copy / CONFIG_FILE).write_text((model_dir / CONFIG_FILE).read_text())
    assert isinstance(SupervisedRiskModel.load(copy), TransformerRiskModel)
    weights = copy / CLASSIFIER_DIR / WEIGHTS_FILE
    weights.write_bytes(weights.read_bytes() + b"\0")
    with pytest.raises(RiskModelError, match="does not match"):
        SupervisedRiskModel.load(copy)
    weights.unlink()
    with pytest.raises(RiskModelError, match="retrain"):
        SupervisedRiskModel.load(copy)


def test_supervised_measure_uses_the_transformer(model_dir: Path) -> None:
    docs, spans = _corpus(14)
    background = [(d["doc_id"], d["text"]) for d in docs]
    doc = docs[12]

    def masks(threshold: float) -> set[str]:
        options = RiskOptions(
            measures=("supervised",), risk_model=str(model_dir), supervised_threshold=threshold
        )
        assessment = RiskMasker(options, background).assess(
            doc["doc_id"], doc["text"], spans["d12"], doc["meta"]
        )
        for c in assessment.combinations:
            assert c.measure == "supervised" and c.reason.startswith("supervised: p(mask) = ")
        return {doc["text"][s:e] for s, e in assessment.masks()}

    direct = {"Ayse Demir", "40012/04"}
    # Every p(mask) is in (0, 1): threshold 0 masks all candidates, threshold 1 none of them.
    assert masks(0.0) == direct | {"1976", CITIES[0], "13 March 2002", "Court",
                                   "Government of Turkey"}  # fmt: skip
    assert masks(1.0) == direct


def test_cli_trains_the_transformer_and_sanitize_uses_it(
    tiny_encoder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs, _ = _corpus(8)
    gold = tmp_path / "tab.json"
    gold.write_text(json.dumps(docs))
    out = tmp_path / "model"
    call_command(
        "train_risk", "--gold", str(gold), "--output", str(out), "--documents", "0:6",
        "--base-model", str(tiny_encoder), "--epochs", "1",
    )  # fmt: skip
    config: dict[str, Any] = json.loads((out / CONFIG_FILE).read_text())
    assert config["format"] == TRANSFORMER_FORMAT and config["params"]["epochs"] == 1
    assert config["base_model"] == str(tiny_encoder)
    assert "wrote the supervised risk model" in capsys.readouterr().out
    explain, masks = tmp_path / "explain.json", tmp_path / "masks.json"
    held = tmp_path / "held.json"
    held.write_text(json.dumps(docs[6:]))
    call_command(
        "sanitize", "--input", str(held), "--output", str(masks), "--strategy", "risk",
        "--measures", "supervised", "--risk-model", str(out), "--supervised-threshold", "0",
        "--explain", str(explain),
    )  # fmt: skip
    assert set(json.loads(masks.read_text())) == {"d6", "d7"}
    reasons = [
        reason
        for doc in json.loads(explain.read_text()).values()
        for mask in doc["masks"]
        for reason in mask["reasons"]
    ]
    # Threshold 0: every candidate entity is masked for its p(mask), besides DIRECT ones.
    supervised = [r for r in reasons if r["measure"] == "supervised"]
    assert supervised and all(r["text"].startswith("supervised: p(mask) = ") for r in supervised)
