"""Training the supervised risk classifier and the masked LM from a project (real database),
and the risk assessment reading them from their model versions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

from annotation.models import Document, Project, SetKind, SetStatus, Split
from common.errors import DomainError
from jobs.services import JobStateError
from ml.models import ModelKind, ModelVersion
from ml.services.model_versions import model_version_activate
from ml.services.risk_training import (
    masked_lm_train,
    risk_classifier_train,
    risk_training_records,
)
from ml.validators import (
    mlm_training_params_validate,
    risk_training_params_validate,
    training_params_validate,
)
from risk.models import RiskAssessment
from risk.services import risk_assess_documents
from risk.validators import risk_params_validate
from sanitizer.risk.supervised.model import SupervisedRiskModel
from sanitizer.training.config import default_base_model
from tests.factories import AnnotationSetFactory, SpanFactory, UserFactory
from tests.risk.conftest import make_project

pytestmark = pytest.mark.django_db

# What both annotators mask in each document (QUASI); everything else they leave in clear.
MASKED = (("1932", "Diyarbakır", "Mardin"), ("1950", "Istanbul", "Erzurum"))


def _annotate(document: Document, words: tuple[str, ...], status: str, username: str) -> None:
    annotation_set = AnnotationSetFactory.create(
        document=document,
        kind=SetKind.HUMAN,
        status=status,
        annotator=UserFactory.create(username=username),
    )
    for word in words:
        start = document.text.index(word)
        SpanFactory.create(
            annotation_set=annotation_set,
            start=start,
            end=start + len(word),
            entity_type="LOC",
            identifier_type="QUASI",
        )


def make_annotated_project(name: str) -> tuple[Project, list[Document]]:
    """Two documents, each with two annotators' submitted sets and one set in progress."""
    project, documents = make_project(name)
    for i, (document, words) in enumerate(zip(documents, MASKED, strict=True)):
        _annotate(document, words, SetStatus.SUBMITTED, f"{name}-a-{i}")
        _annotate(document, words, SetStatus.SUBMITTED, f"{name}-b-{i}")
        # Work in progress is no decision: its (contrary) mentions must not count.
        _annotate(document, ("Polat",), SetStatus.IN_PROGRESS, f"{name}-c-{i}")
    return project, documents


@pytest.fixture
def annotated() -> tuple[Project, list[Document]]:
    return make_annotated_project("ann")


def test_training_records_hold_only_decisions_of_non_test_documents(annotated):
    project, documents = annotated
    third = Document.objects.create(
        project=project, external_id="doc-test", text=documents[0].text, split=Split.TEST
    )
    _annotate(third, ("1932",), SetStatus.SUBMITTED, "ann-test")
    records = risk_training_records(project=project)
    assert [r["doc_id"] for r in records] == ["doc-0", "doc-1"]
    assert sorted(records[0]["annotations"]) == ["ann-a-0", "ann-b-0"]


def test_published_gold_replaces_the_annotators(annotated):
    project, documents = annotated
    gold = AnnotationSetFactory.create(document=documents[0], kind=SetKind.GOLD)
    records = risk_training_records(project=project)
    # Not yet published: the annotators still decide.
    assert sorted(records[0]["annotations"]) == ["ann-a-0", "ann-b-0"]
    gold.published_at = gold.created_at
    gold.save()
    records = risk_training_records(project=project)
    assert list(records[0]["annotations"]) == ["gold"]


def test_train_risk_stores_a_loadable_model_version_used_by_risk_assess(
    annotated, settings, tmp_path
):
    settings.MODEL_DIR = tmp_path / "models"
    project, documents = annotated
    model_version = risk_classifier_train(
        project=project, params={"name": "tiny-risk", "folds": 2, "threshold": 0.1}
    )
    assert model_version.kind == ModelKind.RISK_CLASSIFIER
    assert model_version.project == project
    assert model_version.trained_on_documents == sorted(d.pk for d in documents)
    assert Path(model_version.artefact_path).is_relative_to(settings.MODEL_DIR)
    assert model_version.metrics["folds"] == 2
    assert 0 <= model_version.metrics["roc_auc"] <= 1
    summary = model_version.training_summary
    assert summary["documents"] == 2 and summary["mask"] > 0 and summary["keep"] > 0
    loaded = SupervisedRiskModel.load(model_version.artefact_path)
    assert loaded.threshold == 0.1

    # Not active: naming it works; without a name the assessment says what is missing.
    with pytest.raises(DomainError, match="no active risk_classifier model"):
        risk_assess_documents(
            project=project, document_ids=None, settings={"measures": ["supervised"]}
        )
    with pytest.raises(JobStateError, match="active risk classifier"):
        risk_params_validate({"measures": ["supervised"]}, project)
    model_version_activate(model_version=model_version, confirm=True)
    risk_params_validate({"measures": ["supervised"]}, project)
    result = risk_assess_documents(
        project=project, document_ids=None, settings={"measures": ["supervised"]}
    )
    assert result["documents"] == 2
    reasons = [
        c["text"]
        for row in RiskAssessment.objects.filter(document__project=project)
        for c in row.data["combinations"]
    ]
    assert reasons and all(r.startswith("supervised: p(mask)") for r in reasons)


def test_train_risk_without_decisions_is_a_domain_error(settings, tmp_path):
    settings.MODEL_DIR = tmp_path / "models"
    project, _ = make_project("undecided project")
    with pytest.raises(DomainError, match="no training documents"):
        risk_classifier_train(project=project, params={})
    assert not ModelVersion.objects.filter(project=project).exists()


