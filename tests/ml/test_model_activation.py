"""Activating a model with its evaluation next to the active one's, and going back to
the built-in recognizer."""

from __future__ import annotations

from typing import Any

import pytest

from common.errors import DomainError
from ml.models import ModelVersion
from ml.selectors import BUILTIN_METRICS_KEY, active_model_version, model_activation_comparison
from ml.services.model_versions import (
    model_version_activate,
    model_version_create,
    model_version_deactivate,
)
from tests.annotation.test_permissions_matrix import World, build_world
from tests.factories import ModelVersionFactory, ProjectFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(db: Any) -> World:
    return build_world()


def test_comparison_with_the_active_model_says_which_is_worse():
    project = ProjectFactory.create()
    good = ModelVersionFactory.create(
        project=project, version="good", metrics={"token_f1": 0.8, "dev_loss": 0.1}
    )
    model_version_activate(model_version=good, confirm=True)
    bad = ModelVersionFactory.create(project=project, version="bad", metrics={"token_f1": 0.013})

    comparison = model_activation_comparison(model_version=bad)

    assert comparison["worse"] is True and comparison["metric"] == "token_f1"
    assert comparison["active"]["label"] == "recognizer@good"
    assert comparison["candidate"]["metrics"] == {"token_f1": 0.013}  # dev_loss is not compared
    assert comparison["message"] == (
        "recognizer@bad (token_f1 0.013) is worse than the active recognizer@good (token_f1 0.800)."
    )
    better = ModelVersionFactory.create(
        project=project, version="better", metrics={"token_f1": 0.9}
    )
    assert model_activation_comparison(model_version=better)["worse"] is False


def test_a_worse_model_is_activated_only_when_confirmed():
    project = ProjectFactory.create()
    good = ModelVersionFactory.create(project=project, version="good", metrics={"token_f1": 0.8})
    model_version_activate(model_version=good, confirm=True)
    bad = ModelVersionFactory.create(project=project, version="bad", metrics={"token_f1": 0.013})

    with pytest.raises(DomainError, match=r"token_f1 0\.013.*token_f1 0\.800"):
        model_version_activate(model_version=bad)
    assert active_model_version(project=project, kind=bad.kind) == good

    model_version_activate(model_version=bad, confirm=True)
    assert active_model_version(project=project, kind=bad.kind) == bad


def test_the_builtin_recognizer_is_compared_with_the_figures_training_measured():
    project = ProjectFactory.create()
    unevaluated = ModelVersionFactory.create(project=project, metrics={"token_f1": 0.5})
    comparison = model_activation_comparison(model_version=unevaluated)
    assert comparison["active"] == {"id": None, "label": "built-in recognizer", "builtin": True,
                                    "metrics": {}}  # fmt: skip
    assert comparison["worse"] is False
    assert "built-in recognizer (not evaluated)" in comparison["message"]

    model = ModelVersionFactory.create(
        project=project,
        metrics={"token_f1": 0.3, "entity_exact_f1": 0.2},
        training_summary={BUILTIN_METRICS_KEY: {"entity_exact_f1": 0.6}},
    )
    comparison = model_activation_comparison(model_version=model)
    assert (comparison["metric"], comparison["worse"]) == ("entity_exact_f1", True)


def test_training_asked_to_activate_a_worse_model_leaves_it_inactive():
    project = ProjectFactory.create()
    good = ModelVersionFactory.create(project=project, version="good", metrics={"token_f1": 0.8})
    model_version_activate(model_version=good, confirm=True)
    bad = model_version_create(
        kind=good.kind, name="ner", version="bad", artefact_path="/m/bad", project=project,
        metrics={"token_f1": 0.013}, activate=True,
    )  # fmt: skip
    assert not bad.is_active
    assert bad.training_summary["activation"].startswith("not activated: ")
    assert active_model_version(project=project, kind=good.kind) == good


def test_a_model_with_nothing_to_compare_against_needs_confirm():
    # Neither the candidate nor the built-in recognizer was measured on a shared figure:
    # nobody knows it is not worse, so it is treated like a worse one.
    project = ProjectFactory.create()
    unevaluated = ModelVersionFactory.create(project=project, metrics={"dev_loss": 0.2})
    comparison = model_activation_comparison(model_version=unevaluated)
    assert (comparison["metric"], comparison["worse"]) == (None, False)
    assert comparison["needs_confirm"] is True
    with pytest.raises(DomainError, match=r"share no evaluation figure.*Confirm"):
        model_version_activate(model_version=unevaluated)
    assert active_model_version(project=project, kind=unevaluated.kind) is None
    model_version_activate(model_version=unevaluated, confirm=True)
    assert active_model_version(project=project, kind=unevaluated.kind) == unevaluated
    assert model_activation_comparison(model_version=unevaluated)["needs_confirm"] is False


def test_training_asked_to_activate_a_model_with_nothing_to_compare_leaves_it_inactive():
    project = ProjectFactory.create()
    trained = model_version_create(
        kind="recognizer", name="ner", version="1", artefact_path="/m/1", project=project,
        metrics={"dev_loss": 0.3}, activate=True,
    )  # fmt: skip
    assert not trained.is_active
    assert trained.training_summary["activation"].startswith("not activated: ")
    assert "share no evaluation figure" in trained.training_summary["activation"]
    assert active_model_version(project=project, kind=trained.kind) is None


def test_deactivating_goes_back_to_the_builtin_recognizer():
    project = ProjectFactory.create()
    model = ModelVersionFactory.create(project=project, metrics={"token_f1": 0.8})
    model_version_activate(model_version=model, confirm=True)
    model_version_deactivate(model_version=model)
    assert active_model_version(project=project, kind=model.kind) is None
    assert not ModelVersion.objects.get(pk=model.pk).is_active


def test_api_refuses_a_worse_model_without_confirm_and_deactivates(world: World) -> None:
    good = ModelVersionFactory.create(project=world.project, metrics={"token_f1": 0.8})
    bad = ModelVersionFactory.create(project=world.project, metrics={"token_f1": 0.013})
    admin = world.client("admin")
    activated = admin.post(
        f"/api/model-versions/{good.pk}/activate/", {"confirm": True}, format="json"
    )
    assert activated.status_code == 200

    comparison = admin.get(f"/api/model-versions/{bad.pk}/comparison/").json()
    assert comparison["worse"] is True and comparison["needs_confirm"] is True
    assert comparison["active"]["id"] == good.pk

    refused = admin.post(f"/api/model-versions/{bad.pk}/activate/", {}, format="json")
    assert refused.status_code == 400
    assert "0.013" in refused.json()["detail"] and "0.800" in refused.json()["detail"]
    assert ModelVersion.objects.get(pk=good.pk).is_active

    confirmed = admin.post(
        f"/api/model-versions/{bad.pk}/activate/", {"confirm": True}, format="json"
    )
    assert confirmed.status_code == 200 and confirmed.json()["is_active"] is True

    back = admin.post(f"/api/model-versions/{bad.pk}/deactivate/")
    assert back.status_code == 200 and back.json()["is_active"] is False
    assert active_model_version(project=world.project, kind=bad.kind) is None
