"""The ``reid_deidentify`` job's work: greedy masking until the person is outside every
model's top K (seed 004, Algorithm 1), stored as one masking machine set per document.

The set is a "masking" run like the risk solver's (``risk.services.masking``), so it takes
the masking layer's place in the editor and the review; each span's ``attrs["reasons"]``
says which step masked it and how the ensemble's rank moved. With ``start="risk"`` the
search starts from the risk solver's masks for the document's stored assessment (kept,
with their own reasons) and adds only what the ensemble still needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annotation.models import Document, Project, SetSource
from annotation.services import ProgressCallback, machine_run_store
from jobs.models import Job
from ml.models import ModelVersion
from reid.selectors import ReidContext, ReidUnavailable, reid_context
from reid.selectors.ranking import entity_spans
from sanitizer.reid.greedy import DeidResult, deidentify
from sanitizer.types import EntitySpan

REID_SOURCE_NAME = "reid"
# The label of a masked word no recognizer entity covers.
WORD_LABEL = "MISC"


def reid_documents_resolve(
    *, project: Project, document_ids: Sequence[int] | None, knowledge_base_id: int | None
) -> tuple[dict[int, ReidContext], dict[str, int]]:
    """The documents that can be ranked (their person, knowledge base and ensemble), and
    how many were skipped for each reason."""
    documents = project.documents.order_by("position", "id")
    if document_ids:
        documents = documents.filter(pk__in=document_ids)
    contexts: dict[int, ReidContext] = {}
    skipped: dict[str, int] = {}
    for document in documents:
        try:
            # A job may take minutes to encode the profiles; a web request never does.
            context = reid_context(document=document, encode_profiles=True)
        except ReidUnavailable:
            skipped["no target"] = skipped.get("no target", 0) + 1
            continue
        if knowledge_base_id is not None and context.target.knowledge_base.pk != knowledge_base_id:
            skipped["other knowledge base"] = skipped.get("other knowledge base", 0) + 1
            continue
        contexts[document.pk] = context
    return contexts, skipped


def _risk_starts(project: Project, document_ids: Sequence[int]) -> dict[int, list[EntitySpan]]:
    """The risk solver's masks (with their reasons) of each assessed document."""
    # Imported here: risk.selectors imported before risk.services is a circular import.
    from risk.selectors import assessment_solve, risk_assessments_latest
    from risk.services import risk_solve_documents  # noqa: F401

    return {
        assessment.document_id: assessment_solve(
            assessment=assessment, requested={}, text=assessment.document.text
        ).masked_spans()
        for assessment in risk_assessments_latest(project=project, document_ids=document_ids)
    }


def _label(span: tuple[int, int], entities: Sequence[tuple[int, int, str]]) -> str:
    for start, end, label in entities:
        if start < span[1] and span[0] < end:
            return label
    return WORD_LABEL


def deid_spans(
    text: str,
    result: DeidResult,
    start_spans: Sequence[EntitySpan],
    entities: Sequence[tuple[int, int, str]],
) -> list[EntitySpan]:
    """The machine set's spans: the starting masks as they were, then every step's spans
    with the reason "rank before → after" (the ensemble's rank: the best any model gives)."""
    out = list(start_spans)
    before = min(result.ranks_before.values())
    for step in result.steps:
        after = min(step.ranks.values())
        reason = {
            "measure": "reid",
            "text": f"reid: masking {step.kind} {step.text!r} moved the rank {before} → {after}",
            "ranks": dict(step.ranks),
            "drop": step.drop,
        }
        for s, e in sorted(step.spans):
            out.append(
                EntitySpan(
                    s,
                    e,
                    _label((s, e), entities),
                    text[s:e],
                    source=REID_SOURCE_NAME,
                    identifier_type="QUASI",
                    attrs={"reasons": [reason]},
                )
            )
        before = after
    return out


def reid_deidentify_documents(
    *,
    project: Project,
    k: int,
    start: str = "none",
    document_ids: Sequence[int] | None = None,
    knowledge_base_id: int | None = None,
    max_steps: int | None = None,
    job: Job | None = None,
    progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Mask each document whose person is known until every model ranks it below ``k``;
    store the masks as the document's masking machine set (source name "reid")."""
    contexts, skipped = reid_documents_resolve(
        project=project, document_ids=document_ids, knowledge_base_id=knowledge_base_id
    )
    settings = {"k": k, "start": start}
    if not contexts:
        if progress:
            progress(0, 0, "no document has a target person in a ready knowledge base")
        return {"documents": 0, "masked_spans": 0, "reached": 0, "skipped": skipped, **settings}
    starts = _risk_starts(project, list(contexts)) if start == "risk" else {}
    results: dict[int, tuple[DeidResult, bool]] = {}

    def label_batch(documents: Sequence[Document]) -> list[list[EntitySpan]]:
        out = []
        for document in documents:
            context = contexts[document.pk]
            entities = entity_spans(document=document)
            start_spans = starts.get(document.pk, [])
            result = deidentify(
                document.text,
                context.target.profile_id,
                context.ensemble.models,
                k=k,
                entities=[(s, e) for s, e, _label in entities],
                initial_masks=[(s.start, s.end) for s in start_spans],
                max_steps=max_steps,
            )
            results[document.pk] = (result, document.pk in starts)
            out.append(deid_spans(document.text, result, start_spans, entities))
        return out

    reached = 0

    def document_parameters(document: Document) -> dict[str, Any]:
        nonlocal reached
        result, from_risk = results.pop(document.pk)
        reached += result.reached
        context = contexts[document.pk]
        return {
            "target": context.target.profile_id,
            "knowledge_base_id": context.target.knowledge_base.pk,
            "models": context.ensemble.describe(),
            "ranks_before": result.ranks_before,
            "ranks_after": result.ranks_after,
            "reached": result.reached,
            "share_masked": result.share_masked,
            # "risk" asked for, but a document without an assessment started from nothing.
            "started_from": "risk" if from_risk else "none",
        }

    ensemble = next(iter(contexts.values())).ensemble
    models = "+".join(m.name for m in ensemble.models)
    model_version = (
        ModelVersion.objects.filter(pk=ensemble.model_version_id).first()
        if ensemble.model_version_id is not None
        else None
    )
    summary = machine_run_store(
        project=project,
        source=SetSource.MASKING,
        source_name=REID_SOURCE_NAME,
        source_version=f"reid|{models}|k={k}|start={start}",
        label_batch=label_batch,
        parameters={"strategy": "reid", **settings},
        job=job,
        model_version=model_version,
        document_ids=list(contexts),
        progress=progress,
        start_message=lambda total, _skipped: f"masking {total} documents until rank > {k}",
        document_parameters=document_parameters,
    )
    return {
        "documents": summary.documents,
        "masked_spans": summary.spans,
        "reached": reached,
        "skipped": skipped,
        **settings,
    }
