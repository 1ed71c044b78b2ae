"""Choosing a document's person: the profile must exist in a ready knowledge base the
document's project may use; a new choice replaces the old one; clearing forgets it."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from knowledge.models import KbStatus
from reid.models import ReidTarget, TargetSource
from reid.services.targets import reid_target_clear, reid_target_set
from tests.factories import ProjectFactory
from tests.reid.helpers import make_kb, make_world

pytestmark = pytest.mark.django_db


def test_set_target_records_who_and_replaces_the_previous_choice(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    user = world.users["annotator"]

    first = reid_target_set(
        document=world.document, knowledge_base=world.kb, profile_id="SP00000001", user=user
    )
    second = reid_target_set(
        document=world.document, knowledge_base=world.kb, profile_id="SP00000002", user=user
    )

    assert second.pk == first.pk
    row = ReidTarget.objects.get()
    assert (row.profile_id, row.source, row.set_by) == ("SP00000002", TargetSource.UI, user)
    assert row.knowledge_base == world.kb


def test_unknown_profile_is_refused_naming_the_field(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    with pytest.raises(ValidationError) as caught:
        reid_target_set(
            document=world.document, knowledge_base=world.kb, profile_id="nobody", user=None
        )
    assert "profile_id" in caught.value.message_dict
    assert "nobody" in caught.value.message_dict["profile_id"][0]
    assert not ReidTarget.objects.exists()


@pytest.mark.parametrize("profile_id", ["", "x" * 201, "a\x00b"])
def test_malformed_profile_id_is_refused(tmp_path: Path, profile_id: str) -> None:
    world = make_world(tmp_path)
    with pytest.raises(ValidationError) as caught:
        reid_target_set(
            document=world.document, knowledge_base=world.kb, profile_id=profile_id, user=None
        )
    assert "profile_id" in caught.value.message_dict


def test_knowledge_base_of_another_project_is_refused(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    foreign = make_kb(ProjectFactory.create(name="foreign"), world.kb_path, name="foreign")
    with pytest.raises(ValidationError) as caught:
        reid_target_set(
            document=world.document, knowledge_base=foreign, profile_id="SP00000001", user=None
        )
    assert "another project" in caught.value.message_dict["knowledge_base"][0]


def test_knowledge_base_that_is_not_ready_is_refused(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    building = make_kb(world.project, world.kb_path, name="building", status=KbStatus.BUILDING)
    with pytest.raises(ValidationError) as caught:
        reid_target_set(
            document=world.document, knowledge_base=building, profile_id="SP00000001", user=None
        )
    assert "not ready" in caught.value.message_dict["knowledge_base"][0]


def test_shared_knowledge_base_may_be_chosen(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    shared = make_kb(None, world.kb_path, name="shared")
    row = reid_target_set(
        document=world.document, knowledge_base=shared, profile_id="SP00000003", user=None
    )
    assert row.knowledge_base == shared
    assert row.set_by is None


def test_clear_forgets_the_choice(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    reid_target_set(
        document=world.document, knowledge_base=world.kb, profile_id="SP00000001", user=None
    )
    assert reid_target_clear(document=world.document) is True
    assert reid_target_clear(document=world.document) is False
    assert not ReidTarget.objects.exists()
