"""Visibility rules and mask-source choice."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import AnonymousUser

from annotation.models import AnnotationSet, Document, Role, SetKind, SetSource, SetStatus
from annotation.selectors import (
    annotation_set_editable,
    annotation_set_visible,
    annotation_sets_for_user,
    documents_for_user,
    masked_spans,
    masking_set,
    project_role,
    projects_for_user,
)
from annotation.services import gold_publish, gold_set_for_document, machine_set_create
from sanitizer.types import EntitySpan
from tests.factories import (
    AnnotationSetFactory,
    AssignmentFactory,
    DocumentFactory,
    MembershipFactory,
    ProjectFactory,
    SpanFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@dataclass
class World:
    document: Document
    alice_set: AnnotationSet
    bob_set: AnnotationSet
    machine: AnnotationSet
    gold: AnnotationSet
    alice: object
    bob: object
    reviewer: object
    admin: object
    outsider: object


@pytest.fixture
def world() -> World:
    document = DocumentFactory.create()
    project = document.project
    alice, bob, reviewer, admin, outsider = (UserFactory.create() for _ in range(5))
    for user, role in ((alice, Role.ANNOTATOR), (bob, Role.ANNOTATOR)):
        MembershipFactory.create(project=project, user=user, role=role)
    MembershipFactory.create(project=project, user=reviewer, role=Role.REVIEWER)
    MembershipFactory.create(project=project, user=admin, role=Role.ADMIN)
    MembershipFactory.create(user=outsider, role=Role.ADMIN)  # admin of another project
    AssignmentFactory.create(document=document, user=alice)
    alice_set = AnnotationSetFactory.create(document=document, annotator=alice)
    bob_set = AnnotationSetFactory.create(document=document, annotator=bob)
    machine = machine_set_create(
        document=document,
        source=SetSource.PREANNOTATION,
        source_name="spacy",
        source_version="1",
        spans=[EntitySpan(18, 30, "PERSON", "Galip Yalman")],
    )
    gold = gold_set_for_document(document=document, user=reviewer)
    return World(document, alice_set, bob_set, machine, gold, alice, bob, reviewer, admin, outsider)


def visible(user: object, document: Document) -> set[int]:
    return set(annotation_sets_for_user(user=user, document=document).values_list("pk", flat=True))


def test_anonymous_users_see_nothing(world):
    anonymous = AnonymousUser()
    assert project_role(user=anonymous, project=world.document.project) is None
    assert visible(anonymous, world.document) == set()


def test_annotator_sees_own_set_and_machine_suggestions_until_gold_is_published(world):
    assert visible(world.alice, world.document) == {world.alice_set.pk, world.machine.pk}
    assert not annotation_set_visible(user=world.alice, annotation_set=world.bob_set)
    assert not annotation_set_visible(user=world.alice, annotation_set=world.gold)

    gold_publish(document=world.document, user=world.reviewer)

    assert visible(world.alice, world.document) == {
        world.alice_set.pk,
        world.bob_set.pk,
        world.machine.pk,
        world.gold.pk,
    }


def test_reviewers_and_admins_see_every_set(world):
    everything = {world.alice_set.pk, world.bob_set.pk, world.machine.pk, world.gold.pk}
    assert visible(world.reviewer, world.document) == everything
    assert visible(world.admin, world.document) == everything


def test_members_of_other_projects_see_nothing(world):
    assert visible(world.outsider, world.document) == set()
    assert not documents_for_user(user=world.outsider).filter(pk=world.document.pk).exists()
    assert world.document.project not in projects_for_user(user=world.outsider)


def test_superuser_acts_as_admin(world):
    root = UserFactory.create(is_superuser=True)
    assert project_role(user=root, project=world.document.project) == Role.ADMIN
    assert world.document in documents_for_user(user=root)


def test_annotators_see_only_assigned_or_annotated_documents(world):
    project = world.document.project
    other_document = DocumentFactory.create(project=project)
    assert set(documents_for_user(user=world.alice, project=project)) == {world.document}
    # bob has a set on the document, though no assignment
    assert set(documents_for_user(user=world.bob, project=project)) == {world.document}
    assert set(documents_for_user(user=world.reviewer, project=project)) == {
        world.document,
        other_document,
    }


def test_who_may_edit_which_set(world):
    assert annotation_set_editable(user=world.alice, annotation_set=world.alice_set)
    assert not annotation_set_editable(user=world.alice, annotation_set=world.bob_set)
    assert not annotation_set_editable(user=world.reviewer, annotation_set=world.alice_set)
    assert annotation_set_editable(user=world.reviewer, annotation_set=world.gold)
    assert not annotation_set_editable(user=world.alice, annotation_set=world.gold)
    assert not annotation_set_editable(user=world.admin, annotation_set=world.machine)


def test_auto_mask_source_prefers_gold_then_checked_then_submitted_then_machine():
    document = DocumentFactory.create()
    newest_machine = None
    for version in ("1", "2"):
        newest_machine = machine_set_create(
            document=document,
            source=SetSource.PREANNOTATION,
            source_name="spacy",
            source_version=version,
            spans=[],
        )
    assert masking_set(document=document) == newest_machine

    AnnotationSetFactory.create(document=document, status=SetStatus.IN_PROGRESS)
    assert masking_set(document=document) == newest_machine

    submitted = AnnotationSetFactory.create(document=document, status=SetStatus.SUBMITTED)
    assert masking_set(document=document) == submitted

    checked = AnnotationSetFactory.create(
        document=document, status=SetStatus.SUBMITTED, quality_checked=True
    )
    assert masking_set(document=document) == checked

    gold = gold_set_for_document(document=document, user=None)
    assert masking_set(document=document) == gold
    assert masking_set(document=document, source="machine:spacy") == newest_machine
    assert masking_set(document=document, source=f"annotator:{submitted.annotator}") == submitted
    assert masking_set(document=document, source="annotator:nobody") is None
    with pytest.raises(ValueError, match="unknown mask source"):
        masking_set(document=document, source="best")


def test_masked_spans_leave_out_no_mask_decisions():
    annotation_set = AnnotationSetFactory.create(kind=SetKind.HUMAN)
    SpanFactory.create(annotation_set=annotation_set, identifier_type="DIRECT")
    SpanFactory.create(
        annotation_set=annotation_set,
        start=4,
        end=13,
        entity_type="MISC",
        identifier_type="NO_MASK",
    )
    SpanFactory.create(
        annotation_set=annotation_set,
        start=44,
        end=48,
        entity_type="DATETIME",
        identifier_type="QUASI",
    )
    assert masked_spans(annotation_set) == [(18, 30, "PERSON"), (44, 48, "DATETIME")]
    assert masked_spans(None) == []


def test_project_role_of_members(world):
    project = world.document.project
    assert project_role(user=world.alice, project=project) == Role.ANNOTATOR
    assert project_role(user=world.reviewer, project=project.pk) == Role.REVIEWER
    assert project_role(user=world.outsider, project=project) is None
    assert project_role(user=None, project=ProjectFactory.create()) is None


def test_mask_export_queries_do_not_grow_with_documents(django_assert_max_num_queries):
    from annotation.selectors import project_export_masks

    project = ProjectFactory.create()
    for i in range(30):
        document = DocumentFactory.create(project=project, external_id=f"q{i}")
        human = AnnotationSetFactory.create(document=document, status="submitted")
        SpanFactory.create(annotation_set=human)
    with django_assert_max_num_queries(5):
        masks = project_export_masks(project=project)
    assert len(masks) == 30 and all(len(spans) == 1 for spans in masks.values())


def test_tab_export_queries_do_not_grow_with_documents(django_assert_max_num_queries):
    from annotation.selectors import project_export_tab

    project = ProjectFactory.create()
    for i in range(30):
        document = DocumentFactory.create(project=project, external_id=f"t{i}")
        human = AnnotationSetFactory.create(document=document, status="submitted")
        SpanFactory.create(annotation_set=human)
    with django_assert_max_num_queries(5):
        records = list(project_export_tab(project=project))
    assert len(records) == 30
    assert all(len(next(iter(r["annotations"].values()))) == 1 for r in records)
