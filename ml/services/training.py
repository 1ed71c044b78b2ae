"""Training the neural recognizer from a project's data (services).

Training examples per document, in order of preference: the gold set, a
quality-checked human set, any submitted human set, and (seed 001's silver corpus)
the rule-based recognizer's predictions. Which documents are trained on and which
are held out is ``ml.selectors.training_documents``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils.text import slugify

from annotation.models import AnnotationSet, Document, Project, SetKind, SetStatus
from annotation.services import ProgressCallback
from ml.loading import recognizer_load
from ml.models import ModelKind, ModelVersion
from ml.selectors import BUILTIN_METRICS_KEY, training_documents
from ml.services.model_versions import trained_model_register
from sanitizer.types import EntitySpan

Example = tuple[str, list[EntitySpan]]
TRAINING_SOURCES = ("gold", "human", "silver")


@dataclass
class TrainingData:
    train: list[Example] = field(default_factory=list)
    dev: list[Example] = field(default_factory=list)
    by_source: dict[str, int] = field(default_factory=dict)
    # The documents behind ``train`` and ``dev`` (dev ones choose the kept checkpoint).
    document_ids: list[int] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "train_documents": len(self.train),
            "dev_documents": len(self.dev),
            "train_spans": sum(len(s) for _, s in self.train),
            "dev_spans": sum(len(s) for _, s in self.dev),
            "documents_by_source": self.by_source,
        }


def _set_spans(annotation_set: AnnotationSet) -> list[EntitySpan]:
    return [
        EntitySpan(start=s.start, end=s.end, label=s.entity_type, text=s.text)
        for s in annotation_set.spans.order_by("start", "end")
    ]


def _human_set(document: Document, sources: Sequence[str]) -> tuple[str, AnnotationSet] | None:
    sets = document.annotation_sets
    if "gold" in sources:
        gold = sets.filter(kind=SetKind.GOLD).first()
        if gold is not None and gold.spans.exists():
            return "gold", gold
    if "human" in sources:
        human = (
            sets.filter(kind=SetKind.HUMAN)
            .exclude(status=SetStatus.IN_PROGRESS)
            .order_by("-quality_checked", "id")
            .first()
        )
        if human is not None:
            return "human", human
    return None


def training_data_collect(
    *,
    project: Project,
    sources: Sequence[str] = TRAINING_SOURCES,
    silver_predict: Callable[[Sequence[str]], list[list[EntitySpan]]] | None = None,
    max_documents: int | None = None,
) -> TrainingData:
    unknown = set(sources) - set(TRAINING_SOURCES)
    if unknown:
        raise ValueError(f"unknown training sources {sorted(unknown)}")
    data = TrainingData()
    docs = training_documents(project=project, max_documents=max_documents)
    silver_docs: list[tuple[int, Document]] = []
    examples: list[tuple[int, Document, list[EntitySpan]]] = []
    for i, (document, _) in enumerate(docs):
        chosen = _human_set(document, sources)
        if chosen is not None:
            source, annotation_set = chosen
            examples.append((i, document, _set_spans(annotation_set)))
            data.by_source[source] = data.by_source.get(source, 0) + 1
        elif "silver" in sources:
            silver_docs.append((i, document))
    if silver_docs:
        if silver_predict is None:
            silver_predict = recognizer_load(project=None, use_active=False).predict_batch
        predictions = silver_predict([d.text for _, d in silver_docs])
        for (i, document), spans in zip(silver_docs, predictions, strict=True):
            examples.append((i, document, list(spans)))
        data.by_source["silver"] = len(silver_docs)
    for i, document, spans in sorted(examples, key=lambda e: e[0]):
        is_dev = docs[i][1]
        (data.dev if is_dev else data.train).append((document.text, spans))
        data.document_ids.append(document.pk)
    data.document_ids.sort()
    return data


TRAINING_PARAM_KEYS = (
    "base_model",
    "max_length",
    "window_overlap",
    "learning_rate",
    "batch_size",
    "epochs",
    "early_stopping_patience",
    "max_steps",
    "seed",
    "device",
    "num_threads",
    "eval_steps",
    "eval_batch_size",
    "warmup_ratio",
    "merge_strategy",
)


# Everything a training job's parameters may hold.
TRAINING_JOB_KEYS = (*TRAINING_PARAM_KEYS, "sources", "max_documents", "name", "activate")


def _builtin_metrics(project: Project, dev: Sequence[Example]) -> dict[str, float]:
    """The built-in recognizer's entity figures on the dev set the model was judged on,
    so activation can compare the two (``ml.selectors.model_activation_comparison``)."""
    if not dev:
        return {}
    from sanitizer.training.metrics import entity_prf

    predict = recognizer_load(project=project, use_active=False).predict_batch
    return entity_prf([spans for _, spans in dev], predict([text for text, _ in dev]))


def recognizer_train(
    *,
    project: Project,
    params: dict[str, Any],
    job: Any = None,
    created_by: Any = None,
    progress: ProgressCallback | None = None,
) -> ModelVersion:
    """Fine-tune the token classifier on the project's data and register the model."""
    from sanitizer.training.config import TrainingConfig
    from sanitizer.training.trainer import train

    sources = params.get("sources") or list(TRAINING_SOURCES)
    data = training_data_collect(
        project=project, sources=sources, max_documents=params.get("max_documents")
    )
    if not data.train:
        raise ValueError("no training documents: annotate, adjudicate or import some first")
    config_args = {k: params[k] for k in TRAINING_PARAM_KEYS if params.get(k) is not None}
    if not config_args.get("base_model") and settings.TRANSFORMER_BASE_MODEL:
        config_args["base_model"] = settings.TRANSFORMER_BASE_MODEL
    name = params.get("name") or f"recognizer-{slugify(project.name)[:60] or project.pk}"
    config = TrainingConfig(name=name, **config_args)
    output_dir = Path(settings.MODEL_DIR) / f"{name}-{uuid.uuid4().hex[:12]}"
    if progress:
        progress(0, 1, f"training on {data.summary()}")
    result = train(config, data.train, data.dev, output_dir, progress_callback=progress)
    # On silver data the built-in recognizer would be graded on its own output.
    builtin = {} if "silver" in data.by_source else _builtin_metrics(project, data.dev)
    return trained_model_register(
        kind=ModelKind.RECOGNIZER,
        name=name,
        result=result,
        config=config.to_dict(),
        training_summary={
            **data.summary(),
            "best_epoch": result.best_epoch,
            "stopped_early": result.stopped_early,
            "train_windows": result.train_windows,
            "history": result.history,
            **({BUILTIN_METRICS_KEY: builtin} if builtin else {}),
        },
        project=project,
        job=job,
        created_by=created_by,
        activate=bool(params.get("activate", False)),
        trained_on_documents=data.document_ids,
    )
