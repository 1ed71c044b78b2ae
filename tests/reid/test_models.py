"""ReidTarget's constraints: one per document, a non-empty profile id, a known source."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import IntegrityError, transaction

from reid.models import ReidTarget, TargetSource
from tests.reid.helpers import make_world

pytestmark = pytest.mark.django_db


def test_one_target_per_document(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    ReidTarget.objects.create(document=world.document, knowledge_base=world.kb, profile_id="a")
    with pytest.raises(IntegrityError), transaction.atomic():
        ReidTarget.objects.create(document=world.document, knowledge_base=world.kb, profile_id="b")
    assert ReidTarget.objects.get().profile_id == "a"


def test_profile_id_must_not_be_empty(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    with pytest.raises(IntegrityError), transaction.atomic():
        ReidTarget.objects.create(document=world.document, knowledge_base=world.kb, profile_id="")
    assert not ReidTarget.objects.exists()


def test_source_must_be_known(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    with pytest.raises(IntegrityError), transaction.atomic():
        ReidTarget.objects.create(
            document=world.document, knowledge_base=world.kb, profile_id="a", source="guess"
        )
    row = ReidTarget.objects.create(
        document=world.document, knowledge_base=world.kb, profile_id="a"
    )
    assert row.source == TargetSource.UI


def test_target_goes_with_its_document_and_its_knowledge_base(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    for document in world.documents[:2]:
        ReidTarget.objects.create(document=document, knowledge_base=world.kb, profile_id="a")
    world.documents[0].delete()
    assert ReidTarget.objects.count() == 1
    world.kb.delete()
    assert not ReidTarget.objects.exists()
