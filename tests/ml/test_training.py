"""Training the neural recognizer from a project's annotations (tiny settings, CPU)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from annotation.models import AnnotationSet, SetKind, SetSource, Split
from ml.models import ModelKind
from ml.selectors import model_activation_comparison
from ml.services.model_versions import model_version_activate
from ml.services.preannotation import preannotate_documents
from ml.services.training import recognizer_train, training_data_collect
from tests.factories import AnnotationSetFactory, DocumentFactory, ProjectFactory, SpanFactory

REPO = Path(__file__).resolve().parents[2]
NAMES = ["Anna Berg", "Karl Olsen", "Maria Lund", "Peter Holm", "Eva Dahl", "Jon Moe"]
TINY = {
    "max_length": 32,
    "window_overlap": 8,
    "batch_size": 4,
    "epochs": 2,
    "max_steps": 12,
    "num_threads": 1,
    "learning_rate": 5e-4,
}


def _annotated_document(project, i: int, split: str = Split.TRAIN):
    name = NAMES[i % len(NAMES)]
    text = f"The applicant {name} lodged application no. {1000 + i}/0{i % 10} in 2001."
    document = DocumentFactory.create(project=project, text=text, split=split, external_id=f"t{i}")
    annotation_set = AnnotationSetFactory.create(
        document=document, kind=SetKind.HUMAN, status="submitted"
    )
    start = text.index(name)
    SpanFactory.create(
        annotation_set=annotation_set, start=start, end=start + len(name), entity_type="PERSON"
    )
    code = f"{1000 + i}/0{i % 10}"
    start = text.index(code)
    SpanFactory.create(
        annotation_set=annotation_set, start=start, end=start + len(code), entity_type="CODE"
    )
    return document


@pytest.mark.django_db
def test_training_data_prefers_gold_and_never_uses_test_documents():
    project = ProjectFactory.create()
    train_doc = _annotated_document(project, 0)
    gold = AnnotationSetFactory.create(
        document=train_doc, kind=SetKind.GOLD, annotator=None, source="adjudication"
    )
    SpanFactory.create(annotation_set=gold, start=14, end=23, entity_type="ORG")
    dev_doc = _annotated_document(project, 1, split=Split.DEV)
    _annotated_document(project, 2, split=Split.TEST)
    DocumentFactory.create(project=project, external_id="unannotated")  # no example: not read
    data = training_data_collect(project=project, sources=["gold", "human"])
    assert len(data.train) == 1 and len(data.dev) == 1
    # What the model reads: the train and the dev document, never the test one.
    assert data.document_ids == sorted([train_doc.pk, dev_doc.pk])
    assert [s.label for s in data.train[0][1]] == ["ORG"]
    assert data.by_source == {"gold": 1, "human": 1}


@pytest.mark.slow
@pytest.mark.django_db
def test_training_saves_a_model_version_that_reloads_in_a_fresh_process(settings, tmp_path):
    settings.MODEL_DIR = tmp_path / "models"
    project = ProjectFactory.create()
    documents = [
        _annotated_document(project, i, split=Split.DEV if i == 7 else Split.TRAIN)
        for i in range(8)
    ]
    _annotated_document(project, 8, split=Split.TEST)
    model_version = recognizer_train(
        project=project, params={**TINY, "sources": ["human"], "activate": True}
    )
    assert model_version.kind == ModelKind.RECOGNIZER
    # Asked to activate, it is active unless it evaluates worse than the built-in one
    # (or shares no figure with it); then its summary says why it is not.
    needs_confirm = model_activation_comparison(model_version=model_version)["needs_confirm"]
    assert model_version.is_active is not needs_confirm
    assert ("activation" in model_version.training_summary) is needs_confirm
    assert model_version.training_summary["train_documents"] == 7
    assert model_version.training_summary["dev_documents"] == 1
    assert model_version.trained_on_documents == sorted(d.pk for d in documents)
    assert "token_f1" in model_version.metrics or "dev_loss" in model_version.metrics
    assert Path(model_version.artefact_path, "sanitizer_model.json").exists()

    script = textwrap.dedent(
        f"""
        import json
        from sanitizer.training.tagger import load_tagger
        tagger = load_tagger({model_version.artefact_path!r})
        text = "The applicant Jon Moe lodged application no. 4321/09 in 2001."
        spans = tagger.predict(text)
        assert all(text[s.start:s.end] == s.text for s in spans)
        found = [[s.start, s.end, s.label] for s in spans]
        print(json.dumps({{"source": tagger.source, "spans": found}}))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    output = json.loads(result.stdout.strip().splitlines()[-1])
    assert output["source"].endswith(model_version.version)
    for start, end, label in output["spans"]:
        assert 0 <= start < end and label in {
            "PERSON",
            "CODE",
            "DATETIME",
            "LOC",
            "ORG",
            "DEM",
            "QUANTITY",
            "MISC",
        }

    # The built-in recognizer was measured on the same dev document for the comparison.
    assert "entity_exact_f1" in model_version.training_summary["builtin_metrics"]
    # Once active (confirmed, should it be worse), the model pre-annotates, and its spans
    # name that model version.
    model_version_activate(model_version=model_version, confirm=True)
    fresh = DocumentFactory.create(
        project=project, text="The applicant Eva Dahl lodged application no. 77/01."
    )
    preannotate_documents(project=project, document_ids=[fresh.pk])
    machine = AnnotationSet.objects.get(document=fresh, kind=SetKind.MACHINE)
    assert machine.source == SetSource.MODEL
    assert machine.model_version_id == model_version.pk
    assert machine.source_version.endswith(model_version.version)


@pytest.mark.django_db
def test_training_documents_hold_out_dev_documents_or_every_tenth():
    from ml.selectors import training_documents

    project = ProjectFactory.create()
    docs = [DocumentFactory.create(project=project, position=i) for i in range(12)]
    held_out = [d.pk for d, is_dev in training_documents(project=project) if is_dev]
    assert held_out == [docs[9].pk]
    docs[2].split = Split.DEV
    docs[2].save()
    docs[3].split = Split.TEST
    docs[3].save()
    pairs = training_documents(project=project)
    assert [d.pk for d, is_dev in pairs if is_dev] == [docs[2].pk]
    assert docs[3].pk not in {d.pk for d, _ in pairs}
    assert len(training_documents(project=project, max_documents=5)) == 5
