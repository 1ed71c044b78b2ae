"""Demo data: users with known passwords, a project, the TAB sample, assignments.

Idempotent: running it again on a database that has the demo project changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from annotation.models import Project
from annotation.services import (
    assignment_create,
    document_import,
    membership_set,
    project_create,
)
from jobs.models import Job
from jobs.services import job_create
from knowledge.services import distant_label_project, knowledge_base_create
from ml.services.preannotation import preannotate_documents
from reid.validators import REID_CURVE
from risk.validators import RISK_ASSESS

DEMO_DIR = Path(settings.BASE_DIR) / "fixtures" / "demo"
DISTANT_DIR = Path(settings.BASE_DIR) / "fixtures" / "distant"
# Long biographies with a top-level ``target`` (generate_people --style long, seed 0: the
# people of DISTANT_DIR/kb.jsonl).
REID_DOCS = "reid_docs.json"


@dataclass
class DemoLogin:
    username: str
    password: str
    role: str


@transaction.atomic
def demo_load(*, fixtures_dir: Path = DEMO_DIR) -> list[DemoLogin]:
    spec = json.loads((fixtures_dir / "users.json").read_text())
    User = get_user_model()
    logins = []
    users = {}
    for entry in spec["users"]:
        user, created = User.objects.get_or_create(username=entry["username"])
        if created:
            user.set_password(entry["password"])
            user.is_staff = user.is_superuser = bool(entry.get("superuser"))
            user.save()
        users[entry["username"]] = (user, entry["role"])
        logins.append(DemoLogin(entry["username"], entry["password"], entry["role"]))
    project = Project.objects.filter(name=spec["project"]).first()
    if project is None:
        admin = next(u for u, role in users.values() if role == "admin")
        project = project_create(
            name=spec["project"],
            created_by=admin,
            description="European Court of Human Rights judgments from the TAB sample.",
            guidelines=(
                "Mark every mention that could identify the applicant. DIRECT: identifies on "
                "its own (name, application number). QUASI: identifies in combination (dates, "
                "places, nationality, occupation). NO_MASK: no risk."
            ),
        )
        for user, role in users.values():
            membership_set(project=project, user=user, role=role)
        document_import(
            project=project, path=fixtures_dir / "tab_sample.json", fmt="tab", user=admin
        )
        annotators = [u for u, role in users.values() if role == "annotator"]
        overlap = min(int(spec.get("assign_overlap", 1)), len(annotators))
        for i, document in enumerate(project.documents.order_by("position")):
            for j in range(overlap):
                assignment_create(
                    document=document, user=annotators[(i + j) % len(annotators)], created_by=admin
                )
        # Annotators start from machine suggestions, as they would in a real project.
        preannotate_documents(project=project)
    _demo_biographies(spec, users)
    return logins


@transaction.atomic
def demo_queue_risk(*, fixtures_dir: Path = DEMO_DIR) -> Job | None:
    """Queue the risk job (assess, then solve) on the judgments, once per demo database.

    It runs in the demo's own worker, so start-up does not wait for it; its masking
    suggestions, each with its reasons, appear in the editor when it is done.
    """
    spec = json.loads((fixtures_dir / "users.json").read_text())
    project = Project.objects.filter(name=spec["project"]).first()
    if project is None or Job.objects.filter(project=project, kind=RISK_ASSESS).exists():
        return None
    # The zero-shot measures: they need no trained model, only the documents.
    return job_create(
        kind=RISK_ASSESS,
        params={"measures": ["lm", "linkage"]},
        project=project,
        created_by=project.created_by,
    )


@transaction.atomic
def demo_queue_reid_curve(*, fixtures_dir: Path = DEMO_DIR) -> Job | None:
    """Queue the re-identification curve of the biographies, once per demo database.

    The project page shows it when the worker is done (no masking, the stored masking
    runs, greedy de-identification at K = 1 and 10, against BM25).
    """
    spec = json.loads((fixtures_dir / "users.json").read_text())
    name = spec.get("distant_project", "Demo: synthetic biographies")
    project = Project.objects.filter(name=name).first()
    if project is None or Job.objects.filter(project=project, kind=REID_CURVE).exists():
        return None
    return job_create(
        kind=REID_CURVE,
        params={"k_values": [1, 10]},
        project=project,
        created_by=project.created_by,
    )


def _demo_biographies(spec: dict, users: dict) -> None:
    """A second project: synthetic biographies labelled against a synthetic knowledge base."""

    name = spec.get("distant_project", "Demo: synthetic biographies")
    admin = next(u for u, role in users.values() if role == "admin")
    annotators = [u for u, role in users.values() if role == "annotator"]
    existing = Project.objects.filter(name=name).first()
    if existing is not None:
        # A demo database loaded before the long biographies existed gets them now.
        _demo_reid_biographies(existing, admin, annotators)
        return
    project = project_create(
        name=name,
        created_by=admin,
        description="Generated people: distant labels for k-anonymity against a knowledge base.",
        k_anonymity=5,
    )
    for user, role in users.values():
        membership_set(project=project, user=user, role=role)
    document_import(project=project, path=DISTANT_DIR / "docs.json", fmt="tab", user=admin)
    for i, document in enumerate(project.documents.order_by("position")[:10]):
        assignment_create(document=document, user=annotators[i % len(annotators)], created_by=admin)
    kb = knowledge_base_create(
        name="Synthetic people (2,000)",
        source_path=DISTANT_DIR / "kb.jsonl",
        source_format="jsonl",
        project=project,
        created_by=admin,
        background=False,
    )
    distant_label_project(project=project, knowledge_base=kb, k=project.k_anonymity, max_arity=3)
    _demo_reid_biographies(project, admin, annotators)


def _demo_reid_biographies(project: Project, admin: Any, annotators: list[Any]) -> None:
    """A few long biographies of people of the knowledge base, each with its ``target``
    profile id: the editor shows their person's live re-identification rank (BM25 over the
    2,000 profiles; the dense model too once a train_reid job made one active)."""
    records = json.loads((DISTANT_DIR / REID_DOCS).read_text(encoding="utf-8"))
    if project.documents.filter(external_id=records[0]["doc_id"]).exists():
        return
    document_import(project=project, path=DISTANT_DIR / REID_DOCS, fmt="tab", user=admin)
    ids = [r["doc_id"] for r in records]
    for i, document in enumerate(
        project.documents.filter(external_id__in=ids).order_by("position")
    ):
        assignment_create(document=document, user=annotators[i % len(annotators)], created_by=admin)
