"""Knowledge bases and distant labelling of a project, on the real database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from annotation.models import AnnotationSet, SetKind, SetSource
from knowledge.models import KbStatus
from knowledge.services import distant_label_project, knowledge_base_create
from tests.factories import DocumentFactory, ProjectFactory

# Five people; "lisbon" is shared by three, "freamunde" by two, only P1 has both.
PEOPLE: list[dict[str, Any]] = [
    {
        "id": "P1",
        "name": "Ana Lima",
        "attributes": {"residence": ["Lisbon"], "place of birth": ["Freamunde"]},
    },
    {
        "id": "P2",
        "name": "Rui Costa",
        "attributes": {"residence": ["Lisbon"], "place of birth": ["Porto"]},
    },
    {
        "id": "P3",
        "name": "Rita Sousa",
        "attributes": {"residence": ["Lisbon"], "place of birth": ["Porto"]},
    },
    {
        "id": "P4",
        "name": "Joao Alves",
        "attributes": {"residence": ["Braga"], "place of birth": ["Freamunde"]},
    },
    {
        "id": "P5",
        "name": "Eva Pinto",
        "attributes": {"residence": ["Braga"], "place of birth": ["Porto"]},
    },
]


@pytest.fixture
def kb_file(tmp_path: Path) -> Path:
    path = tmp_path / "kb.jsonl"
    path.write_text("\n".join(json.dumps({**p, "aliases": []}) for p in PEOPLE) + "\n")
    return path


@pytest.fixture
def model_dir(settings, tmp_path: Path) -> Path:
    settings.MODEL_DIR = tmp_path / "models"
    return settings.MODEL_DIR


@pytest.mark.django_db
def test_knowledge_base_builds_inline(kb_file: Path, model_dir: Path):
    kb = knowledge_base_create(
        name="five", source_path=kb_file, source_format="jsonl", background=False
    )
    kb.refresh_from_db()
    assert kb.status == KbStatus.READY
    assert kb.n_persons == 5
    assert kb.n_terms > 5
    assert kb.index_bytes > 0
    assert Path(kb.index_dir, "gazetteer.pkl").exists()


@pytest.mark.django_db
def test_distant_labelling_masks_rare_combinations_with_explanations(
    kb_file: Path, model_dir: Path
):
    project = ProjectFactory.create(k_anonymity=2)
    document = DocumentFactory.create(
        project=project, text="She lives in Lisbon. She was born in Freamunde.", external_id="d1"
    )
    kb = knowledge_base_create(
        name="five", source_path=kb_file, source_format="jsonl", background=False
    )
    result = distant_label_project(
        project=project, knowledge_base=kb, k=2, max_arity=2, type_with_recognizer=False
    )
    assert result["documents"] == 1
    machine = AnnotationSet.objects.get(document=document, kind=SetKind.MACHINE)
    assert machine.source == SetSource.DISTANT
    assert machine.parameters["k"] == 2 and machine.parameters["max_arity"] == 2
    spans = list(machine.spans.all())
    # Lisbon (3 people) and Freamunde (2) are each safe for k=2, but together they
    # single out P1: greedy masks the term with the shorter posting list, Freamunde.
    assert [s.text for s in spans] == ["Freamunde"]
    assert spans[0].attrs["count"] == 1
    assert sorted(spans[0].attrs["combination"]) == ["freamunde", "lisbon"]
    explanation = machine.parameters["explanation"]["masked"][0]
    assert explanation["term"] == "freamunde" and explanation["count"] == 1


@pytest.mark.django_db
def test_distant_labelling_refuses_a_knowledge_base_that_is_not_ready(
    kb_file: Path, model_dir: Path
):
    project = ProjectFactory.create()
    kb = knowledge_base_create(
        name="five", source_path=kb_file, source_format="jsonl", background=False
    )
    kb.status = KbStatus.BUILDING
    with pytest.raises(ValueError, match="not ready"):
        distant_label_project(project=project, knowledge_base=kb, k=2)


def test_a_registered_selection_function_is_accepted_by_the_job_validator():
    from jobs.services import JobStateError
    from knowledge.validators import selection_validate
    from sanitizer.kanon.algorithm import selection_functions

    with pytest.raises(JobStateError, match="greedy, random"):
        selection_validate("first_term_for_tests")
    selection_functions.register("first_term_for_tests")(selection_functions.get("greedy"))
    selection_validate("first_term_for_tests")
