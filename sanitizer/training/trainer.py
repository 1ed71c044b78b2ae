"""Fine-tuning a transformer token classifier on (text, spans) examples.

Implements step 2 of seed 001 §3.1 (fine-tune a language model on a silver corpus made
by the rule-based recognizer) and seed 000 §3.3 (a B-MASK/I-MASK/O tagger trained on
distant labels): both are :func:`train` with different ``TrainingConfig.labels``.

A plain torch loop (AdamW, linear warm-up/decay, gradient clipping), evaluated on the dev
examples after every epoch; the best epoch is saved to ``output_dir`` with
``save_pretrained`` together with the ``sanitizer_model.json`` manifest, and training
stops when the dev score has not improved for ``early_stopping_patience`` epochs.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch

from sanitizer.training.config import TrainingConfig
from sanitizer.training.encoding import (
    IGNORE_INDEX,
    EncodedText,
    bio_tags_for,
    decode_spans,
    encode_text,
    make_windows,
    select_spans,
    special_tokens,
)
from sanitizer.training.metrics import entity_prf, token_prf
from sanitizer.training.tagger import (
    MANIFEST_FORMAT,
    MANIFEST_NAME,
    MANIFEST_VERSION,
    forward_windows,
    pad_batch,
    pad_token_id,
    resolve_device,
    spans_from_logits,
)
from sanitizer.types import EntitySpan

Example = tuple[str, Sequence[EntitySpan]]
ProgressCallback = Callable[[int, int, str], None]

# Tokenizers report this huge sentinel as model_max_length when they know no limit.
_NO_LIMIT = 10**12


@dataclass
class TrainingResult:
    """Outcome of :func:`train`.

    ``metrics`` are the dev metrics of the saved (best) epoch: ``dev_loss``,
    ``token_precision/recall/f1`` and ``entity_exact_*``/``entity_partial_*`` (empty
    when there were no dev examples). ``train_size``/``dev_size`` count documents,
    ``train_windows`` the model inputs they were cut into. ``ignored_spans`` counts
    training spans not encoded (label outside ``labels`` or overlapping another span).
    ``history`` holds one metrics dict per evaluation.
    """

    output_dir: str
    metrics: dict[str, float]
    epochs_run: int
    best_epoch: int | None
    best_step: int | None
    stopped_early: bool
    steps: int
    train_size: int
    dev_size: int
    train_windows: int
    labels: list[str]
    base_model: str
    model_version: str
    duration_seconds: float
    ignored_spans: int = 0
    history: list[dict[str, float]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable copy (e.g. a Celery task result)."""
        return dataclasses.asdict(self)


@dataclass
class _Prepared:
    # Token ids and tag ids are compact int32 arrays: a silver corpus of thousands of
    # long documents would take gigabytes as Python int lists.
    input_ids: list[np.ndarray]
    tag_ids: list[np.ndarray]
    # Kept for dev documents only (decoding needs offsets); empty for training data.
    encodings: list[EncodedText]
    gold_spans: list[list[EntitySpan]]
    ignored_spans: int


def _check_example(index: int, text: str, spans: Sequence[EntitySpan]) -> None:
    for span in spans:
        if span.end > len(text) or text[span.start : span.end] != span.text:
            raise ValueError(
                f"example {index}: span {span.start}..{span.end} {span.text!r} "
                "does not match the text"
            )


