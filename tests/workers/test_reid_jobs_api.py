"""The re-identification job kinds through the job API: parameters are checked before a
job is queued, and a refusal is a 400 naming the parameter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jobs.models import Job
from knowledge.models import KbStatus
from tests.factories import DocumentFactory, ProjectFactory
from tests.reid.helpers import make_kb, make_world

pytestmark = pytest.mark.django_db


def _post(world, kind: str, params: dict[str, Any]):
    return world.client("admin").post(
        f"/api/projects/{world.project.pk}/jobs/create/",
        {"kind": kind, "params": params},
        format="json",
    )


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        ("train_reid", {"epochs": 0}, "epochs must be an integer from 1 to 50"),
        ("train_reid", {"epochs": 51}, "epochs must be an integer from 1 to 50"),
        ("train_reid", {"epochs": "3"}, "epochs"),
        ("train_reid", {"base_model": "/etc/passwd"}, "base_model must be one of"),
        ("train_reid", {"name": "../x"}, "name must be a slug"),
        ("train_reid", {"synthetic_docs": -1}, "synthetic_docs"),
        ("train_reid", {"synthetic_docs": 20_001}, "synthetic_docs"),
        ("train_reid", {"activate": "yes"}, "activate must be true or false"),
        ("train_reid", {"knowledge_base_id": "1"}, "knowledge_base_id must be an integer id"),
        ("train_reid", {"path": "/tmp"}, "unknown parameters: path"),
        ("reid_deidentify", {"k": 0}, "k must be an integer from 1 to 10000"),
        ("reid_deidentify", {"start": "kanon"}, "start must be one of: none, risk"),
        ("reid_deidentify", {"max_steps": 0}, "max_steps"),
        ("reid_deidentify", {"document_ids": "all"}, "document_ids"),
        ("reid_deidentify", {"models": ["dense"]}, "unknown parameters: models"),
        ("reid_curve", {"k_values": []}, "k_values must be a list of 1 to 10 integers"),
        ("reid_curve", {"k_values": [1, 0]}, "k_values"),
        ("reid_curve", {"k_values": list(range(1, 12))}, "k_values"),
        ("reid_curve", {"k_values": [True]}, "k_values"),
    ],
)
def test_bad_parameters_are_a_400_naming_the_parameter(
    tmp_path: Path, kind: str, params: dict[str, Any], message: str
) -> None:
    world = make_world(tmp_path)
    response = _post(world, kind, params)
    assert response.status_code == 400, response.content
    assert message in response.json()["detail"]
    assert not Job.objects.exists()


def test_ids_must_name_this_project_s_ready_objects(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    foreign_kb = make_kb(ProjectFactory.create(name="foreign"), world.kb_path, name="foreign")
    building = make_kb(world.project, world.kb_path, name="building", status=KbStatus.BUILDING)
    foreign_doc = DocumentFactory.create(project=ProjectFactory.create(name="elsewhere"))
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("train_reid", {"knowledge_base_id": foreign_kb.pk}, "no knowledge base"),
        ("reid_curve", {"knowledge_base_id": building.pk}, "is not ready"),
        ("reid_deidentify", {"document_ids": [foreign_doc.pk]}, "outside this project"),
    ]
    for kind, params, message in cases:
        response = _post(world, kind, params)
        assert response.status_code == 400 and message in response.json()["detail"], kind


@pytest.mark.parametrize(
    ("kind", "params", "queue"),
    [
        ("train_reid", {"epochs": 2, "synthetic_docs": 100, "activate": True}, "gpu"),
        ("reid_deidentify", {"k": 10, "start": "risk"}, "cpu"),
        ("reid_curve", {"k_values": [1, 10]}, "cpu"),
    ],
)
def test_good_parameters_queue_the_job_on_its_queue(
    tmp_path: Path, kind: str, params: dict[str, Any], queue: str
) -> None:
    world = make_world(tmp_path)
    response = _post(world, kind, {**params, "knowledge_base_id": world.kb.pk})
    assert response.status_code == 201, response.content
    job = Job.objects.get(pk=response.json()["id"])
    assert (job.kind, job.queue, job.params["knowledge_base_id"]) == (kind, queue, world.kb.pk)
