"""The supervised risk measure: labels from annotators, training, storage, the CLI contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sanitizer.risk.entities import group_entities
from sanitizer.risk.measures.supervised import probability_text
from sanitizer.risk.options import RiskOptions, RiskOptionsError
from sanitizer.risk.pipeline import RiskMasker
from sanitizer.risk.supervised.labels import entity_labels
from sanitizer.risk.supervised.model import (
    CONFIG_FILE,
    MODEL_FILE,
    MODEL_VERSION,
    RiskModelError,
    SupervisedRiskModel,
)
from sanitizer.risk.supervised.training import labelled_documents, train_risk_model
from sanitizer.solver import check_masking, mask_entities
from sanitizer.types import EntitySpan
from tests.sanitizer.risk.helpers import spans_for

REPO = Path(__file__).resolve().parents[3]
PEOPLE = ["Ayse Demir", "Mehmet Kaya", "Ali Yilmaz", "Fatma Sahin", "Hasan Celik", "Zeynep Arslan"]
CITIES = ["Diyarbakır", "Ankara", "Mardin", "Istanbul", "Batman", "Izmir"]
MASKED = ("DIRECT", "QUASI")


def _document(i: int) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
    """A TAB-style judgment and its ``(surface, label, decision)`` for both annotators."""
    person, city = PEOPLE[i % len(PEOPLE)], CITIES[(i * 5) % len(CITIES)]
    born, event = str(1940 + 3 * i), f"{1 + i} March {1990 + i}"
    text = (
        f"The applicant, {person}, was born in {born} and lives in {city}. On {event} the "
        f"police questioned {person}. The Court delivered its judgment. The Government of "
        f"Turkey contested application no. {40000 + i}/04."
    )
    decisions = [
        (person, "PERSON", "DIRECT"),
        (born, "DATETIME", "QUASI"),
        (city, "LOC", "QUASI"),
        (event, "DATETIME", "QUASI"),
        ("Court", "ORG", "NO_MASK"),
        ("Government of Turkey", "ORG", "NO_MASK"),
        (f"{40000 + i}/04", "CODE", "DIRECT"),
    ]
    mentions = [
        {
            "entity_type": label,
            "start_offset": start,
            "end_offset": start + len(surface),
            "span_text": surface,
            "identifier_type": decision,
        }
        for surface, label, decision in decisions
        for start in [text.find(surface)]
    ]
    annotations = {name: {"entity_mentions": mentions} for name in ("annotator1", "annotator2")}
    doc = {
        "doc_id": f"d{i}",
        "text": text,
        "annotations": annotations,
        "meta": {"applicant": person},
    }
    return doc, decisions


def _corpus(n: int = 12) -> tuple[list[dict[str, Any]], dict[str, list[EntitySpan]]]:
    docs, spans = [], {}
    for i in range(n):
        doc, decisions = _document(i)
        docs.append(doc)
        spans[doc["doc_id"]] = spans_for(doc["text"], *((s, lab) for s, lab, _ in decisions))
    return docs, spans


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs, spans = _corpus()
    model = train_risk_model(labelled_documents(docs, spans), folds=3, source="hand-made")
    return model.save(tmp_path_factory.mktemp("risk-model"))


def _mention(start: int, end: int, decision: str) -> dict[str, Any]:
    return {"start_offset": start, "end_offset": end, "identifier_type": decision}


def test_labels_follow_the_annotators_majority_and_leave_out_disagreement() -> None:
    text = "Ankara 1961 Court Mardin Istanbul"
    entities = group_entities(
        spans_for(text, ("Ankara", "LOC"), ("1961", "DATETIME"), ("Court", "ORG"))
        + spans_for(text, ("Mardin", "LOC"), ("Istanbul", "LOC"))
    )
    ids = {e.mentions[0].text: e.entity_id for e in entities}
    annotations = {
        "a1": {"entity_mentions": [_mention(0, 6, "QUASI"), _mention(7, 11, "QUASI"),
                                   _mention(18, 24, "QUASI")]},
        "a2": {"entity_mentions": [_mention(0, 6, "DIRECT"), _mention(7, 11, "NO_MASK"),
                                   _mention(18, 24, "NO_MASK")]},
        "a3": {"entity_mentions": [_mention(0, 6, "NO_MASK"), _mention(7, 9, "NO_MASK")]},
    }  # fmt: skip
    labels = entity_labels(entities, annotations)
    assert labels[ids["Ankara"]] is True  # 2 of 3 masked
    assert labels[ids["1961"]] is False  # 2 of 3 kept (a partial overlap counts)
    # Mardin: a1 masks, a2 keeps, a3 never marked it = kept → 1 of 3: KEEP.
    assert labels[ids["Mardin"]] is False
    assert labels[ids["Court"]] is False  # nobody marked it: text left in clear
    assert labels[ids["Istanbul"]] is False
    two = {k: v for k, v in annotations.items() if k != "a3"}
    assert entity_labels(entities, two)[ids["1961"]] is None  # 1–1: left out
    assert entity_labels(entities, two)[ids["Ankara"]] is True
    assert set(entity_labels(entities, {}).values()) == {None}


def test_trained_model_reloads_in_a_fresh_process_and_predicts(model_dir: Path) -> None:
    config = json.loads((model_dir / CONFIG_FILE).read_text())
    assert config["version"] == MODEL_VERSION
    assert config["training"]["documents"] == 12
    # Per document 3 MASK (year, city, event date) and 2 KEEP (Court, Government).
    assert (config["training"]["mask"], config["training"]["keep"]) == (36, 24)
    assert config["metrics"]["folds"] == 3 and config["metrics"]["roc_auc"] > 0.9
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
        "by_text = {e.mentions[0].text: p[e.entity_id] for e in document.entities "
        "if e.entity_id in p}\n"
        "print(json.dumps(by_text))\n"
    )
    payload = [doc, [{"start": s.start, "end": s.end, "label": s.label, "text": s.text}
                     for s in spans["d13"]]]  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(payload), cwd=REPO,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    p = json.loads(result.stdout)
    assert set(p) == {
        "1979",
        CITIES[(13 * 5) % 6],
        "14 March 2003",
        "Court",
        "Government of Turkey",
    }
    assert min(p["1979"], p[CITIES[5]], p["14 March 2003"]) > 0.5
    assert max(p["Court"], p["Government of Turkey"]) < 0.5


def test_model_directory_is_checked_on_load(model_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(RiskModelError, match="train_risk"):
        SupervisedRiskModel.load(tmp_path)
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / CONFIG_FILE).write_text((model_dir / CONFIG_FILE).read_text())
    (copy / MODEL_FILE).write_bytes((model_dir / MODEL_FILE).read_bytes() + b"\0")
    with pytest.raises(RiskModelError, match="does not match"):
        SupervisedRiskModel.load(copy)


def test_supervised_measure_masks_what_the_model_calls_risky(model_dir: Path) -> None:
    docs, spans = _corpus(14)
    background = [(d["doc_id"], d["text"]) for d in docs]
    masker = RiskMasker(
        RiskOptions(measures=("supervised",), risk_model=str(model_dir)), background
    )
    doc = docs[12]
    assessment = masker.assess(doc["doc_id"], doc["text"], spans["d12"], doc["meta"])
    masked = {doc["text"][s:e] for s, e in assessment.masks()}
    assert {"1976", "13 March 2002", "Ayse Demir", "40012/04"} <= masked
    assert not {"Court", "Government of Turkey"} & masked
    supervised = [c for c in assessment.combinations if c.measure == "supervised"]
    assert supervised and all(len(c.entity_ids) == 1 for c in supervised)
    for c in supervised:
        prefix, _, value = c.reason.partition("p(mask) = ")
        assert prefix == "supervised: " and abs(float(value) - c.score) <= 0.0051, c.reason
        assert c.score >= 0.5
    entities = mask_entities(assessment.document.entities, assessment.ic)
    assert not check_masking(entities, assessment.combinations, assessment.solution)
    assert all(s.attrs["reasons"] for s in assessment.masked_spans())
    # A stricter dial: nothing is that certain, only DIRECT entities stay masked.
    strict = RiskMasker(
        RiskOptions(measures=("supervised",), risk_model=str(model_dir), supervised_threshold=1.0),
        background,
    ).assess(doc["doc_id"], doc["text"], spans["d12"], doc["meta"])
    assert {doc["text"][s:e] for s, e in strict.masks()} == {"Ayse Demir", "40012/04"}


def test_options_need_a_model_for_the_supervised_measure(tmp_path: Path) -> None:
    assert RiskOptions(risk_model="m").active_measures == ("lm", "linkage", "supervised")
    with pytest.raises(RiskOptionsError, match="--risk-model"):
        RiskOptions(measures=("lm", "supervised")).validate()
    with pytest.raises(RiskOptionsError, match="probability"):
        RiskOptions(risk_model="m", supervised_threshold=1.5).validate()
    with pytest.raises(RiskModelError, match="no supervised risk model"):
        RiskMasker(RiskOptions(measures=("supervised",), risk_model=str(tmp_path)))
    assert probability_text(0.934) == ".93" and probability_text(1.0) == "1.00"


def _manage(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DATABASE_URL"}}
    env["DATABASE_URL"] = "postgres://nobody@127.0.0.1:1/none"  # no database is needed
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def test_cli_train_risk_then_sanitize_explains_every_supervised_mask(tmp_path: Path) -> None:
    docs, _ = _corpus(14)
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps(docs))
    model = tmp_path / "model"
    refused = _manage("train_risk", "--gold", str(gold), "--output", str(model),
                      "--base-model", "roberta-base", "--epochs", "2")  # fmt: skip
    # An encoder that is neither a local directory nor cached offline fails, writing nothing.
    assert refused.returncode != 0 and "--base-model roberta-base" in refused.stderr
    assert not model.exists()
    trained = _manage("train_risk", "--gold", str(gold), "--output", str(model),
                      "--documents", "0:12", "--folds", "3")  # fmt: skip
    assert trained.returncode == 0, trained.stderr[-2000:]
    assert json.loads((model / CONFIG_FILE).read_text())["training"]["documents"] == 12

    held = tmp_path / "held.json"
    held.write_text(json.dumps(docs[12:]))
    masks_path, explain_path = tmp_path / "masks.json", tmp_path / "explain.json"
    result = _manage("sanitize", "--input", str(held), "--output", str(masks_path),
                     "--strategy", "risk", "--measures", "supervised,lm",
                     "--risk-model", str(model), "--explain", str(explain_path))  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    masks, explain = json.loads(masks_path.read_text()), json.loads(explain_path.read_text())
    assert set(masks) == set(explain) == {"d12", "d13"}
    measures = set()
    for doc in docs[12:]:
        record = explain[doc["doc_id"]]
        masked = {(m["start"], m["end"]) for m in record["masks"]}
        assert masked == {tuple(span) for span in masks[doc["doc_id"]]}
        assert all(m["reasons"] for m in record["masks"])
        for risky in record["risky"]:
            assert any(tuple(span) in masked for span in risky["combination"]), risky
        measures |= {r["measure"] for m in record["masks"] for r in m["reasons"]}
        covered = {doc["text"][s:e] for s, e in masks[doc["doc_id"]]}
        assert "Court" not in covered
    assert "supervised" in measures
    texts = [r["text"] for rec in explain.values() for m in rec["masks"] for r in m["reasons"]]
    assert any(t.startswith("supervised: p(mask) = ") for t in texts)
    missing = _manage("sanitize", "--input", str(held), "--output", str(masks_path),
                      "--strategy", "risk", "--measures", "supervised")  # fmt: skip
    assert missing.returncode != 0 and "--risk-model" in missing.stderr
