"""Erasing a user's data: their annotation sets (decisions and the sets' audit events),
queue, memberships, invitations, API tokens, sessions and login records; the account
itself is kept as an anonymous, disabled row.

Why the row stays: other people's data points at it (projects they created, gold sets
they reviewed, jobs they started, audit events of shared sets). Deleting it would
either cascade into that shared data or, for projects, collide with the rule that
keeps project names unique per creator. Emptied of name, e-mail, password and rights,
it says no more than "someone, since erased".
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone

from accounts.models import ApiToken
from annotation.models import (
    AnnotationSet,
    Assignment,
    Invitation,
    Membership,
    Project,
    Role,
    SetKind,
    Span,
    SpanEvent,
)
from common.errors import DomainError
from erasure.models import ERASED_USERNAME_PREFIX, ErasureKind, ErasureRecord
from erasure.services.base import models_affected, models_apply, reason_clean, record_create

ERASED_USERNAME = ERASED_USERNAME_PREFIX + "{pk}"


def _sessions_delete(user_id: int) -> int:
    # Sessions store the user id inside their encoded data: only live ones are read.
    ids = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if str(session.get_decoded().get("_auth_user_id")) == str(user_id)
    ]
    deleted, _ = Session.objects.filter(pk__in=ids).delete()
    return deleted


def _account_anonymise(user: Any) -> None:
    user.username = ERASED_USERNAME.format(pk=user.pk)
    user.first_name = user.last_name = user.email = ""
    user.set_unusable_password()
    user.is_active = user.is_staff = user.is_superuser = False
    user.full_clean()
    user.save()
    user.groups.clear()
    user.user_permissions.clear()


def _check_actor(*, user: Any, actor: Any) -> None:
    if actor is not None and actor.pk == user.pk:
        raise DomainError("you cannot erase your own data; ask another staff member")
    if (user.is_staff or user.is_superuser) and not getattr(actor, "is_superuser", False):
        raise DomainError("only a superuser may erase the data of a staff account")


@transaction.atomic
def user_data_erase(*, user: Any, actor: Any, reason: str) -> ErasureRecord:
    """Erase the user's data and anonymise the account; leave an audit record.

    Their human annotation sets go with their spans and audit events; machine runs and
    gold sets stay (they are the project's). A project model whose training read a
    document the user annotated (by the ids it recorded), or that recorded none and was
    registered after one of the user's sets was started, may have learnt from their
    decisions: it is marked as trained on erased data and deactivated, never deleted
    (it also learnt from the documents, which stay). A project left without an admin
    is named in the record (by id) so that staff can appoint one.
    """
    reason = reason_clean(reason)
    user = get_user_model().objects.select_for_update().get(pk=user.pk)
    _check_actor(user=user, actor=actor)
    sets = AnnotationSet.history.filter(annotator=user, kind=SetKind.HUMAN)
    first_set: dict[int, datetime] = {}
    annotated: dict[int, set[int]] = {}
    rows = sets.values_list("document__project_id", "document_id", "created_at")
    for project_id, document_id, created_at in rows:
        if project_id not in first_set or created_at < first_set[project_id]:
            first_set[project_id] = created_at
        annotated.setdefault(project_id, set()).add(document_id)
    marked = []
    for project in Project.objects.filter(pk__in=first_set).order_by("pk"):
        marked += models_affected(
            project=project, document_ids=annotated[project.pk], since=first_set[project.pk]
        )
    admin_of = set(
        Membership.objects.filter(user=user, role=Role.ADMIN).values_list("project_id", flat=True)
    )
    removed: dict[str, Any] = {
        "annotation_sets": sets.count(),
        "spans": Span.objects.filter(annotation_set__in=sets).count(),
        "span_events": SpanEvent.objects.filter(annotation_set__in=sets).count(),
        "assignments": Assignment.objects.filter(user=user).count(),
        "memberships": Membership.objects.filter(user=user).count(),
        "invitations": Invitation.objects.filter(user=user).count(),
        "api_tokens": ApiToken.objects.filter(user=user).count(),
    }
    sets.delete()
    Assignment.objects.filter(user=user).delete()
    Membership.objects.filter(user=user).delete()
    Invitation.objects.filter(user=user).delete()
    ApiToken.objects.filter(user=user).delete()
    username = user.get_username()
    login_records = 0
    for model in (AccessAttempt, AccessFailureLog, AccessLog):
        login_records += model.objects.filter(username=username).delete()[0]
    removed["login_records"] = login_records
    removed["sessions"] = _sessions_delete(user.pk)
    _account_anonymise(user)
    orphaned = sorted(
        pk
        for pk in admin_of
        if not Membership.objects.filter(project_id=pk, role=Role.ADMIN).exists()
    )
    removed["projects_left_without_admin"] = orphaned
    _, models_marked, _ = models_apply(delete=[], mark=list({m.pk: m for m in marked}.values()))
    record = record_create(
        kind=ErasureKind.USER,
        object_id=user.pk,
        project_id=None,
        actor=actor,
        reason=reason,
        removed=removed,
        models_deleted=[],
        models_marked=models_marked,
        jobs_cancelled=[],
        files=[],
    )
    return record
