"""The job-kind table: every kind of background job, in one place.

Each entry names the kind, its Celery task (the name queued messages carry), its
queue, the validator of its parameters (owned by the app whose data they name), its
time limits and retries, and its body. ``workers.tasks`` makes the Celery tasks
from this table, the Celery app routes by it, and ``workers.apps`` registers it
with the jobs app, whose ``job_create`` and job API then accept the kind.

Adding a job kind: one entry here plus its body function (``workers.bodies``).
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.services import IMPORT_JOB_KIND
from jobs.kinds import JobKindSpec
from knowledge.validators import (
    DISTANT_LABEL,
    KB_IMPORT,
    TRAIN_MASKER,
    distant_label_params_validate,
    kb_import_params_validate,
    masker_params_validate,
)
from ml.validators import (
    PREANNOTATE,
    TRAIN_MLM,
    TRAIN_RECOGNIZER,
    TRAIN_RISK,
    mlm_training_params_validate,
    preannotate_params_validate,
    risk_training_params_validate,
    training_params_validate,
)
from reid.validators import (
    REID_CURVE,
    REID_DEIDENTIFY,
    TRAIN_REID,
    reid_curve_params_validate,
    reid_deidentify_params_validate,
    train_reid_params_validate,
)
from risk.validators import RISK_ASSESS, RISK_SOLVE, risk_params_validate
from workers import bodies
from workers.fanout import FanOut
from workers.runner import Describe, JobBody

HOUR = 3600


@dataclass(frozen=True, kw_only=True)
class JobKindEntry(JobKindSpec):
    """What the jobs app needs to know of a kind, plus what the worker needs to run it."""

    soft_time_limit: int
    # The hard limit leaves the body time to record the soft limit's failure.
    time_limit: int
    # Retries after transient infrastructure errors (database or broker connection).
    max_retries: int
    body: JobBody
    describe: Describe | None = None
    # Per-document kinds split into chunks run as a Celery group (workers.fanout);
    # ``chunk_task_name`` (of JobKindSpec) names the chunk task.
    fan_out: FanOut | None = None

    def __post_init__(self) -> None:
        if bool(self.fan_out) != bool(self.chunk_task_name):
            raise ValueError(f"{self.name}: fan_out and chunk_task_name go together")


JOB_KINDS: tuple[JobKindEntry, ...] = (
    JobKindEntry(
        name=IMPORT_JOB_KIND,
        label="Import documents",
        task_name="sanitizer.import_documents",
        queue="cpu",
        # The parameter is a server path: only the server queues imports (upload API).
        creatable=False,
        soft_time_limit=3000,
        time_limit=3300,
        max_retries=3,
        body=bodies.import_documents,
        describe=bodies.describe_import,
    ),
    JobKindEntry(
        name=PREANNOTATE,
        label="Pre-annotate",
        task_name="sanitizer.preannotate",
        queue="gpu",
        validate=preannotate_params_validate,
        soft_time_limit=6 * HOUR,
        time_limit=6 * HOUR + 300,
        max_retries=3,
        body=bodies.preannotate,
        chunk_task_name="sanitizer.preannotate.chunk",
        fan_out=FanOut(sum_keys=("documents", "skipped", "spans"), pin=bodies.preannotate_pin),
    ),
    JobKindEntry(
        name=TRAIN_RECOGNIZER,
        label="Train recognizer",
        task_name="sanitizer.train_recognizer",
        queue="gpu",
        validate=training_params_validate,
        soft_time_limit=12 * HOUR,
        time_limit=12 * HOUR + 600,
        max_retries=1,
        body=bodies.train_recognizer,
    ),
    JobKindEntry(
        name=TRAIN_RISK,
        label="Train risk classifier",
        task_name="sanitizer.train_risk",
        # The recognizer runs over the training documents first.
        queue="gpu",
        validate=risk_training_params_validate,
        soft_time_limit=6 * HOUR,
        time_limit=6 * HOUR + 300,
        max_retries=1,
        body=bodies.train_risk,
    ),
    JobKindEntry(
        name=TRAIN_MLM,
        label="Train masked language model",
        task_name="sanitizer.train_mlm",
        queue="gpu",
        validate=mlm_training_params_validate,
        soft_time_limit=12 * HOUR,
        time_limit=12 * HOUR + 600,
        max_retries=1,
        body=bodies.train_mlm,
    ),
    JobKindEntry(
        name=KB_IMPORT,
        label="Import knowledge base",
        task_name="sanitizer.kb_build",
        queue="cpu",
        validate=kb_import_params_validate,
        soft_time_limit=12 * HOUR,
        time_limit=12 * HOUR + 600,
        max_retries=1,
        body=bodies.kb_build,
    ),
    JobKindEntry(
        name=DISTANT_LABEL,
        label="Distant labelling",
        task_name="sanitizer.distant_label",
        queue="cpu",
        validate=distant_label_params_validate,
        soft_time_limit=6 * HOUR,
        time_limit=6 * HOUR + 300,
        max_retries=3,
        body=bodies.distant_label,
    ),
    JobKindEntry(
        name=TRAIN_MASKER,
        label="Train masking tagger",
        task_name="sanitizer.train_masker",
        queue="gpu",
        validate=masker_params_validate,
        soft_time_limit=12 * HOUR,
        time_limit=12 * HOUR + 600,
        max_retries=1,
        body=bodies.train_masker,
    ),
    JobKindEntry(
        name=RISK_ASSESS,
        label="Assess privacy risk",
        task_name="sanitizer.risk_assess",
        # Recognizer and scorers: the model work.
        queue="gpu",
        validate=risk_params_validate,
        soft_time_limit=6 * HOUR,
        time_limit=6 * HOUR + 300,
        max_retries=3,
        body=bodies.risk_assess,
    ),
    JobKindEntry(
        name=RISK_SOLVE,
        label="Solve risk masking",
        task_name="sanitizer.risk_solve",
        queue="cpu",
        validate=risk_params_validate,
        soft_time_limit=2 * HOUR,
        time_limit=2 * HOUR + 300,
        max_retries=3,
        body=bodies.risk_solve,
        chunk_task_name="sanitizer.risk_solve.chunk",
        fan_out=FanOut(sum_keys=("documents", "masked_spans", "risky")),
    ),
    JobKindEntry(
        name=TRAIN_REID,
        label="Train re-identification model",
        task_name="sanitizer.train_reid",
        queue="gpu",
        validate=train_reid_params_validate,
        soft_time_limit=12 * HOUR,
        time_limit=12 * HOUR + 600,
        max_retries=1,
        body=bodies.train_reid,
    ),
    JobKindEntry(
        name=REID_DEIDENTIFY,
        label="Mask until not re-identifiable",
        task_name="sanitizer.reid_deidentify",
        # BM25 and the dense model's stored profile embeddings: inference on a CPU is enough.
        queue="cpu",
        validate=reid_deidentify_params_validate,
        soft_time_limit=6 * HOUR,
        time_limit=6 * HOUR + 300,
        max_retries=3,
        body=bodies.reid_deidentify,
        chunk_task_name="sanitizer.reid_deidentify.chunk",
        fan_out=FanOut(sum_keys=("documents", "masked_spans", "reached", "skipped")),
    ),
    JobKindEntry(
        name=REID_CURVE,
        label="Re-identification curve",
        task_name="sanitizer.reid_curve",
        queue="cpu",
        validate=reid_curve_params_validate,
        soft_time_limit=6 * HOUR,
        time_limit=6 * HOUR + 300,
        max_retries=3,
        body=bodies.reid_curve,
    ),
)


def task_queues() -> dict[str, str]:
    """Celery task name -> queue, for the Celery app's router."""
    queues = {entry.task_name: entry.queue for entry in JOB_KINDS}
    queues.update({entry.chunk_task_name: entry.queue for entry in JOB_KINDS if entry.fan_out})
    return queues
