"""The Django admin shows every annotation set, superseded machine runs included."""

from __future__ import annotations

from typing import Any

import pytest

from annotation.models import AnnotationSet, SetSource
from annotation.services import machine_set_create
from tests.factories import DocumentFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_superseded_machine_runs_are_listed_and_viewable_but_not_editable(client: Any) -> None:
    document = DocumentFactory.create()
    runs = [
        machine_set_create(
            document=document,
            source=SetSource.PREANNOTATION,
            source_name="rules",
            source_version=version,
            spans=[],
        )
        for version in ("old", "new")
    ]
    old = AnnotationSet.history.get(pk=runs[0].pk)
    assert old.superseded_at is not None
    client.force_login(UserFactory.create(is_staff=True, is_superuser=True))

    listing = client.get("/admin/annotation/annotationset/")
    assert listing.status_code == 200
    shown = {row.pk for row in listing.context["cl"].result_list}
    assert {run.pk for run in runs} <= shown

    page = client.get(f"/admin/annotation/annotationset/{old.pk}/change/")
    assert page.status_code == 200
    assert page.context["has_change_permission"] is False
