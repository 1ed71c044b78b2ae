"""Training the dense re-identifier (seed 004 §5 and appendix A).

* Mask prior (word dropout): ``l ~ U(0, M)`` of the document's ``M`` distinct words
  (case-insensitive) are chosen and every occurrence of each is masked, so documents are
  seen at every masking level, half masked on average.
* Loss: cross-entropy over *all* profiles of the knowledge base (no contrastive
  sampling), with label smoothing.
* Coordinate ascent: on even epochs the profile matrix ``G`` is fixed and the document
  encoder ``f`` is trained on masked documents; on odd epochs (the first
  ``profile_epochs`` of them) the profile encoder ``g`` is trained to pick each profile's
  document among the fixed, unmasked document embeddings, and then ``G`` is recomputed.
  Later odd epochs train ``f`` too (appendix A: ``g`` overfits after a few epochs).
* Held out: a share of the *people* (never their documents) is kept for the metrics:
  top-1/top-10 unmasked and with 30% of the words randomly masked (seed-fixed).
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from sanitizer.devices import pick_device
from sanitizer.kanon.kb import Person
from sanitizer.reid.base import ReidDocument, Span
from sanitizer.reid.dense import (
    Encoders,
    encode_texts,
    load_encoders,
    masked_doc_text,
    new_encoders,
    save_encoders,
)
from sanitizer.reid.profiles import profile_text
from sanitizer.reid.words import word_spans

Progress = Callable[[int, int | None, str], None]


def prior_masks(text: str, rng: random.Random) -> list[Span]:
    """A draw of the word-dropout mask prior: ``l ~ U(0, M)`` distinct words, all occurrences."""
    spans = word_spans(text)
    words = [text[s:e].lower() for s, e in spans]
    distinct = list(dict.fromkeys(words))
    chosen = set(rng.sample(distinct, rng.randint(0, len(distinct))))
    return [sp for sp, w in zip(spans, words, strict=True) if w in chosen]


def random_masks(text: str, share: float, rng: random.Random) -> list[Span]:
    """``round(share · N)`` of the ``N`` word positions, uniformly (the evaluation masks)."""
    spans = word_spans(text)
    k = min(len(spans), round(share * len(spans)))
    return sorted(rng.sample(spans, k))


def eval_masks(docs: Sequence[ReidDocument], share: float, seed: int = 0) -> list[list[Span]]:
    """Seed-fixed random masks, one list per document (independent of the order of docs)."""
    return [
        random_masks(d.text, share, random.Random(f"{seed}:{d.doc_id}")) if share > 0 else []
        for d in docs
    ]


def topk_accuracy(
    logits: torch.Tensor, targets: Sequence[int], ks: Sequence[int] = (1, 10)
) -> dict[int, float]:
    """Share of rows whose target is among the ``k`` best (ties count against the target)."""
    t = torch.as_tensor(list(targets), device=logits.device)
    own = logits.gather(1, t[:, None])
    rank = (logits >= own).sum(1)  # 1-based, ties ranked below the target's rivals
    return {k: float((rank <= k).float().mean()) for k in ks}


@dataclass
class DenseTrainResult:
    """Where the model went and how good it is."""

    model_dir: str
    version: str
    metrics: dict[str, Any]
    history: list[dict[str, Any]] = field(default_factory=list)


def split_by_person(
    docs: Sequence[ReidDocument], heldout: float, seed: int
) -> tuple[list[ReidDocument], list[ReidDocument]]:
    """(train, held-out) documents, split by target so no held-out person is trained on."""
    people = sorted({d.target for d in docs})
    random.Random(seed).shuffle(people)
    n_out = min(len(people) - 1, max(1, round(heldout * len(people)))) if heldout > 0 else 0
    out = set(people[:n_out])
    return [d for d in docs if d.target not in out], [d for d in docs if d.target in out]


def evaluate(
    enc: Encoders,
    G: torch.Tensor,
    docs: Sequence[ReidDocument],
    index: dict[str, int],
    seed: int = 0,
) -> dict[str, float]:
    """top-1/top-10 of ``docs`` against ``G``, unmasked and 30% randomly masked."""
    if not docs:
        return {}
    targets = [index[d.target] for d in docs]
    out: dict[str, float] = {}
    for label, share in (("unmasked", 0.0), ("masked30", 0.3)):
        masks = eval_masks(docs, share, seed)
        shown = [
            masked_doc_text(d.text, m, enc.tokenizer) for d, m in zip(docs, masks, strict=True)
        ]
        F = encode_texts(enc.doc, enc.tokenizer, shown, enc.config.max_doc_len, batch_size=32)
        acc = topk_accuracy(F @ G.T, targets)
        out[f"top1_{label}"], out[f"top10_{label}"] = acc[1], acc[10]
    return out


def _batches(n: int, size: int, rng: random.Random) -> list[list[int]]:
    order = list(range(n))
    rng.shuffle(order)
    return [order[i : i + size] for i in range(0, n, size)]


def train_dense(
    profiles: Sequence[Person],
    documents: Sequence[ReidDocument],
    output_dir: str | os.PathLike[str],
    *,
    epochs: int = 4,
    base_model: str | None = None,
    dim: int = 768,
    lr: float = 1e-4,
    profile_lr: float | None = None,
    batch_size: int = 32,
    profile_epochs: int = 2,
    label_smoothing: float = 0.1,
    heldout: float = 0.1,
    max_doc_len: int = 256,
    max_profile_len: int = 128,
    warmup_steps: int = 50,
    seed: int = 0,
    device: str | None = None,
    progress: Progress | None = None,
    init_model: str | os.PathLike[str] | None = None,
) -> DenseTrainResult:
    """Train the bi-encoder on ``documents`` against all of ``profiles`` and save it.

    ``init_model`` continues from a saved model directory instead of the base model
    (its dimension and maximum lengths are kept).
    """
    report = progress or (lambda done, total, msg: None)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    dev = pick_device(device)
    index = {p.id: i for i, p in enumerate(profiles)}
    docs = [d for d in documents if d.target in index]
    if len(docs) < 2:
        raise ValueError("training needs at least two documents whose target is in the KB")
    train, held = split_by_person(docs, heldout, seed)
    if init_model is not None:
        enc = load_encoders(init_model)
        max_doc_len, max_profile_len = enc.config.max_doc_len, enc.config.max_profile_len
    else:
        enc = new_encoders(
            base_model, dim=dim, max_doc_len=max_doc_len, max_profile_len=max_profile_len
        )
    enc.to(dev)
    tok = enc.tokenizer
    ptexts = [profile_text(p) for p in profiles]
    targets = torch.tensor([index[d.target] for d in train], device=dev)
    opt_f = torch.optim.AdamW([*enc.doc.parameters(), enc.log_scale], lr=lr, weight_decay=0.01)
    opt_g = torch.optim.AdamW(enc.profile.parameters(), lr=profile_lr or lr, weight_decay=0.01)
    f_epochs = sum(1 for e in range(epochs) if not (e % 2 == 1 and e // 2 < profile_epochs))
    total_f = max(1, f_epochs * math.ceil(len(train) / batch_size))
    sched_f = torch.optim.lr_scheduler.LambdaLR(
        opt_f,
        lambda s: min(1.0, (s + 1) / warmup_steps) * max(0.1, 1.0 - s / total_f),
    )
    ce = nn.CrossEntropyLoss(label_smoothing=label_smoothing)
    started = time.monotonic()

    def profile_matrix() -> torch.Tensor:
        return encode_texts(enc.profile, tok, ptexts, max_profile_len, batch_size=64, device=dev)

    G = profile_matrix()
    history: list[dict[str, Any]] = []
    for epoch in range(epochs):
        train_g = epoch % 2 == 1 and epoch // 2 < profile_epochs
        losses: list[float] = []
        if train_g:
            # g learns to pick each training profile's document among fixed document embeddings.
            shown = [d.text for d in train]
            F = encode_texts(enc.doc, tok, shown, max_doc_len, batch_size=64, device=dev)
            pidx = [index[d.target] for d in train]
            enc.profile.train()
            for b, batch in enumerate(_batches(len(train), batch_size, rng)):
                inp = tok(
                    [ptexts[pidx[i]] for i in batch],
                    padding=True,
                    truncation=True,
                    max_length=max_profile_len,
                    return_tensors="pt",
                ).to(dev)
                emb = enc.profile(inp["input_ids"], inp["attention_mask"])
                logits = enc.log_scale.detach().exp() * emb @ F.T
                loss = ce(logits, torch.tensor(batch, device=dev))
                opt_g.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(enc.profile.parameters(), 5.0)
                opt_g.step()
                losses.append(loss.item())
                if b % 20 == 0:
                    report(b, None, f"epoch {epoch} (profiles) loss {np.mean(losses[-20:]):.3f}")
            G = profile_matrix()
        else:
            enc.doc.train()
            for b, batch in enumerate(_batches(len(train), batch_size, rng)):
                shown = [
                    masked_doc_text(train[i].text, prior_masks(train[i].text, rng), tok)
                    for i in batch
                ]
                inp = tok(
                    shown,
                    padding=True,
                    truncation=True,
                    max_length=max_doc_len,
                    return_tensors="pt",
                ).to(dev)
                emb = enc.doc(inp["input_ids"], inp["attention_mask"])
                logits = enc.log_scale.exp() * emb @ G.T
                loss = ce(logits, targets[batch])
                opt_f.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_([*enc.doc.parameters(), enc.log_scale], 5.0)
                opt_f.step()
                sched_f.step()
                losses.append(loss.item())
                if b % 20 == 0:
                    report(b, None, f"epoch {epoch} (documents) loss {np.mean(losses[-20:]):.3f}")
        row: dict[str, Any] = {
            "epoch": epoch,
            "phase": "profile" if train_g else "document",
            "loss": float(np.mean(losses)) if losses else None,
            "seconds": round(time.monotonic() - started, 1),
            "scale": enc.scale,
            **evaluate(enc, G, held, index, seed),
        }
        history.append(row)
        report(epoch + 1, epochs, f"epoch done: {row}")
    metrics: dict[str, Any] = {
        **evaluate(enc, G, held, index, seed),
        "n_train": len(train),
        "n_heldout": len(held),
        "n_profiles": len(profiles),
        "train_seconds": round(time.monotonic() - started, 1),
    }
    enc.config.metrics = metrics
    enc.config.training = {
        "epochs": epochs,
        "profile_epochs": profile_epochs,
        "lr": lr,
        "profile_lr": profile_lr or lr,
        "batch_size": batch_size,
        "label_smoothing": label_smoothing,
        "heldout": heldout,
        "seed": seed,
        "device": str(dev),
        "init_model": str(init_model) if init_model is not None else None,
        "mask_prior": "l ~ U(0, M) distinct words, all occurrences",
        "history": history,
    }
    version = save_encoders(enc, output_dir)
    return DenseTrainResult(str(output_dir), version, metrics, history)
