"""Which profile a document is about: the editor's choice, else the imported target in the
newest ready knowledge base holding it; what is missing when the document cannot be ranked."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.models import KbStatus
from reid.models import TargetSource
from reid.selectors import (
    ReidUnavailable,
    document_reid_info,
    document_target,
    reid_context,
)
from reid.services.targets import reid_target_set
from tests.reid.helpers import make_kb, make_world, write_people

pytestmark = pytest.mark.django_db


def test_imported_target_resolves_in_the_newest_ready_knowledge_base(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    newer = make_kb(world.project, world.kb_path, name="newer")
    make_kb(world.project, world.kb_path, name="building", status=KbStatus.BUILDING)

    target = document_target(document=world.document)

    assert target is not None
    assert target.knowledge_base == newer
    assert target.profile_id == world.document.meta["target"]
    assert target.source == TargetSource.IMPORT


def test_knowledge_base_without_the_profile_is_passed_over(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    other_path, _ = write_people(other_dir, n_people=5, seed=11)
    # Ids are positional (SP00000000..): keep only ids the documents do not use.
    lines = other_path.read_text(encoding="utf-8").splitlines()
    other_path.write_text(
        "\n".join(line.replace('"SP000', '"XX000') for line in lines) + "\n", encoding="utf-8"
    )
    make_kb(world.project, other_path, name="unrelated", n_persons=5)

    target = document_target(document=world.document)

    assert target is not None and target.knowledge_base == world.kb


def test_generator_person_id_is_a_target_too(tmp_path: Path) -> None:
    world = make_world(tmp_path, with_target=False)
    document = world.document
    document.meta = {"person_id": "SP00000004"}
    document.save()
    target = document_target(document=document)
    assert target is not None and target.profile_id == "SP00000004"


def test_the_editors_choice_wins_over_the_import(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    shared = make_kb(None, world.kb_path, name="shared")
    reid_target_set(
        document=world.document, knowledge_base=shared, profile_id="SP00000009", user=None
    )

    target = document_target(document=world.document)

    assert target is not None
    assert (target.knowledge_base, target.profile_id) == (shared, "SP00000009")
    assert target.source == TargetSource.UI
    context = reid_context(document=world.document)
    assert context.ensemble.profiles[context.target_index].id == "SP00000009"


def test_no_target_and_no_knowledge_base_say_what_is_missing(tmp_path: Path) -> None:
    world = make_world(tmp_path, with_target=False)
    assert document_target(document=world.document) is None
    with pytest.raises(ReidUnavailable, match="no target person"):
        reid_context(document=world.document)

    world.document.meta = {"target": "nobody"}
    world.document.save()
    with pytest.raises(ReidUnavailable, match="'nobody' is in no ready knowledge base"):
        reid_context(document=world.document)

    world.kb.status = KbStatus.FAILED
    world.kb.save()
    with pytest.raises(ReidUnavailable, match="no ready knowledge base"):
        reid_context(document=world.document)


def test_info_names_the_person_the_knowledge_bases_and_the_models(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    info = document_reid_info(document=world.document)
    profile_id = world.document.meta["target"]
    assert info["target"] == {
        "profile_id": profile_id,
        "name": world.document.target_person,
        "knowledge_base": world.kb.pk,
        "source": "import",
    }
    assert info["knowledge_bases"] == [{"id": world.kb.pk, "name": world.kb.name}]
    assert [m["name"] for m in info["models"]] == ["bm25"]
    assert info["k"] == 10


def test_info_without_target_still_lists_what_can_be_chosen(tmp_path: Path) -> None:
    world = make_world(tmp_path, with_target=False)
    info = document_reid_info(document=world.document)
    assert info["target"] is None
    assert [kb["id"] for kb in info["knowledge_bases"]] == [world.kb.pk]
    assert [m["name"] for m in info["models"]] == ["bm25"]
