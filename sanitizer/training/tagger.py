"""Loading a fine-tuned token tagger and predicting character spans with it.

The model directory is the one :func:`sanitizer.training.trainer.train` writes: a Hugging
Face model and tokenizer saved with ``save_pretrained`` plus ``sanitizer_model.json``
(the manifest). Long texts are cut into the same overlapping windows as in training and
the window logits merged per token (see :mod:`sanitizer.training.encoding`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from sanitizer.devices import pick_device
from sanitizer.training.config import TrainingConfig
from sanitizer.training.encoding import (
    IGNORE_INDEX,
    EncodedText,
    SpecialTokens,
    align_to_words,
    decode_spans,
    encode_text,
    get_merge_strategy,
    make_windows,
    special_tokens,
)
from sanitizer.training.registry import taggers
from sanitizer.types import EntitySpan

MANIFEST_NAME = "sanitizer_model.json"
MANIFEST_FORMAT = "sanitizer-token-tagger"
#: Version of the manifest layout (independent of the TrainingConfig version).
MANIFEST_VERSION = 1


# "auto" is CUDA when available, else the CPU; other names go to torch.
resolve_device = pick_device


def window_inputs(
    encoded: EncodedText,
    special: SpecialTokens,
    window_size: int,
    overlap: int,
) -> tuple[list[tuple[int, int]], list[list[int]]]:
    """Return the token windows of ``encoded`` and each window's model input ids."""
    windows = make_windows(len(encoded), window_size, overlap)
    inputs = [special.prefix + encoded.input_ids[s:e] + special.suffix for s, e in windows]
    return windows, inputs


def pad_batch(
    sequences: Sequence[list[int]], pad_id: int, labels: Sequence[list[int]] | None = None
) -> dict[str, torch.Tensor]:
    """Right-pad id lists into ``input_ids``/``attention_mask`` (and ``labels``) tensors."""
    width = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.long)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[row, : len(seq)] = 1
    batch = {"input_ids": ids, "attention_mask": mask}
    if labels is not None:
        lab = torch.full((len(sequences), width), -100, dtype=torch.long)
        for row, seq_labels in enumerate(labels):
            lab[row, : len(seq_labels)] = torch.tensor(seq_labels, dtype=torch.long)
        batch["labels"] = lab
    return batch


def pad_token_id(tokenizer: Any) -> int:
    """The tokenizer's padding id (EOS for models that have no pad token)."""
    pad = tokenizer.pad_token_id
    if pad is None:
        pad = tokenizer.eos_token_id
    if pad is None:
        raise ValueError("tokenizer has neither a pad nor an eos token")
    return int(pad)


@torch.no_grad()
def forward_windows(
    model: Any,
    tokenizer: Any,
    encodings: Sequence[EncodedText],
    window_size: int,
    overlap: int,
    merge_strategy: str,
    batch_size: int,
    device: torch.device,
    doc_tag_ids: Sequence[Sequence[int]] | None = None,
) -> tuple[list[np.ndarray], float, int]:
    """Run the model over the windows of every text and merge the logits per token.

    Returns (merged ``n_tokens x n_tags`` logits per text, summed cross-entropy, number
    of tokens in that sum); the loss terms are 0 unless gold ``doc_tag_ids`` (one tag id
    per token per text) are given. Windows of all texts are batched together.
    Precondition: ``model`` is in eval mode on ``device``.
    """
    special = special_tokens(tokenizer)
    pad_id = pad_token_id(tokenizer)
    merge = get_merge_strategy(merge_strategy)
    n_prefix = len(special.prefix)
    per_doc: list[list[tuple[int, int]]] = []
    flat: list[tuple[int, int, list[int], list[int] | None]] = []  # doc, window, ids, labels
    for d, enc in enumerate(encodings):
        windows, inputs = window_inputs(enc, special, window_size, overlap)
        per_doc.append(windows)
        for w, ((s, e), ids) in enumerate(zip(windows, inputs, strict=True)):
            labels = None
            if doc_tag_ids is not None:
                labels = (
                    [IGNORE_INDEX] * n_prefix
                    + list(doc_tag_ids[d][s:e])
                    + [IGNORE_INDEX] * len(special.suffix)
                )
            flat.append((d, w, ids, labels))
    # Sorting by length keeps padding small when documents differ in length.
    order = sorted(range(len(flat)), key=lambda k: len(flat[k][2]))
    window_logits: dict[tuple[int, int], np.ndarray] = {}
    loss_sum = 0.0
    loss_tokens = 0
    for b in range(0, len(order), batch_size):
        chunk = [flat[k] for k in order[b : b + batch_size]]
        with_labels = doc_tag_ids is not None
        batch = pad_batch(
            [c[2] for c in chunk], pad_id, [c[3] or [] for c in chunk] if with_labels else None
        )
        labels_t = batch.pop("labels", None)
        out = model(**{k: v.to(device) for k, v in batch.items()}).logits
        if labels_t is not None:
            labels_t = labels_t.to(device)
            loss_sum += float(
                torch.nn.functional.cross_entropy(
                    out.reshape(-1, out.shape[-1]).float(),
                    labels_t.reshape(-1),
                    ignore_index=IGNORE_INDEX,
                    reduction="sum",
                )
            )
            loss_tokens += int((labels_t != IGNORE_INDEX).sum())
        out_np = out.float().cpu().numpy()
        for row, (d, w, ids, _) in enumerate(chunk):
            n_content = len(ids) - special.count
            window_logits[(d, w)] = out_np[row, n_prefix : n_prefix + n_content]
    merged: list[np.ndarray] = []
    n_tags = int(model.config.num_labels)
    for d, windows in enumerate(per_doc):
        if not windows:
            merged.append(np.zeros((0, n_tags), dtype=np.float32))
            continue
        logits = [window_logits[(d, w)] for w in range(len(windows))]
        merged.append(merge(len(encodings[d]), windows, logits))
    return merged, loss_sum, loss_tokens


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax, numerically stable."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=-1, keepdims=True)  # type: ignore[no-any-return]


