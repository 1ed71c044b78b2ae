"""factory_boy factories for the domain models."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from annotation.models import (
    AnnotationSet,
    Assignment,
    Document,
    Membership,
    Project,
    Role,
    SetKind,
    SetSource,
    Span,
)
from jobs.models import Job
from ml.models import ModelKind, ModelVersion

SAMPLE_TEXT = (
    "The applicant, Mr Galip Yalman, was born in 1945 and lives in Ankara. "
    "He lodged application no. 36110/97 with the Court on 12 March 1997."
)


class UserFactory(factory.django.DjangoModelFactory[User]):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.django.Password("pass-word-123")


class ProjectFactory(factory.django.DjangoModelFactory[Project]):
    class Meta:
        model = Project

    name = factory.Sequence(lambda n: f"project {n}")


class MembershipFactory(factory.django.DjangoModelFactory[Membership]):
    class Meta:
        model = Membership

    project = factory.SubFactory(ProjectFactory)
    user = factory.SubFactory(UserFactory)
    role = Role.ANNOTATOR


class DocumentFactory(factory.django.DjangoModelFactory[Document]):
    class Meta:
        model = Document

    project = factory.SubFactory(ProjectFactory)
    external_id = factory.Sequence(lambda n: f"doc-{n}")
    text = SAMPLE_TEXT
    target_person = "Galip Yalman"


class AssignmentFactory(factory.django.DjangoModelFactory[Assignment]):
    class Meta:
        model = Assignment

    document = factory.SubFactory(DocumentFactory)
    user = factory.SubFactory(UserFactory)


class AnnotationSetFactory(factory.django.DjangoModelFactory[AnnotationSet]):
    class Meta:
        model = AnnotationSet

    document = factory.SubFactory(DocumentFactory)
    kind = SetKind.HUMAN
    source = SetSource.MANUAL
    annotator = factory.Maybe(
        factory.LazyAttribute(lambda o: o.kind == SetKind.HUMAN),
        yes_declaration=factory.SubFactory(UserFactory),
        no_declaration=None,
    )


class SpanFactory(factory.django.DjangoModelFactory[Span]):
    """A span over ``Galip Yalman`` in :data:`SAMPLE_TEXT` unless offsets are given."""

    class Meta:
        model = Span

    annotation_set = factory.SubFactory(AnnotationSetFactory)
    start = 18
    end = 30
    text = factory.LazyAttribute(lambda o: o.annotation_set.document.text[o.start : o.end])
    entity_type = "PERSON"
    identifier_type = "DIRECT"


class JobFactory(factory.django.DjangoModelFactory[Job]):
    class Meta:
        model = Job

    kind = "import"
    project = factory.SubFactory(ProjectFactory)
    params = factory.LazyFunction(dict)


class ModelVersionFactory(factory.django.DjangoModelFactory[ModelVersion]):
    class Meta:
        model = ModelVersion

    kind = ModelKind.RECOGNIZER
    name = "recognizer"
    version = factory.Sequence(lambda n: f"v{n}")
