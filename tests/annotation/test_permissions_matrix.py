"""The permission matrix of the REST API.

Every endpoint family is called by six callers: anonymous, an outsider (admin of
another project), the annotator who owns the target annotation set, another
annotator of the same project, a reviewer and the project admin. Objects in a
project the caller does not belong to answer 404; a role that may not act answers
403; anonymous callers are refused before any lookup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from rest_framework.test import APIClient

from annotation.models import (
    AnnotationSet,
    Document,
    Project,
    Role,
    SetKind,
    SetSource,
    SetStatus,
    Span,
)
from jobs.models import Job
from ml.models import ModelVersion
from tests.factories import (
    AnnotationSetFactory,
    AssignmentFactory,
    DocumentFactory,
    JobFactory,
    MembershipFactory,
    ModelVersionFactory,
    ProjectFactory,
    SpanFactory,
    UserFactory,
)

CALLERS = ("anonymous", "outsider", "annotator", "other", "reviewer", "admin")
ANONYMOUS_DENIED = (401, 403)


@dataclass
class World:
    users: dict[str, Any]
    project: Project
    other_project: Project
    document: Document  # assigned to both annotators
    unassigned: Document
    own_set: AnnotationSet  # the annotator's
    other_set: AnnotationSet  # the other annotator's
    machine_set: AnnotationSet
    gold_set: AnnotationSet
    own_span: Span
    other_span: Span
    machine_span: Span
    gold_span: Span
    job: Job
    model_version: ModelVersion
    shared_model_version: ModelVersion

    def client(self, caller: str) -> APIClient:
        client = APIClient()
        if caller != "anonymous":
            client.force_authenticate(self.users[caller])
        return client


def build_world() -> World:
    users = {
        name: UserFactory.create(username=f"{name}-user")
        for name in ("outsider", "annotator", "other", "reviewer", "admin")
    }
    project = ProjectFactory.create(name="matrix project")
    other_project = ProjectFactory.create(name="someone else's project")
    MembershipFactory.create(project=other_project, user=users["outsider"], role=Role.ADMIN)
    for name, role in (
        ("annotator", Role.ANNOTATOR),
        ("other", Role.ANNOTATOR),
        ("reviewer", Role.REVIEWER),
        ("admin", Role.ADMIN),
    ):
        MembershipFactory.create(project=project, user=users[name], role=role)
    document = DocumentFactory.create(project=project, external_id="assigned")
    unassigned = DocumentFactory.create(project=project, external_id="unassigned", position=1)
    for name in ("annotator", "other"):
        AssignmentFactory.create(document=document, user=users[name])
    own_set = AnnotationSetFactory.create(document=document, annotator=users["annotator"])
    other_set = AnnotationSetFactory.create(document=document, annotator=users["other"])
    machine_set = AnnotationSetFactory.create(
        document=document,
        kind=SetKind.MACHINE,
        source=SetSource.PREANNOTATION,
        source_name="rules",
        status=SetStatus.SUBMITTED,
    )
    gold_set = AnnotationSetFactory.create(
        document=document, kind=SetKind.GOLD, source=SetSource.ADJUDICATION
    )
    spans = {
        key: SpanFactory.create(annotation_set=annotation_set, entity_id="e-person")
        for key, annotation_set in (
            ("own", own_set),
            ("other", other_set),
            ("machine", machine_set),
            ("gold", gold_set),
        )
    }
    return World(
        users=users,
        project=project,
        other_project=other_project,
        document=document,
        unassigned=unassigned,
        own_set=own_set,
        other_set=other_set,
        machine_set=machine_set,
        gold_set=gold_set,
        own_span=spans["own"],
        other_span=spans["other"],
        machine_span=spans["machine"],
        gold_span=spans["gold"],
        job=JobFactory.create(project=project),
        model_version=ModelVersionFactory.create(project=project),
        shared_model_version=ModelVersionFactory.create(project=None),
    )


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    url: Callable[[World], str]
    expected: dict[str, int]
    data: Callable[[World], dict[str, Any]] | None = None
    content: str = "json"


def expect(outsider: int, annotator: int, other: int, reviewer: int, admin: int) -> dict[str, int]:
    return {
        "outsider": outsider,
        "annotator": annotator,
        "other": other,
        "reviewer": reviewer,
        "admin": admin,
    }


P = "/api/projects"


def _outsider_invitation(world: World) -> int:
    """The outsider's pending invitation to the project (the same one on every call)."""
    from annotation.services import invitation_create

    invitation = invitation_create(
        project=world.project, username="outsider-user", role=Role.REVIEWER
    )
    assert invitation is not None
    return invitation.pk