@pytest.fixture
def tiny_mlm(tmp_path: Path) -> str:
    """A 2-layer BERT with MiniLM's vocabulary, saved like a real model (nothing downloaded)."""
    tokenizer = AutoTokenizer.from_pretrained(default_base_model(), local_files_only=True)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=256,
    )
    path = tmp_path / "tiny-mlm"
    BertForMaskedLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return str(path)


def test_train_mlm_stores_a_version_with_top5_used_by_the_scorer(settings, tmp_path, tiny_mlm):
    settings.MODEL_DIR = tmp_path / "models"
    project, documents = make_project("mlm project")
    model_version = masked_lm_train(
        project=project,
        params={"name": "tiny-mlm", "base_model": tiny_mlm, "max_steps": 2, "batch_size": 2},
    )
    assert model_version.kind == ModelKind.MASKED_LM
    # No dev document: the trainer sets its share aside from all it is given.
    assert model_version.trained_on_documents == sorted(d.pk for d in documents)
    assert 0 <= model_version.metrics["top5_accuracy"] <= 1
    assert model_version.training_summary["steps"] == 2
    assert (Path(model_version.artefact_path) / "config.json").is_file()

    settings_: dict[str, Any] = {
        "measures": ["lm"],
        "mlm_model_version_id": model_version.pk,
    }
    risk_params_validate(settings_, project)
    result = risk_assess_documents(project=project, document_ids=None, settings=settings_)
    assert "scorer=mlm" in result["version"]


def test_train_mlm_records_the_documents_it_learnt_from_not_held_out_ones(
    settings, tmp_path, tiny_mlm
):
    settings.MODEL_DIR = tmp_path / "models"
    project, documents = make_project("mlm provenance")
    for split in (Split.DEV, Split.TEST):
        Document.objects.create(
            project=project, external_id=f"doc-{split}", text=documents[0].text, split=split
        )
    model_version = masked_lm_train(
        project=project,
        params={"name": "tiny-mlm-2", "base_model": tiny_mlm, "max_steps": 1, "batch_size": 2},
    )
    # The dev document is only evaluated on; the test one is never given to the trainer.
    assert model_version.trained_on_documents == sorted(d.pk for d in documents)
    assert model_version.training_summary["heldout_documents"] == 1


@pytest.mark.parametrize(
    ("validate", "params", "message"),
    [
        (risk_training_params_validate, {"name": "../etc"}, "slug"),
        (risk_training_params_validate, {"folds": 1}, "folds"),
        (risk_training_params_validate, {"threshold": 2}, "threshold"),
        (risk_training_params_validate, {"output": "/tmp/x"}, "unknown"),
        (risk_training_params_validate, {"activate": "yes"}, "activate"),
        (risk_training_params_validate, {"classifier": "svm"}, "classifier"),
        (risk_training_params_validate, {"base_model": "/tmp/model"}, "ALLOWED_BASE_MODELS"),
        (risk_training_params_validate, {"epochs": 0}, "epochs"),
        (mlm_training_params_validate, {"base_model": "/tmp/model"}, "ALLOWED_BASE_MODELS"),
        (mlm_training_params_validate, {"epochs": 1001}, "epochs"),
        (mlm_training_params_validate, {"max_steps": 100_001}, "max_steps"),
        (mlm_training_params_validate, {"learning_rate": "fast"}, "learning_rate"),
        (mlm_training_params_validate, {"path": "/etc"}, "unknown"),
    ],
)
def test_bad_training_parameters_are_refused(validate: Any, params: dict[str, Any], message: str):
    project, _ = make_project("validated project")
    with pytest.raises(JobStateError, match=message):
        validate(params, project)


def test_good_training_parameters_pass():
    project, _ = make_project("valid project")
    risk_training_params_validate({"name": "risk-1", "folds": 3, "threshold": 0.4}, project)
    mlm_training_params_validate({"name": "mlm-1", "epochs": 2, "max_steps": 100}, project)


def test_train_risk_job_offers_the_transformer_classifier(annotated, settings, tmp_path, tiny_mlm):
    """The gpu worker's classifier: the encoder fine-tuned on the entity in context."""
    settings.MODEL_DIR = tmp_path / "models"
    settings.ALLOWED_BASE_MODELS = [tiny_mlm]
    project, _ = annotated
    params = {
        "name": "tiny-transformer-risk",
        "classifier": "transformer",
        "base_model": tiny_mlm,
        "max_steps": 2,
        "batch_size": 4,
    }
    risk_training_params_validate(params, project)
    model_version = risk_classifier_train(project=project, params=params)
    assert model_version.kind == ModelKind.RISK_CLASSIFIER
    assert model_version.config["base_model"] == tiny_mlm
    loaded = SupervisedRiskModel.load(model_version.artefact_path)
    assert type(loaded).__name__ == "TransformerRiskModel"
    model_version_activate(model_version=model_version, confirm=True)
    result = risk_assess_documents(
        project=project, document_ids=None, settings={"measures": ["supervised"]}
    )
    assert result["documents"] == 2


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"epochs": 1_000_000}, "epochs must be an integer from 1 to 100"),
        ({"batch_size": 100_000}, "batch_size must be an integer from 1 to 256"),
        ({"max_length": 100_000}, "max_length must be an integer from 8 to 512"),
        ({"num_threads": 10_000}, "num_threads must be an integer from 1 to 256"),
    ],
)
def test_recognizer_and_masker_training_refuse_runaway_parameters(
    params: dict[str, Any], named: str
) -> None:
    with pytest.raises(JobStateError, match=named):
        training_params_validate(params, None)
