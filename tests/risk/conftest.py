"""A small project whose documents the rule-based recognizer finds entities in."""

from __future__ import annotations

import pytest

from annotation.models import Document, Project
from tests.factories import DocumentFactory, ProjectFactory

TEXTS = (
    "The applicant, Mr Cengiz Polat, was born in 1932 and lives in Diyarbakır. He was a "
    "teacher at the Mardin Public Prosecutor's office until 1994. On 12 March 1996 he "
    "lodged application no. 12345/96 with the Commission; Mr Polat was represented by "
    "Mr Ali Yılmaz, a lawyer practising in Ankara.",
    "The applicant, Mrs Ayşe Demir, is a Turkish national who was born in 1950 and lives "
    "in Istanbul. She worked as a nurse in Erzurum. The applicant was represented by "
    "Mr Cengiz Polat, a lawyer practising in Diyarbakır, before the Court in Strasbourg.",
)


def make_project(name: str = "risk project") -> tuple[Project, list[Document]]:
    project = ProjectFactory.create(name=name)
    people = ("Cengiz Polat", "Ayşe Demir")
    documents = [
        DocumentFactory.create(
            project=project, text=text, position=i, external_id=f"doc-{i}", target_person=person
        )
        for i, (text, person) in enumerate(zip(TEXTS, people, strict=True))
    ]
    return project, documents


@pytest.fixture
def risk_project() -> tuple[Project, list[Document]]:
    return make_project()