CASES = [
    # me and projects
    Case("me", "get", lambda w: "/api/me/", expect(200, 200, 200, 200, 200)),
    Case("project list", "get", lambda w: f"{P}/", expect(200, 200, 200, 200, 200)),
    Case(
        "project create",
        "post",
        lambda w: f"{P}/create/",
        expect(201, 201, 201, 201, 201),
        data=lambda w: {"name": "a fresh project"},
    ),
    Case(
        "project detail", "get", lambda w: f"{P}/{w.project.pk}/", expect(404, 200, 200, 200, 200)
    ),
    Case(
        "project update",
        "patch",
        lambda w: f"{P}/{w.project.pk}/update/",
        expect(404, 403, 403, 403, 200),
        data=lambda w: {"description": "changed"},
    ),
    # members
    Case(
        "member list",
        "get",
        lambda w: f"{P}/{w.project.pk}/members/",
        expect(404, 200, 200, 200, 200),
    ),
    Case(
        "member add",
        "post",
        lambda w: f"{P}/{w.project.pk}/members/add/",
        expect(404, 403, 403, 403, 202),
        data=lambda w: {"username": "outsider-user", "role": "reviewer"},
    ),
    # invitations: only the invitee (here the outsider) sees and answers theirs
    Case(
        "invitation create",
        "post",
        lambda w: f"{P}/{w.project.pk}/invitations/",
        expect(404, 403, 403, 403, 202),
        data=lambda w: {"username": "outsider-user", "role": "reviewer"},
    ),
    Case("invitation list", "get", lambda w: "/api/invitations/", expect(200, 200, 200, 200, 200)),
    Case(
        "invitation accept",
        "post",
        lambda w: f"/api/invitations/{_outsider_invitation(w)}/accept/",
        expect(200, 404, 404, 404, 404),
    ),
    Case(
        "invitation decline",
        "post",
        lambda w: f"/api/invitations/{_outsider_invitation(w)}/decline/",
        expect(200, 404, 404, 404, 404),
    ),
    Case(
        "member update",
        "patch",
        lambda w: f"{P}/{w.project.pk}/members/{w.users['other'].pk}/update/",
        expect(404, 403, 403, 403, 200),
        data=lambda w: {"role": "reviewer"},
    ),
    Case(
        "member delete",
        "delete",
        lambda w: f"{P}/{w.project.pk}/members/{w.users['other'].pk}/delete/",
        expect(404, 403, 403, 403, 204),
    ),
    # documents
    Case(
        "document list",
        "get",
        lambda w: f"{P}/{w.project.pk}/documents/",
        expect(404, 200, 200, 200, 200),
    ),
    Case(
        "document detail (assigned)",
        "get",
        lambda w: f"/api/documents/{w.document.pk}/",
        expect(404, 200, 200, 200, 200),
    ),
    Case(
        "document detail (unassigned)",
        "get",
        lambda w: f"/api/documents/{w.unassigned.pk}/",
        expect(404, 403, 403, 200, 200),
    ),
    Case(
        "document update",
        "patch",
        lambda w: f"/api/documents/{w.document.pk}/update/",
        expect(404, 403, 403, 403, 200),
        data=lambda w: {"split": "dev"},
    ),
    Case("my queue", "get", lambda w: "/api/me/queue/", expect(200, 200, 200, 200, 200)),
    Case(
        "my queue of a project",
        "get",
        lambda w: f"/api/me/queue/?project={w.project.pk}",
        expect(404, 200, 200, 200, 200),
    ),
    Case(
        "assignments create",
        "post",
        lambda w: f"{P}/{w.project.pk}/assignments/create/",
        expect(404, 403, 403, 403, 201),
        data=lambda w: {
            "document_ids": [w.unassigned.pk],
            "annotator_ids": [w.users["annotator"].pk],
        },
    ),
    Case(
        "export",
        "get",
        lambda w: f"{P}/{w.project.pk}/export/?format=masks",
        expect(404, 403, 403, 200, 200),
    ),
    # annotation sets
    Case(
        "set list",
        "get",
        lambda w: f"/api/documents/{w.document.pk}/annotation-sets/",
        expect(404, 200, 200, 200, 200),
    ),
    Case(
        "set list of an unassigned document",
        "get",
        lambda w: f"/api/documents/{w.unassigned.pk}/annotation-sets/",
        expect(404, 403, 403, 200, 200),
    ),
    # Reviewers and admins get a set of their own only on documents assigned to them.
    Case(
        "my set",
        "post",
        lambda w: f"/api/documents/{w.document.pk}/annotation-sets/mine/",
        expect(404, 200, 200, 403, 403),
    ),
    Case(
        "my set on an unassigned document",
        "post",
        lambda w: f"/api/documents/{w.unassigned.pk}/annotation-sets/mine/",
        expect(404, 403, 403, 403, 403),
    ),
    Case(
        "set detail (annotator's own)",
        "get",
        lambda w: f"/api/annotation-sets/{w.own_set.pk}/",
        expect(404, 200, 403, 200, 200),
    ),
    Case(
        "set detail (machine)",
        "get",
        lambda w: f"/api/annotation-sets/{w.machine_set.pk}/",
        expect(404, 200, 200, 200, 200),
    ),
    Case(
        "set detail (unpublished gold)",
        "get",
        lambda w: f"/api/annotation-sets/{w.gold_set.pk}/",
        expect(404, 403, 403, 200, 200),
    ),
    Case(
        "set submit",
        "post",
        lambda w: f"/api/annotation-sets/{w.own_set.pk}/submit/",
        expect(404, 200, 403, 403, 403),
    ),
    Case(
        "gold get-or-create",
        "post",
        lambda w: f"/api/documents/{w.document.pk}/gold/",
        expect(404, 403, 403, 200, 200),
    ),
    Case(
        "gold publish",
        "post",
        lambda w: f"/api/documents/{w.document.pk}/gold/publish/",
        expect(404, 403, 403, 200, 200),
        data=lambda w: {"force": True},  # sets are in progress: the warning is confirmed
    ),
    Case(
        "suggestion rejections in own set",
        "post",
        lambda w: f"/api/annotation-sets/{w.own_set.pk}/rejections/",
        expect(404, 200, 403, 403, 403),
        data=lambda w: {"span_ids": [w.machine_span.pk]},
    ),
    Case(
        "document workspace",
        "get",
        lambda w: f"/api/documents/{w.document.pk}/workspace/",
        expect(404, 200, 200, 200, 200),
    ),
    Case(
        "document workspace (unassigned)",
        "get",
        lambda w: f"/api/documents/{w.unassigned.pk}/workspace/",
        expect(404, 403, 403, 200, 200),
    ),
    Case(
        "document release",
        "post",
        lambda w: f"/api/documents/{w.document.pk}/release/",
        expect(404, 200, 200, 200, 200),
        data=lambda w: {
            "spans": [
                {"start": 18, "end": 30, "entity_type": "PERSON", "identifier_type": "DIRECT"}
            ]
        },
    ),
    # review
    Case(
        "gold adopt",
        "post",
        lambda w: f"/api/documents/{w.document.pk}/gold/adopt/",
        expect(404, 403, 403, 200, 200),
        data=lambda w: {"span_ids": [w.other_span.pk]},
    ),
    Case(
        "gold adopt a whole set",
        "post",
        lambda w: f"/api/documents/{w.document.pk}/gold/adopt-set/",
        expect(404, 403, 403, 200, 200),
        data=lambda w: {"annotation_set_id": w.other_set.pk},
    ),
    Case(
        "gold undecided regions",
        "get",
        lambda w: f"/api/documents/{w.document.pk}/gold/regions/",
        expect(404, 403, 403, 200, 200),
    ),
    Case(
        "gold complete",
        "post",
        lambda w: f"/api/documents/{w.document.pk}/gold/complete/",
        expect(404, 403, 403, 400, 400),  # reviewers get through to "not submitted yet"
    ),
    Case(
        "document agreement",
        "get",
        lambda w: f"/api/documents/{w.document.pk}/agreement/",
        expect(404, 403, 403, 200, 200),
    ),
    Case(
        "project agreement",
        "get",
        lambda w: f"{P}/{w.project.pk}/agreement/",
        expect(404, 403, 403, 200, 200),
    ),
    Case(
        "set audit trail",
        "get",
        lambda w: f"/api/annotation-sets/{w.own_set.pk}/events/",
        expect(404, 200, 403, 200, 200),
    ),
    # spans
    Case(
        "span detail",
        "get",
        lambda w: f"/api/spans/{w.own_span.pk}/",
        expect(404, 200, 403, 200, 200),
    ),
    Case(
        "span create in own set",
        "post",
        lambda w: f"/api/annotation-sets/{w.own_set.pk}/spans/create/",
        expect(404, 201, 403, 403, 403),
        data=lambda w: {"start": 62, "end": 68, "entity_type": "LOC"},
    ),
    Case(
        "span create in gold set",
        "post",
        lambda w: f"/api/annotation-sets/{w.gold_set.pk}/spans/create/",
        expect(404, 403, 403, 201, 201),
        data=lambda w: {"start": 62, "end": 68, "entity_type": "LOC"},
    ),
    Case(
        "span create in machine set",
        "post",
        lambda w: f"/api/annotation-sets/{w.machine_set.pk}/spans/create/",
        expect(404, 403, 403, 403, 403),
        data=lambda w: {"start": 62, "end": 68, "entity_type": "LOC"},
    ),
    Case(
        "span update (own set)",
        "patch",
        lambda w: f"/api/spans/{w.own_span.pk}/update/",
        expect(404, 200, 403, 403, 403),
        data=lambda w: {"version": 1, "identifier_type": "QUASI"},
    ),
    Case(
        "span update (gold set)",
        "patch",
        lambda w: f"/api/spans/{w.gold_span.pk}/update/",
        expect(404, 403, 403, 200, 200),
        data=lambda w: {"version": 1, "identifier_type": "QUASI"},
    ),
    Case(
        "span delete",
        "delete",
        lambda w: f"/api/spans/{w.own_span.pk}/delete/?version=1",
        expect(404, 204, 403, 403, 403),
    ),
    Case(
        "entity decision",
        "post",
        lambda w: f"/api/annotation-sets/{w.own_set.pk}/entity-decision/",
        expect(404, 200, 403, 403, 403),
        data=lambda w: {"entity_id": "e-person", "identifier_type": "NO_MASK"},
    ),
    Case(
        "span audit trail",
        "get",
        lambda w: f"/api/spans/{w.own_span.pk}/events/",
        expect(404, 200, 403, 200, 200),
    ),
    # jobs
    Case("job list", "get", lambda w: "/api/jobs/", expect(200, 200, 200, 200, 200)),
    Case(
        "job list of a project",
        "get",
        lambda w: f"/api/jobs/?project={w.project.pk}",
        expect(404, 403, 403, 403, 200),
    ),
    Case("job detail", "get", lambda w: f"/api/jobs/{w.job.pk}/", expect(404, 403, 403, 403, 200)),
    Case(
        "job create",
        "post",
        lambda w: f"{P}/{w.project.pk}/jobs/create/",
        expect(404, 403, 403, 403, 201),
        data=lambda w: {"kind": "preannotate", "params": {}},
    ),
    Case(
        "job cancel",
        "post",
        lambda w: f"/api/jobs/{w.job.pk}/cancel/",
        expect(404, 403, 403, 403, 200),
    ),
    Case(
        "job retry",
        "post",
        lambda w: f"/api/jobs/{w.job.pk}/retry/",
        expect(404, 403, 403, 403, 400),  # the admin gets through: the job is still queued
    ),
    Case(
        "import",
        "post",
        lambda w: f"{P}/{w.project.pk}/import/",
        expect(404, 403, 403, 403, 400),  # the admin gets through to input validation
        data=lambda w: {"format": "tab"},
        content="multipart",
    ),
    # model versions
    Case(
        "model version list",
        "get",
        lambda w: "/api/model-versions/",
        expect(200, 200, 200, 200, 200),
    ),
    Case(
        "model version detail",
        "get",
        lambda w: f"/api/model-versions/{w.model_version.pk}/",
        expect(404, 200, 200, 200, 200),
    ),
    Case(
        "shared model version detail",
        "get",
        lambda w: f"/api/model-versions/{w.shared_model_version.pk}/",
        expect(200, 200, 200, 200, 200),
    ),
    Case(
        "model version activate",
        "post",
        lambda w: f"/api/model-versions/{w.model_version.pk}/activate/",
        expect(404, 403, 403, 403, 200),
        data=lambda w: {"confirm": True},  # not evaluated: nothing to compare it with
    ),
    Case(
        "shared model version activate",
        "post",
        lambda w: f"/api/model-versions/{w.shared_model_version.pk}/activate/",
        expect(403, 403, 403, 403, 403),
        data=lambda w: {"confirm": True},
    ),
    Case(
        "model version comparison",
        "get",
        lambda w: f"/api/model-versions/{w.model_version.pk}/comparison/",
        expect(404, 200, 200, 200, 200),
    ),
    Case(
        "model version deactivate",
        "post",
        lambda w: f"/api/model-versions/{w.model_version.pk}/deactivate/",
        expect(404, 403, 403, 403, 200),
    ),
    # risk: members get through to the stored assessment (there is none here: 409)
    Case(
        "risk solve",
        "post",
        lambda w: f"/api/documents/{w.document.pk}/risk/solve/",
        expect(404, 409, 409, 409, 409),
        data=lambda w: {"threshold": 6.0},
    ),
    Case(
        "risk curve",
        "get",
        lambda w: f"{P}/{w.project.pk}/risk/curve/?thresholds=4,6",
        expect(404, 403, 403, 200, 200),
    ),
]


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_permission_matrix(world: World, case: Case, caller: str) -> None:
    client = world.client(caller)
    data = case.data(world) if case.data else None
    response = getattr(client, case.method)(case.url(world), data, format=case.content)
    if caller == "anonymous":
        assert response.status_code in ANONYMOUS_DENIED, response.content
        assert set(response.json()) == {"detail"}
    else:
        assert response.status_code == case.expected[caller], response.content


def test_every_route_is_in_the_matrix(world: World) -> None:
    """A new endpoint without a row above would have no permission test."""
    from urllib.parse import urlsplit

    from django.urls import resolve

    from annotation import urls as annotation_urls

    routes = {p.name for p in annotation_urls.urlpatterns}
    covered = {resolve(urlsplit(case.url(world)).path).url_name for case in CASES}
    # (The token login, which needs no membership, moved to accounts.urls.)
    assert routes - covered == set()
