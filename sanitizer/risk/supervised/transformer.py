"""The transformer risk classifier: p(mask) of an entity read in its document context.

The input of one entity follows NTS: a window of the document around the entity's first
mention (``window_tokens`` tokens, the mention centred), paired with the sentence
"{span} is a {TYPE}." (the tokenizer joins the pair with its own ``[SEP]``). A sequence
classification head (2 labels: KEEP, MASK) on the base encoder (default: the bundled MiniLM)
is fine-tuned with class-weighted cross-entropy on the same MASK/KEEP decisions as the
gradient-boosting model (:func:`~sanitizer.risk.supervised.training.labelled_entities`).

A share of the training documents (``holdout``) is held out and the metrics in the model's
``config.json`` are measured on it. Layout of a model directory::

    config.json    {"format": TRANSFORMER_FORMAT, "version", "model": "transformer",
                    "base_model", "labels", "params", "threshold", "training", "metrics",
                    "weights_sha256"}
    classifier/    the Hugging Face model (safetensors weights, its own config) + tokenizer

The default schedule is short (CPU); the device is CUDA when available. Loading never
reaches the network (``local_files_only``).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from sanitizer.devices import pick_device
from sanitizer.risk import RiskDocument, RiskEntity
from sanitizer.risk.measures.common import candidates
from sanitizer.risk.supervised.features import CollectionFrequency
from sanitizer.risk.supervised.model import (
    CONFIG_FILE,
    DEFAULT_SUPERVISED_THRESHOLD,
    TRANSFORMER_FORMAT,
    RiskModelError,
    SupervisedRiskModel,
    _sha256,
    package_version,
)
from sanitizer.risk.supervised.training import LabelledDocument, labelled_entities, mask_metrics
from sanitizer.risk.surprisal import SurprisalScorer

TRANSFORMER_VERSION = "transformer-nts-1"
"""Changes when the input recipe or the training recipe change (stored as ``version``)."""
CLASSIFIER_DIR = "classifier"
WEIGHTS_FILE = "model.safetensors"
LABELS = ("KEEP", "MASK")


@dataclass(frozen=True)
class TransformerRiskParams:
    """Schedule and input sizes; ``max_steps`` caps optimizer steps (tiny runs, tests)."""

    epochs: int = 2
    batch_size: int = 16
    learning_rate: float = 5e-5
    max_length: int = 256
    window_tokens: int = 200
    holdout: float = 0.2
    seed: int = 0
    max_steps: int | None = None
    device: str = "auto"


def entity_inputs(
    tokenizer: Any, document: RiskDocument, entities: Sequence[RiskEntity], window_tokens: int
) -> list[tuple[str, str]]:
    """``(context window, "{span} is a {TYPE}.")`` per entity, the first mention centred."""
    offsets = tokenizer(
        document.text, add_special_tokens=False, return_offsets_mapping=True, verbose=False
    )["offset_mapping"]
    out: list[tuple[str, str]] = []
    for entity in entities:
        first = min(entity.mentions, key=lambda m: m.start)
        if not offsets:
            out.append((document.text, f"{first.text} is a {entity.label}."))
            continue
        centre = next((i for i, (_, end) in enumerate(offsets) if end > first.start), 0)
        hi = min(len(offsets), max(0, centre - window_tokens // 2) + window_tokens)
        lo = max(0, hi - window_tokens)
        window = document.text[offsets[lo][0] : offsets[hi - 1][1]]
        out.append((window, f"{first.text} is a {entity.label}."))
    return out


def _encode(tokenizer: Any, pairs: Sequence[tuple[str, str]], max_length: int) -> Any:
    return tokenizer(
        [p[0] for p in pairs],
        [p[1] for p in pairs],
        truncation="only_first",
        max_length=max_length,
        padding=True,
        return_tensors="pt",
    )


def _probabilities(
    model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], params: TransformerRiskParams
) -> np.ndarray:
    """p(MASK) of each pair, in batches, without gradients."""
    model.eval()
    device = next(model.parameters()).device
    out: list[float] = []
    with torch.no_grad():
        for i in range(0, len(pairs), params.batch_size):
            batch = _encode(tokenizer, pairs[i : i + params.batch_size], params.max_length)
            logits = model(**batch.to(device)).logits
            out.extend(torch.softmax(logits, dim=-1)[:, 1].cpu().tolist())
    return np.asarray(out, dtype=float)


class TransformerRiskModel(SupervisedRiskModel):
    """A fine-tuned sequence classifier; ``estimator`` is ``(tokenizer, model)``."""

    @property
    def params(self) -> TransformerRiskParams:
        return TransformerRiskParams(**self.config.get("params", {}))

    def predict(
        self,
        document: RiskDocument,
        scorer: SurprisalScorer,
        collection: CollectionFrequency | None = None,
    ) -> dict[str, float]:
        """``{entity_id: p(mask)}``; the scorer and collection are not used by this model."""
        pool = candidates(document)
        if not pool:
            return {}
        tokenizer, model = self.estimator
        pairs = entity_inputs(tokenizer, document, pool, self.params.window_tokens)
        p = _probabilities(model, tokenizer, pairs, self.params)
        return {e.entity_id: float(v) for e, v in zip(pool, p, strict=True)}

    def save(self, directory: str | Path) -> Path:
        """Write ``config.json`` and ``classifier/`` (weights + tokenizer) into ``directory``."""
        target = Path(directory)
        tokenizer, model = self.estimator
        model.save_pretrained(target / CLASSIFIER_DIR, safe_serialization=True)
        tokenizer.save_pretrained(target / CLASSIFIER_DIR)
        config = {
            **self.config,
            "format": TRANSFORMER_FORMAT,
            "weights_sha256": _sha256(target / CLASSIFIER_DIR / WEIGHTS_FILE),
        }
        (target / CONFIG_FILE).write_text(
            json.dumps(config, indent=1, ensure_ascii=False), encoding="utf-8"
        )
        self.config = config
        return target

    @classmethod
    def load(cls, directory: str | Path, device: str = "auto") -> TransformerRiskModel:
        """Read a directory written by :meth:`save` (``RiskModelError`` when unusable)."""
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        source = Path(directory)
        weights = source / CLASSIFIER_DIR / WEIGHTS_FILE
        config = json.loads((source / CONFIG_FILE).read_text(encoding="utf-8"))
        if not isinstance(config, Mapping) or config.get("format") != TRANSFORMER_FORMAT:
            raise RiskModelError(f"{source}: not a {TRANSFORMER_FORMAT} model")
        if not weights.is_file():
            raise RiskModelError(f"{source}: no {CLASSIFIER_DIR}/{WEIGHTS_FILE}; retrain it")
        if config.get("weights_sha256") != _sha256(weights):
            raise RiskModelError(f"{source}: {WEIGHTS_FILE} does not match its config.json")
        path = str(source / CLASSIFIER_DIR)
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model = AutoModelForSequenceClassification.from_pretrained(path, local_files_only=True)
        model.to(pick_device(device)).eval()
        return cls((tokenizer, model), dict(config))


def split_documents(
    documents: Sequence[LabelledDocument], holdout: float, seed: int
) -> tuple[list[LabelledDocument], list[LabelledDocument]]:
    """``(train, held out)``: a seeded share of whole documents (none when < 2 documents)."""
    order = list(range(len(documents)))
    random.Random(seed).shuffle(order)
    n_held = round(len(documents) * holdout) if len(documents) > 1 else 0
    held = set(order[:n_held])
    return (
        [d for i, d in enumerate(documents) if i not in held],
        [d for i, d in enumerate(documents) if i in held],
    )


def _examples(
    tokenizer: Any, documents: Sequence[LabelledDocument], window_tokens: int
) -> tuple[list[tuple[str, str]], np.ndarray, int]:
    examples, left_out = labelled_entities(documents)
    pairs: list[tuple[str, str]] = []
    for document, entity, _ in examples:
        pairs.extend(entity_inputs(tokenizer, document, [entity], window_tokens))
    return pairs, np.asarray([label for _, _, label in examples], dtype=int), left_out


def _fit(
    model: Any,
    tokenizer: Any,
    pairs: Sequence[tuple[str, str]],
    y: np.ndarray,
    params: TransformerRiskParams,
) -> list[float]:
    """Fine-tune in place with class-weighted cross-entropy; the loss of every step."""
    device = next(model.parameters()).device
    # Balanced weights: the rarer decision would otherwise be learnt as "never".
    counts = np.bincount(y, minlength=2).astype(float)
    weight = torch.tensor(len(y) / (2 * np.maximum(counts, 1)), dtype=torch.float, device=device)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weight)
    steps_per_epoch = -(-len(pairs) // params.batch_size)
    total = steps_per_epoch * params.epochs
    total = min(total, params.max_steps) if params.max_steps is not None else total
    optimizer = torch.optim.AdamW(model.parameters(), lr=params.learning_rate)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1 - s / total))
    rng = random.Random(params.seed)
    losses: list[float] = []
    model.train()
    while len(losses) < total:
        order = list(range(len(pairs)))
        rng.shuffle(order)
        for i in range(0, len(order), params.batch_size):
            if len(losses) >= total:
                break
            index = order[i : i + params.batch_size]
            batch = _encode(tokenizer, [pairs[j] for j in index], params.max_length).to(device)
            labels = torch.tensor(y[index], dtype=torch.long, device=device)
            loss = loss_fn(model(**batch).logits, labels)
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            losses.append(round(float(loss.item()), 4))
    model.eval()
    return losses


def train_transformer_risk_model(
    documents: Sequence[LabelledDocument],
    *,
    base_model: str | None = None,
    params: TransformerRiskParams | None = None,
    threshold: float = DEFAULT_SUPERVISED_THRESHOLD,
    source: str = "",
) -> TransformerRiskModel:
    """Fine-tune ``base_model`` (default: the bundled MiniLM) on ``documents``.

    Raises ``ValueError`` when the training share gives no entity of one of the classes.
    """
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import logging as hf_logging

    from sanitizer.training.config import default_base_model

    started = time.perf_counter()
    params = params or TransformerRiskParams()
    base = base_model or default_base_model()
    torch.manual_seed(params.seed)
    tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the "newly initialised head" warning is expected
    try:
        model = AutoModelForSequenceClassification.from_pretrained(
            base,
            local_files_only=True,
            num_labels=2,
            id2label=dict(enumerate(LABELS)),
            label2id={label: i for i, label in enumerate(LABELS)},
        )
    finally:
        hf_logging.set_verbosity(verbosity)
    model.to(pick_device(params.device))
    # A longer input than the encoder's positions would fail at the first batch.
    limit = int(getattr(model.config, "max_position_embeddings", params.max_length))
    if params.max_length > limit:
        params = replace(params, max_length=limit)
    train, held = split_documents(documents, params.holdout, params.seed)
    pairs, y, left_out = _examples(tokenizer, train, params.window_tokens)
    if len(set(y.tolist())) < 2:
        raise ValueError(
            f"need entities of both classes to train (got {len(y)} labelled entities, "
            f"{int(y.sum())} MASK); are the annotations in the documents?"
        )
    losses = _fit(model, tokenizer, pairs, y, params)
    held_pairs, held_y, _ = _examples(tokenizer, held, params.window_tokens)
    metrics: dict[str, Any] = {"held_out_documents": len(held), "held_out_entities": len(held_y)}
    if len(held_y):
        metrics.update(
            mask_metrics(held_y, _probabilities(model, tokenizer, held_pairs, params), threshold)
        )
    config = {
        "version": TRANSFORMER_VERSION,
        "package_version": package_version(),
        "model": "transformer",
        "base_model": base,
        "labels": list(LABELS),
        "params": asdict(params),
        "threshold": threshold,
        "training": {
            "source": source,
            "documents": len(train),
            "entities": len(y),
            "mask": int(y.sum()),
            "keep": int(len(y) - y.sum()),
            "left_out_no_majority": left_out,
            "steps": len(losses),
            "first_loss": losses[0] if losses else None,
            "last_loss": losses[-1] if losses else None,
            "device": str(next(model.parameters()).device),
            "seconds": round(time.perf_counter() - started, 1),
        },
        "metrics": metrics,
    }
    return TransformerRiskModel((tokenizer, model), config)
