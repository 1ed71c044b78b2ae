"""The demo's re-identification data: long biographies of people of the 2,000-person
knowledge base, each with its target, whose live rank the editor shows."""

from __future__ import annotations

import json

import pytest

from annotation.models import Assignment
from demo.loading import DISTANT_DIR, REID_DOCS, _demo_reid_biographies, demo_queue_reid_curve
from jobs.models import Job
from reid.loading import reid_caches_clear
from reid.selectors import document_rank
from reid.validators import REID_CURVE
from tests.factories import ProjectFactory, UserFactory
from tests.reid.helpers import make_kb

pytestmark = pytest.mark.django_db


def test_long_biographies_are_ranked_against_the_demo_people() -> None:
    reid_caches_clear()
    project = ProjectFactory.create(name="Demo: synthetic biographies")
    make_kb(project, DISTANT_DIR / "kb.jsonl", n_persons=2000)
    admin = UserFactory.create(username="demo-admin")
    annotators = [UserFactory.create(username="a1"), UserFactory.create(username="a2")]
    records = json.loads((DISTANT_DIR / REID_DOCS).read_text(encoding="utf-8"))

    _demo_reid_biographies(project, admin, annotators)
    _demo_reid_biographies(project, admin, annotators)  # idempotent

    documents = list(project.documents.order_by("position"))
    assert [d.external_id for d in documents] == [r["doc_id"] for r in records]
    assert all(len(d.text.split()) > 100 for d in documents)
    assert Assignment.objects.filter(user=annotators[0]).count() == (len(records) + 1) // 2
    for document, record in zip(documents, records, strict=True):
        assert document.meta["target"] == record["target"]
    answer = document_rank(document=documents[0], masks=[], k=10, top=5)
    # Unmasked, BM25 picks the person out of the 2,000 profiles.
    assert answer["rank"] == 1 and answer["n_candidates"] == 2000
    assert answer["top"][0]["is_target"] and answer["ranks"]["bm25"] == 1


def test_the_curve_job_is_queued_once() -> None:
    project = ProjectFactory.create(name="Demo: synthetic biographies")
    first = demo_queue_reid_curve()
    assert first is not None and (first.kind, first.project) == (REID_CURVE, project)
    assert first.params == {"k_values": [1, 10]}
    assert demo_queue_reid_curve() is None
    assert Job.objects.filter(kind=REID_CURVE).count() == 1