def _prepare(
    tokenizer: Any, examples: Sequence[Example], config: TrainingConfig, keep_encodings: bool
) -> _Prepared:
    tag_index = {t: i for i, t in enumerate(config.tags)}
    prepared = _Prepared([], [], [], [], 0)
    for i, (text, spans) in enumerate(examples):
        _check_example(i, text, spans)
        enc = encode_text(tokenizer, text)
        tags = bio_tags_for(enc, spans, config.labels)
        prepared.ignored_spans += len(spans) - len(select_spans(spans, config.labels))
        prepared.input_ids.append(np.asarray(enc.input_ids, dtype=np.int32))
        prepared.tag_ids.append(np.asarray([tag_index[t] for t in tags], dtype=np.int32))
        if keep_encodings:
            prepared.encodings.append(enc)
            # Gold spans as the model can express them: projected onto token boundaries.
            prepared.gold_spans.append(decode_spans(enc, tags))
    return prepared


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def _write_manifest(output_dir: Path, manifest: dict[str, Any]) -> None:
    # Written to a temporary file first so a reader never sees a half-written manifest.
    tmp = output_dir / (MANIFEST_NAME + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True), encoding="utf-8")
    os.replace(tmp, output_dir / MANIFEST_NAME)


def _evaluate(
    model: Any,
    tokenizer: Any,
    dev: _Prepared,
    config: TrainingConfig,
    window_size: int,
    device: torch.device,
) -> dict[str, float]:
    model.eval()
    logits, loss_sum, loss_tokens = forward_windows(
        model,
        tokenizer,
        dev.encodings,
        window_size,
        config.window_overlap,
        config.merge_strategy,
        config.eval_batch_size,
        device,
        doc_tag_ids=[t.tolist() for t in dev.tag_ids],
    )
    gold_tags: list[str] = []
    pred_tags: list[str] = []
    pred_spans: list[list[EntitySpan]] = []
    for enc, lg, ids in zip(dev.encodings, logits, dev.tag_ids, strict=True):
        token_tags, spans = spans_from_logits(enc, lg, config.tags, source="")
        pred_tags.extend(token_tags)
        gold_tags.extend(config.tags[int(i)] for i in ids)
        pred_spans.append(spans)
    metrics = {"dev_loss": loss_sum / loss_tokens if loss_tokens else 0.0}
    metrics.update(token_prf(gold_tags, pred_tags, config.labels))
    metrics.update(entity_prf(dev.gold_spans, pred_spans))
    return metrics


