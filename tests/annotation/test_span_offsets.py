"""One span per offsets and set (constraint, services, imports, machine runs, migration
0004) and the no-store caching header of API answers and pages."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from annotation.models import AnnotationSet, SetSource, Span, SpanAction, SpanEvent
from annotation.services import machine_set_create
from annotation.services.spans import DUPLICATE_MENTIONS_KEY
from sanitizer.types import EntitySpan
from tests.annotation.concurrency import in_another_connection
from tests.annotation.test_permissions_matrix import World, build_world
from tests.factories import AnnotationSetFactory, DocumentFactory, SpanFactory

pytestmark = pytest.mark.django_db

merge_migration = importlib.import_module("annotation.migrations.0004_span_unique_offsets")


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


# --- caching ----------------------------------------------------------------------------


def test_api_answers_and_pages_are_never_stored(world: World, client: Any) -> None:
    annotator = world.client("annotator")
    for response in (
        annotator.get(f"/api/documents/{world.document.pk}/annotation-sets/"),
        annotator.get(f"/api/annotation-sets/{world.other_set.pk}/"),  # 403
        annotator.post(f"/api/annotation-sets/{world.own_set.pk}/spans/create/", {}, format="json"),
    ):
        assert response["Cache-Control"] == "no-store", response.status_code
    assert client.get("/api/projects/")["Cache-Control"] == "no-store"  # not logged in
    client.force_login(world.users["annotator"])
    page = client.get(f"/documents/{world.document.pk}/annotate/")
    assert page.status_code == 200
    assert page["Cache-Control"] == "no-store"


# --- the API and the services -------------------------------------------------------------


def test_creating_a_span_on_taken_offsets_is_a_conflict_carrying_the_span_there(
    world: World,
) -> None:
    client = world.client("annotator")
    url = f"/api/annotation-sets/{world.own_set.pk}/spans/create/"
    own = world.own_span
    response = client.post(
        url, {"start": own.start, "end": own.end, "entity_type": "ORG"}, format="json"
    )
    assert response.status_code == 409, response.content
    body = response.json()
    assert "already exists" in body["detail"]
    assert body["current"]["id"] == own.pk
    assert body["current"]["version"] == own.version
    assert Span.objects.filter(annotation_set=world.own_set).count() == 1
    assert Span.objects.get(pk=own.pk).entity_type == own.entity_type


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_creates_on_the_same_offsets_give_a_conflict_not_a_500(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The other request passes its check too and commits its span just before this one
    # inserts: the unique constraint decides, and the loser gets the winner's state.
    own_set = world.own_set
    validate = Span.full_clean

    def then_the_other_request_commits(span: Span, *args: Any, **kwargs: Any) -> None:
        validate(span, *args, **kwargs)
        in_another_connection(
            lambda: SpanFactory.create(
                annotation_set=own_set,
                start=62,
                end=68,
                entity_type="LOC",
                identifier_type="DIRECT",
            )
        )

    monkeypatch.setattr(Span, "full_clean", then_the_other_request_commits)
    response = world.client("annotator").post(
        f"/api/annotation-sets/{own_set.pk}/spans/create/",
        {"start": 62, "end": 68, "entity_type": "LOC", "identifier_type": "QUASI"},
        format="json",
    )
    assert response.status_code == 409, response.content
    current = response.json()["current"]
    assert (current["start"], current["end"], current["identifier_type"]) == (62, 68, "DIRECT")
    assert Span.objects.filter(annotation_set=own_set, start=62, end=68).count() == 1


def test_moving_a_span_onto_another_spans_offsets_is_refused(world: World) -> None:
    client = world.client("annotator")
    created = client.post(
        f"/api/annotation-sets/{world.own_set.pk}/spans/create/",
        {"start": 62, "end": 68, "entity_type": "LOC"},
        format="json",
    ).json()
    own = world.own_span
    moved = client.patch(
        f"/api/spans/{created['id']}/update/",
        {"version": created["version"], "start": own.start, "end": own.end},
        format="json",
    )
    assert moved.status_code == 400
    assert "offsets" in moved.json()["detail"]
    assert (Span.objects.get(pk=created["id"]).start, Span.objects.count() > 0) == (62, True)


def test_the_database_refuses_two_spans_on_the_same_offsets(world: World) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        SpanFactory.create(annotation_set=world.own_set, entity_type="ORG")


def test_a_machine_run_proposing_one_stretch_twice_stores_the_stronger_decision() -> None:
    document = DocumentFactory.create()
    machine = machine_set_create(
        document=document,
        source=SetSource.PREANNOTATION,
        source_name="rules",
        source_version="1",
        spans=[
            EntitySpan(18, 30, "PERSON", "Galip Yalman", identifier_type="DIRECT"),
            EntitySpan(62, 68, "LOC", "Ankara", identifier_type="QUASI"),
            EntitySpan(18, 30, "PERSON", "Galip Yalman", identifier_type="QUASI"),
        ],
    )
    spans = list(machine.spans.order_by("start"))
    assert [(s.start, s.end, s.identifier_type) for s in spans] == [
        (18, 30, "DIRECT"),
        (62, 68, "QUASI"),
    ]


# --- imports -----------------------------------------------------------------------------


def _tab_with_duplicates(tab_sample_path: Path, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """The sample's first document with two of annotator1's mentions repeated (as TAB's
    dev set does): the first repeated with a weaker decision, the second with a stronger."""
    doc = json.loads(tab_sample_path.read_text(encoding="utf-8"))[0]
    mentions = doc["annotations"]["annotator1"]["entity_mentions"]
    weaker = next(m for m in mentions if m["identifier_type"] == "DIRECT")
    stronger = next(m for m in mentions if m["identifier_type"] in ("QUASI", "NO_MASK"))
    mentions.append({**weaker, "entity_mention_id": "dup-weak", "identifier_type": "NO_MASK"})
    mentions.append({**stronger, "entity_mention_id": "dup-strong", "identifier_type": "DIRECT"})
    path = tmp_path / "dups.json"
    path.write_text(json.dumps([doc], ensure_ascii=False), encoding="utf-8")
    return path, {"weaker": weaker, "stronger": stronger, "count": len(mentions) - 2}


def _export(path: Path, project: str) -> list[dict[str, Any]]:
    call_command("export_documents", "--project", project, "--format", "tab", "--output", str(path))
    return json.loads(path.read_text(encoding="utf-8"))


def test_tab_duplicates_merge_into_the_stronger_decision_and_export_names_both(
    tab_sample_path: Path, tmp_path: Path
) -> None:
    path, case = _tab_with_duplicates(tab_sample_path, tmp_path)
    call_command("import_documents", str(path), "--project", "P", "--format", "tab")
    own = AnnotationSet.objects.get(
        annotator__username__startswith="annotator1@import.", document__project__name="P"
    )
    assert own.spans.count() == case["count"]
    weaker = own.spans.get(start=case["weaker"]["start_offset"], end=case["weaker"]["end_offset"])
    assert weaker.identifier_type == "DIRECT"  # never lowered
    assert weaker.mention_id == case["weaker"]["entity_mention_id"]
    assert weaker.attrs[DUPLICATE_MENTIONS_KEY] == ["dup-weak"]
    stronger = own.spans.get(
        start=case["stronger"]["start_offset"], end=case["stronger"]["end_offset"]
    )
    assert stronger.identifier_type == "DIRECT"  # the repeat raised it
    assert stronger.mention_id == "dup-strong"
    assert stronger.attrs[DUPLICATE_MENTIONS_KEY] == [case["stronger"]["entity_mention_id"]]

    first = _export(tmp_path / "first.json", "P")
    exported = first[0]["annotations"]["annotator1"]["entity_mentions"]
    assert len(exported) == case["count"]
    call_command(
        "import_documents", str(tmp_path / "first.json"), "--project", "Q", "--format", "tab"
    )
    assert _export(tmp_path / "second.json", "Q") == first


# --- migration 0004 ------------------------------------------------------------------------


def test_migration_merges_duplicates_keeping_the_strongest_then_the_latest() -> None:
    own = AnnotationSetFactory.create()
    other = AnnotationSetFactory.create(document=own.document)
    constraint = next(c for c in Span._meta.constraints if c.name == "span_unique_offsets")
    with connection.schema_editor() as editor:
        editor.remove_constraint(Span, constraint)
    direct = SpanFactory.create(annotation_set=own, identifier_type="DIRECT")
    SpanFactory.create(annotation_set=own, identifier_type="NO_MASK")  # later, weaker
    quasi_old = SpanFactory.create(annotation_set=own, start=62, end=68, identifier_type="QUASI")
    quasi_new = SpanFactory.create(annotation_set=own, start=62, end=68, identifier_type="QUASI")
    SpanFactory.create(annotation_set=own, start=62, end=68, identifier_type="NO_MASK")
    alone = SpanFactory.create(annotation_set=other, identifier_type="NO_MASK")
    assert quasi_new.updated_at >= quasi_old.updated_at

    deleted = merge_migration.merge_duplicate_spans(Span, SpanEvent)

    assert deleted == 3
    assert set(Span.objects.values_list("pk", flat=True)) == {direct.pk, quasi_new.pk, alone.pk}
    events = SpanEvent.objects.filter(action=SpanAction.DELETE)
    assert sorted((e.before or {})["identifier_type"] for e in events) == [
        "NO_MASK",
        "NO_MASK",
        "QUASI",
    ]
    assert {e.annotation_set_id for e in events} == {own.pk}
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # PostgreSQL: no ALTER with pending checks
    with connection.schema_editor() as editor:
        editor.add_constraint(Span, constraint)  # the merged table satisfies it


@pytest.mark.django_db(transaction=True)
def test_migrating_a_database_that_holds_duplicates_succeeds() -> None:
    from django.db.migrations.executor import MigrationExecutor

    before = [("annotation", "0003_modelversion_moved_to_ml")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate(before)
    old_apps = executor.loader.project_state(before).apps
    project = old_apps.get_model("annotation", "Project").objects.create(name="old")
    document = old_apps.get_model("annotation", "Document").objects.create(
        project=project, external_id="old", text="The applicant, Mr Galip Yalman, was born."
    )
    old_set = old_apps.get_model("annotation", "AnnotationSet").objects.create(
        document=document, kind="machine"
    )
    for decision in ("QUASI", "DIRECT", "NO_MASK"):
        old_apps.get_model("annotation", "Span").objects.create(
            annotation_set_id=old_set.pk,
            start=18,
            end=30,
            text="Galip Yalman",
            entity_type="PERSON",
            identifier_type=decision,
        )

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(latest)

    assert list(Span.objects.values_list("identifier_type", flat=True)) == ["DIRECT"]
