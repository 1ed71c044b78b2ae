"""A tiny re-identification world: 50 generated people, a ready knowledge base over them
and a project whose documents are biographies of some of them (``meta.target`` set)."""

from __future__ import annotations

import functools
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import Document, Project, Role
from knowledge.models import KbFormat, KbStatus, KnowledgeBase
from reid.loading import reid_caches_clear
from sanitizer.kanon.synthetic import generate_dataset
from tests.factories import DocumentFactory, MembershipFactory, ProjectFactory, UserFactory

N_PEOPLE = 50
N_DOCS = 6
ROLES = (Role.ANNOTATOR, Role.REVIEWER, Role.ADMIN)


@functools.lru_cache(maxsize=4)
def _generated(n_people: int, seed: int) -> tuple[str, str]:
    # Generated once per test session: the generator is the slow part of every world.
    with tempfile.TemporaryDirectory() as directory:
        dataset = generate_dataset(directory, n_people, N_DOCS, seed=seed)
        return (
            Path(dataset.kb_path).read_text(encoding="utf-8"),
            Path(dataset.docs_path).read_text(encoding="utf-8"),
        )


def write_people(
    directory: Path, n_people: int = N_PEOPLE, seed: int = 3
) -> tuple[Path, list[dict[str, Any]]]:
    """``kb.jsonl`` of ``n_people`` generated profiles and biographies of some of them."""
    kb_text, docs_text = _generated(n_people, seed)
    kb_path = directory / "kb.jsonl"
    kb_path.write_text(kb_text, encoding="utf-8")
    return kb_path, json.loads(docs_text)


def make_kb(
    project: Project | None,
    path: Path,
    *,
    name: str = "people",
    status: str = KbStatus.READY,
    n_persons: int = N_PEOPLE,
) -> KnowledgeBase:
    return KnowledgeBase.objects.create(
        name=name,
        project=project,
        source_format=KbFormat.JSONL,
        source_path=str(path),
        status=status,
        n_persons=n_persons,
        built_at=timezone.now() if status == KbStatus.READY else None,
    )


@dataclass
class World:
    project: Project
    kb: KnowledgeBase
    kb_path: Path
    documents: list[Document]
    users: dict[str, Any] = field(default_factory=dict)

    @property
    def document(self) -> Document:
        return self.documents[0]

    def client(self, who: str) -> APIClient:
        client = APIClient()
        client.force_authenticate(self.users[who])
        return client


def make_world(tmp_path: Path, *, with_target: bool = True) -> World:
    """A project with a ready KB and one document per generated biography; users by role
    (the annotator is assigned nothing: reviewers see every document) and an outsider."""
    reid_caches_clear()
    kb_path, docs = write_people(tmp_path)
    project = ProjectFactory.create(name=f"reid project {tmp_path.name}")
    kb = make_kb(project, kb_path)
    documents = [
        DocumentFactory.create(
            project=project,
            external_id=doc["doc_id"],
            text=doc["text"],
            position=i,
            meta={"target": doc["meta"]["person_id"]} if with_target else {},
            target_person=doc["meta"]["applicant"],
        )
        for i, doc in enumerate(docs)
    ]
    users = {
        str(role): UserFactory.create(username=f"reid-{role}-{tmp_path.name}") for role in ROLES
    }
    for role in ROLES:
        MembershipFactory.create(project=project, user=users[str(role)], role=role)
    users["outsider"] = UserFactory.create(username=f"reid-outsider-{tmp_path.name}")
    MembershipFactory.create(
        project=ProjectFactory.create(name=f"other {tmp_path.name}"),
        user=users["outsider"],
        role=Role.ADMIN,
    )
    return World(project=project, kb=kb, kb_path=kb_path, documents=documents, users=users)


def occurrences(text: str, needle: str) -> list[list[int]]:
    """Every ``[start, end]`` of ``needle`` in ``text``."""
    out, start = [], text.find(needle)
    while start >= 0:
        out.append([start, start + len(needle)])
        start = text.find(needle, start + 1)
    return out
