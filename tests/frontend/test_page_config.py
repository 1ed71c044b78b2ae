"""The pages' configuration: the editor's vocabulary and keys, and the admin page's
registry choices, come from the server (no page keeps its own list)."""

from __future__ import annotations

import catalogue
import pytest

from annotation.models import IdentifierType, Role, SemanticType
from sanitizer.kanon.algorithm import selection_functions
from sanitizer.recognizer import strategy_registry
from tests.factories import AssignmentFactory, DocumentFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def _member(document, username, role):
    user = UserFactory.create(username=username)
    MembershipFactory.create(project=document.project, user=user, role=role)
    return user


def test_editor_vocabulary_and_keys_come_from_the_models(client):
    document = DocumentFactory.create()
    alice = _member(document, "alice", Role.ANNOTATOR)
    AssignmentFactory.create(document=document, user=alice)
    client.force_login(alice)
    response = client.get(f"/documents/{document.pk}/annotate/")
    config = response.context["config"]
    assert [t["name"] for t in config["entity_types"]] == SemanticType.values
    assert {t["name"]: t["key"] for t in config["entity_types"]} == {
        "PERSON": "p",
        "CODE": "c",
        "LOC": "l",
        "ORG": "o",
        "DEM": "e",
        "DATETIME": "t",
        "QUANTITY": "u",
        "MISC": "i",
    }
    assert config["identifier_types"] == [
        {"name": "DIRECT", "keys": ["1", "d"], "entity_key": "D"},
        {"name": "QUASI", "keys": ["2", "q"], "entity_key": "Q"},
        {"name": "NO_MASK", "keys": ["3", "x"], "entity_key": "X"},
    ]
    assert [t["name"] for t in config["identifier_types"]] == IdentifierType.values
    assert config["defaults"] == {
        "entity_type": "PERSON",
        "identifier_type": "QUASI",
        "confidential_status": "NOT_CONFIDENTIAL",
    }
    # The key list on the page is drawn from the same table.
    page = response.content.decode()
    assert "<dt>1 2 3 or d q x</dt><dd>DIRECT / QUASI / NO_MASK</dd>" in page
    assert "<dt>Shift+D / Q / X</dt>" in page
    assert "<dt>p c l o e t u i</dt><dd>PERSON CODE LOC ORG DEM DATETIME QUANTITY MISC</dd>" in page


def test_review_page_gets_the_same_vocabulary(client):
    document = DocumentFactory.create()
    client.force_login(_member(document, "rita", Role.REVIEWER))
    config = client.get(f"/documents/{document.pk}/review/").context["config"]
    assert [t["name"] for t in config["identifier_types"]] == IdentifierType.values


def test_admin_page_lists_the_registries_including_new_entries(client, monkeypatch):
    document = DocumentFactory.create()
    client.force_login(_member(document, "adele", Role.ADMIN))
    url = f"/projects/{document.project_id}/admin/"
    config = client.get(url).context["config"]
    assert config["masking_strategies"] == strategy_registry.names()
    assert config["selection_functions"] == selection_functions.names()
    assert {"mask-all", "most-specific"} <= set(config["masking_strategies"])
    assert {"greedy", "random"} <= set(config["selection_functions"])

    # A strategy registered later shows up without editing the page (the registry is
    # read per request); monkeypatch takes the entry out of catalogue afterwards.
    def names_only(spans):
        return list(spans)

    namespace = strategy_registry._registry.namespace
    monkeypatch.setitem(catalogue.REGISTRY, (*namespace, "names-only-ui"), names_only)
    assert "names-only-ui" in client.get(url).context["config"]["masking_strategies"]