def spans_from_logits(
    encoded: EncodedText,
    logits: np.ndarray,
    tags: Sequence[str],
    source: str,
    snap_to_words: bool = True,
) -> tuple[list[str], list[EntitySpan]]:
    """Decode merged token logits into (predicted token tags, character spans).

    ``confidence`` of a span is the mean max-softmax probability over its tokens.
    """
    if len(encoded) == 0:
        return [], []
    probs = softmax(logits)
    best = probs.argmax(axis=-1)
    token_tags = [tags[int(i)] for i in best]
    decoded_tags = align_to_words(encoded, token_tags) if snap_to_words else token_tags
    confidences = probs.max(axis=-1).tolist()
    return token_tags, decode_spans(encoded, decoded_tags, confidences, source)


class Tagger:
    """A fine-tuned token classifier that returns :class:`EntitySpan` lists.

    Build it with :func:`load_tagger`. ``source`` on every span is
    ``"<name>@<model_version>"`` from the manifest, so stored spans say which model
    produced them.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        manifest: dict[str, Any],
        device: torch.device,
        batch_size: int | None = None,
        merge_strategy: str | None = None,
        snap_to_words: bool = True,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.manifest = manifest
        self.device = device
        self.config = TrainingConfig.from_dict(manifest["config"])
        self.tags: list[str] = list(manifest["tags"])
        self.labels: list[str] = list(manifest["labels"])
        self.batch_size = batch_size or self.config.eval_batch_size
        self.merge_strategy = merge_strategy or self.config.merge_strategy
        self.snap_to_words = snap_to_words
        self.model_version: str = manifest["model_version"]
        self.source = f"{self.config.name}@{self.model_version}"
        self._window_size = self.config.max_length - special_tokens(tokenizer).count

    def predict(self, text: str) -> list[EntitySpan]:
        """Return the predicted spans of one text, sorted by start offset."""
        return self.predict_batch([text])[0]

    def predict_batch(self, texts: Sequence[str]) -> list[list[EntitySpan]]:
        """Return the predicted spans of each text (one list per text, same order)."""
        encodings = [encode_text(self.tokenizer, t) for t in texts]
        logits, _, _ = forward_windows(
            self.model,
            self.tokenizer,
            encodings,
            self._window_size,
            self.config.window_overlap,
            self.merge_strategy,
            self.batch_size,
            self.device,
        )
        return [
            spans_from_logits(enc, lg, self.tags, self.source, self.snap_to_words)[1]
            for enc, lg in zip(encodings, logits, strict=True)
        ]


def read_manifest(output_dir: str | Path) -> dict[str, Any]:
    """Read and check the ``sanitizer_model.json`` manifest of a saved model."""
    path = Path(output_dir) / MANIFEST_NAME
    manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if manifest.get("format") != MANIFEST_FORMAT:
        raise ValueError(f"{path} is not a {MANIFEST_FORMAT} manifest")
    if int(manifest.get("manifest_version", 0)) > MANIFEST_VERSION:
        raise ValueError(f"{path} has a newer manifest version than this code supports")
    return manifest


@taggers.register("transformer_token_classifier")
def load_tagger(
    output_dir: str | Path,
    device: str = "auto",
    batch_size: int | None = None,
    merge_strategy: str | None = None,
    snap_to_words: bool = True,
    num_threads: int | None = None,
) -> Tagger:
    """Load a model saved by :func:`sanitizer.training.train` for prediction.

    Reads only local files. ``num_threads`` (when given) sets torch's process-wide CPU
    thread count as a side effect.
    """
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    if num_threads is not None:
        torch.set_num_threads(num_threads)
    manifest = read_manifest(output_dir)
    torch_device = resolve_device(device)
    tokenizer = AutoTokenizer.from_pretrained(str(output_dir), local_files_only=True)
    model = AutoModelForTokenClassification.from_pretrained(str(output_dir), local_files_only=True)
    if int(model.config.num_labels) != len(manifest["tags"]):
        raise ValueError(f"{output_dir}: model head size does not match the manifest tags")
    model.to(torch_device)
    model.eval()
    return Tagger(
        model,
        tokenizer,
        manifest,
        torch_device,
        batch_size=batch_size,
        merge_strategy=merge_strategy,
        snap_to_words=snap_to_words,
    )
