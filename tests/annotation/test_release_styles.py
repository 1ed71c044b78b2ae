"""The numbered release style through the release API (placeholders and their offsets)
and both exports (command line and API): one implementation, the same placeholders."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from annotation.models import Role, SetStatus
from tests.factories import (
    AnnotationSetFactory,
    DocumentFactory,
    MembershipFactory,
    SpanFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

TEXT = "😀 Anna Berg met Per Olsen. Later Ms Berg, Mr Olsen and anna berg left Oslo."
RELEASED = "😀 [PERSON 1] met [PERSON 2]. Later [PERSON 1], [PERSON 2] and [PERSON 1] left [LOC 1]."


def at(word: str) -> tuple[int, int]:
    start = TEXT.index(word)
    return start, start + len(word)


# (word, type, decision, entity id). "anna berg" is unlinked and joins entity "anna" by
# its text; DIRECT and QUASI mentions are both masked.
MENTIONS = [
    ("Anna Berg", "PERSON", "DIRECT", "anna"),
    ("Per Olsen", "PERSON", "DIRECT", "per"),
    ("Ms Berg", "PERSON", "DIRECT", "anna"),
    ("Mr Olsen", "PERSON", "QUASI", "per"),
    ("anna berg", "PERSON", "DIRECT", ""),
    ("Oslo", "LOC", "QUASI", ""),
]


@pytest.fixture
def annotated() -> Any:
    document = DocumentFactory.create(project__name="R", external_id="d1", text=TEXT)
    annotator = UserFactory.create(username="ann")
    MembershipFactory.create(project=document.project, user=annotator, role=Role.ANNOTATOR)
    reviewer = UserFactory.create(username="rev")
    MembershipFactory.create(project=document.project, user=reviewer, role=Role.REVIEWER)
    human = AnnotationSetFactory.create(
        document=document, annotator=annotator, status=SetStatus.SUBMITTED
    )
    for word, entity_type, decision, entity_id in MENTIONS:
        start, end = at(word)
        SpanFactory.create(
            annotation_set=human,
            start=start,
            end=end,
            entity_type=entity_type,
            identifier_type=decision,
            entity_id=entity_id,
        )
    return document, reviewer


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_release_api_numbers_entities_and_returns_placeholder_offsets(annotated: Any) -> None:
    document, reviewer = annotated
    spans = [
        {
            "start": at(word)[0],
            "end": at(word)[1],
            "entity_type": entity_type,
            "identifier_type": decision,
            "entity_id": entity_id,
        }
        for word, entity_type, decision, entity_id in MENTIONS
    ]
    spans[4].pop("entity_id")  # optional: an unlinked span may leave it out
    response = client_for(reviewer).post(
        f"/api/documents/{document.pk}/release/",
        {"style": "numbered", "spans": spans},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["text"], body["style"]) == (RELEASED, "numbered")
    placeholders = body["placeholders"]
    # Offsets are code points, like every offset of the API.
    assert [body["text"][p["start"] : p["end"]] for p in placeholders] == [
        "[PERSON 1]",
        "[PERSON 2]",
        "[PERSON 1]",
        "[PERSON 2]",
        "[PERSON 1]",
        "[LOC 1]",
    ]
    assert [TEXT[p["source_start"] : p["source_end"]] for p in placeholders] == [
        word for word, *_ in MENTIONS
    ]
    assert [(p["entity_type"], p["number"]) for p in placeholders][:2] == [
        ("PERSON", 1),
        ("PERSON", 2),
    ]

    typed = client_for(reviewer).post(
        f"/api/documents/{document.pk}/release/", {"spans": spans[:1]}, format="json"
    )
    assert typed.json()["placeholders"] == [
        {
            "start": 2,
            "end": 10,
            "source_start": 2,
            "source_end": 11,
            "entity_type": "PERSON",
            "number": None,
        }
    ]


def test_command_line_and_api_exports_offer_the_numbered_style(
    annotated: Any, tmp_path: Path
) -> None:
    document, reviewer = annotated
    output = tmp_path / "released.json"
    call_command(
        "export_documents",
        "--project",
        "R",
        "--format",
        "text",
        "--style",
        "numbered",
        "--output",
        str(output),
        stderr=StringIO(),
    )
    assert json.loads(output.read_text(encoding="utf-8")) == [{"doc_id": "d1", "text": RELEASED}]

    response = client_for(reviewer).get(
        f"/api/projects/{document.project_id}/export/?format=text&style=numbered"
    )
    assert response.status_code == 200
    assert json.loads(response.getvalue()) == [{"doc_id": "d1", "text": RELEASED}]
    # The masks do not depend on the style and keep plain [start, end] pairs.
    masks = client_for(reviewer).get(f"/api/projects/{document.project_id}/export/?format=masks")
    assert masks.json() == {"d1": sorted([list(at(word)) for word, *_ in MENTIONS])}