def train(
    config: TrainingConfig,
    train_examples: Iterable[Example],
    dev_examples: Iterable[Example],
    output_dir: str | Path,
    progress_callback: ProgressCallback | None = None,
) -> TrainingResult:
    """Fine-tune ``config.base_model`` as a BIO token classifier and save the best epoch.

    ``train_examples``/``dev_examples`` are ``(text, spans)`` pairs; span labels outside
    ``config.labels`` are ignored (counted in ``TrainingResult.ignored_spans``). Long
    texts are cut into overlapping windows, never truncated. With dev examples, the
    checkpoint with the best dev score (``config.early_stopping_metric``: token micro-F1
    or loss) is kept, evaluated after each epoch or every ``config.eval_steps`` steps;
    training stops after ``early_stopping_patience`` evaluations without improvement.
    Without dev examples, the last state is saved. ``progress_callback(done, total,
    message)`` is called about 50 times over the run and after each evaluation.
    Ties in dev F1 are broken by dev loss.

    Side effects: writes the model, tokenizer and ``sanitizer_model.json`` into
    ``output_dir`` (created if needed, files overwritten); sets torch's CPU thread
    count when ``config.num_threads`` is given; seeds python/numpy/torch RNGs.
    """
    from transformers import (
        AutoModelForTokenClassification,
        AutoTokenizer,
        get_linear_schedule_with_warmup,
    )

    started = time.monotonic()
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    report = progress_callback or (lambda done, total, message: None)
    if config.num_threads is not None:
        torch.set_num_threads(config.num_threads)
    _seed_everything(config.seed)
    device = resolve_device(config.device)
    model_version = f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"

    try:
        tokenizer = AutoTokenizer.from_pretrained(
            config.base_model, local_files_only=config.local_files_only
        )
    except OSError as exc:
        raise OSError(
            f"base model {config.base_model!r} could not be loaded"
            + (" from local files (no download is attempted)" if config.local_files_only else "")
            + f": {exc}"
        ) from exc
    limit = int(getattr(tokenizer, "model_max_length", _NO_LIMIT) or _NO_LIMIT)
    if limit < _NO_LIMIT and config.max_length > limit:
        raise ValueError(f"max_length {config.max_length} exceeds the model's limit {limit}")
    special = special_tokens(tokenizer)
    window_size = config.max_length - special.count
    if config.window_overlap >= window_size:
        raise ValueError("window_overlap must be smaller than the window content size")

    train_list = list(train_examples)
    dev_list = list(dev_examples)
    if not train_list:
        raise ValueError("no training examples")
    report(0, 1, f"tokenizing {len(train_list)} train and {len(dev_list)} dev documents")
    train_data = _prepare(tokenizer, train_list, config, keep_encodings=False)
    dev_data = _prepare(tokenizer, dev_list, config, keep_encodings=True)

    # (document, first token, end token) of every training window.
    windows = [
        (d, s, e)
        for d, ids in enumerate(train_data.input_ids)
        for s, e in make_windows(len(ids), window_size, config.window_overlap)
    ]
    label_prefix = [IGNORE_INDEX] * len(special.prefix)
    label_suffix = [IGNORE_INDEX] * len(special.suffix)

    def window_example(k: int) -> tuple[list[int], list[int]]:
        d, s, e = windows[k]
        ids = special.prefix + train_data.input_ids[d][s:e].tolist() + special.suffix
        labels = label_prefix + train_data.tag_ids[d][s:e].tolist() + label_suffix
        return ids, labels

    if not windows:
        raise ValueError("the training examples contain no tokens")

    tags = config.tags
    model = AutoModelForTokenClassification.from_pretrained(
        config.base_model,
        num_labels=len(tags),
        id2label=dict(enumerate(tags)),
        label2id={t: i for i, t in enumerate(tags)},
        local_files_only=config.local_files_only,
        # A base model that already has a token-classification head of another size
        # (e.g. an NER model) gets a fresh head instead of a load error.
        ignore_mismatched_sizes=True,
    )
    model.to(device)

    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight", "norm.weight")
    params = [
        {
            "params": [p for n, p in model.named_parameters() if not n.endswith(no_decay)],
            "weight_decay": config.weight_decay,
        },
        {
            "params": [p for n, p in model.named_parameters() if n.endswith(no_decay)],
            "weight_decay": 0.0,
        },
    ]
    optimizer = torch.optim.AdamW(params, lr=config.learning_rate)
    batches_per_epoch = math.ceil(len(windows) / config.batch_size)
    total_steps = config.epochs * batches_per_epoch
    if config.max_steps is not None:
        total_steps = min(total_steps, config.max_steps)
    scheduler = get_linear_schedule_with_warmup(
        optimizer, int(config.warmup_ratio * total_steps), total_steps
    )
    pad_id = pad_token_id(tokenizer)
    report_every = max(1, total_steps // 50)
    generator = torch.Generator().manual_seed(config.seed)

    def manifest(metrics: dict[str, float], best_epoch: int | None) -> dict[str, Any]:
        import transformers

        return {
            "format": MANIFEST_FORMAT,
            "manifest_version": MANIFEST_VERSION,
            "model_version": model_version,
            "created_at": datetime.now(UTC).isoformat(),
            "config": config.to_dict(),
            "labels": list(config.labels),
            "tags": tags,
            "metrics": metrics,
            "best_epoch": best_epoch,
            "train_size": len(train_list),
            "dev_size": len(dev_list),
            "train_windows": len(windows),
            "base_model": config.base_model,
            "transformers_version": transformers.__version__,
            "torch_version": torch.__version__,
        }

    def save(metrics: dict[str, float], best_epoch: int | None) -> None:
        model.save_pretrained(out)
        tokenizer.save_pretrained(out)
        _write_manifest(out, manifest(metrics, best_epoch))

    history: list[dict[str, float]] = []
    best_score: tuple[float, float] = (-math.inf, -math.inf)
    best_metrics: dict[str, float] = {}
    best_epoch: int | None = None
    best_step: int | None = None
    bad_evals = 0
    stopped_early = False
    step = 0
    epoch = 0
    running = 0.0
    seen = 0

    def evaluate() -> bool:
        """Evaluate on dev, save when best; return True when patience is exhausted."""
        nonlocal best_score, best_metrics, best_epoch, best_step, bad_evals
        metrics = _evaluate(model, tokenizer, dev_data, config, window_size, device)
        model.train()
        metrics["epoch"] = float(epoch)
        metrics["step"] = float(step)
        metrics["train_loss"] = running / max(seen, 1)
        history.append(metrics)
        # F1 plateaus (often at 1.0 on easy data); dev loss breaks its ties so the
        # saved checkpoint keeps improving while F1 is flat.
        score = (
            (metrics["token_f1"], -metrics["dev_loss"])
            if config.early_stopping_metric == "dev_f1"
            else (-metrics["dev_loss"], metrics["token_f1"])
        )
        message = (
            f"epoch {epoch} step {step} dev loss {metrics['dev_loss']:.4f} "
            f"token F1 {metrics['token_f1']:.4f} exact F1 {metrics['entity_exact_f1']:.4f}"
        )
        if score > best_score:
            best_score, best_metrics, best_epoch, best_step = score, metrics, epoch, step
            bad_evals = 0
            save(best_metrics, best_epoch)
            report(step, total_steps, message + " (best, saved)")
            return False
        bad_evals += 1
        report(step, total_steps, message + f" (no improvement for {bad_evals})")
        return bad_evals >= config.early_stopping_patience

    has_dev = bool(dev_data.encodings)
    report(0, total_steps, f"training on {len(windows)} windows, {total_steps} steps on {device}")
    model.train()
    while epoch < config.epochs and step < total_steps and not stopped_early:
        epoch += 1
        order = torch.randperm(len(windows), generator=generator).tolist()
        running = 0.0
        evaluated_at = -1
        for seen, b in enumerate(range(0, len(order), config.batch_size), start=1):
            chunk = [window_example(k) for k in order[b : b + config.batch_size]]
            batch = pad_batch([c[0] for c in chunk], pad_id, [c[1] for c in chunk])
            loss = model(**{k: v.to(device) for k, v in batch.items()}).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            running += loss.item()
            if step % report_every == 0 or step == total_steps:
                report(
                    step,
                    total_steps,
                    f"epoch {epoch} step {step}/{total_steps} loss {running / seen:.4f}",
                )
            if has_dev and config.eval_steps and step % config.eval_steps == 0:
                evaluated_at = step
                if evaluate():
                    stopped_early = True
                    break
            if step >= total_steps:
                break
        # Without eval_steps, evaluate once per epoch; with it, still evaluate the final
        # state of the run if the last step was not an evaluation step.
        final = step >= total_steps or epoch == config.epochs
        if (
            has_dev
            and not stopped_early
            and evaluated_at != step
            and (not config.eval_steps or final)
            and evaluate()
        ):
            stopped_early = True
    if stopped_early:
        report(step, total_steps, f"early stopping at epoch {epoch}, step {step}")
    if not has_dev:
        best_epoch, best_step = epoch, step
        save({}, best_epoch)
    report(total_steps, total_steps, f"done: best epoch {best_epoch}, saved to {out}")
    return TrainingResult(
        output_dir=str(out),
        metrics=best_metrics,
        epochs_run=epoch,
        best_epoch=best_epoch,
        best_step=best_step,
        stopped_early=stopped_early,
        steps=step,
        train_size=len(train_list),
        dev_size=len(dev_list),
        train_windows=len(windows),
        labels=list(config.labels),
        base_model=config.base_model,
        model_version=model_version,
        duration_seconds=time.monotonic() - started,
        ignored_spans=train_data.ignored_spans,
        history=history,
    )
