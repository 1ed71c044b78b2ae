"""Contextual surprisal from a masked language model (seed 001, §3.2.1; NTS's LM risk).

:class:`MaskedLMScorer` (registered as the ``mlm`` surprisal scorer) scores the entities of
one document in context:

* every token of every detected entity is replaced by the mask token *at once*, so no
  entity's words help predict another's; with ``block_attention`` (the default, as in NTS)
  no token may attend to a masked position either, so not even an entity's length leaks;
* the document is cut into overlapping windows of ``window`` tokens every ``stride``
  tokens, and each token is read from the window where it sits closest to the centre, so
  every token has context on both sides (except at the document's ends);
* an entity's surprisal is that of its most explicit mention (the longest, as
  :func:`~sanitizer.risk.entities.entity_text`): ``total`` = Σ −ln p(original sub-word |
  context) over its sub-word tokens, ``peak`` = the largest *word* surprisal (a word's
  pieces summed), in nats like the ``wordfreq`` scorer, so the ``lm`` measure and the
  solver's IC use it unchanged.

A text without its document has no context to read, so ``token_surprisals(text)`` (used by
the supervised measure's features) is the context-free ``wordfreq`` scorer's.

The model is any local masked-LM directory (``manage.py train_mlm`` builds one from the
bundled MiniLM encoder) or a hub name already in the local cache: everything is loaded with
``local_files_only=True``, so nothing is downloaded. Models are cached per path and device.

Quality (``benchmarks/mlm_quality.py``): trained on TAB dev 0–59, the MiniLM masked LM
predicts held-out masked tokens with top-5 accuracy .505, but as the ``lm`` measure's scorer
it reaches F1 .73 at best on 60–79, against .87 for ``wordfreq``, which stays the default.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import torch

from sanitizer.devices import pick_device
from sanitizer.risk import RiskDocument, RiskEntity
from sanitizer.risk.options import MLM_STRIDE as DEFAULT_STRIDE
from sanitizer.risk.options import MLM_WINDOW as DEFAULT_WINDOW
from sanitizer.risk.surprisal import (
    EntitySurprisal,
    SurprisalScorer,
    TokenSurprisal,
    WordfreqScorer,
)

DEFAULT_BATCH_SIZE = 16
CACHED_DOCUMENTS = 256


@lru_cache(maxsize=4)
def load_masked_lm(path: str, device: str = "auto") -> tuple[Any, Any]:
    """``(tokenizer, model)`` of a local masked LM, in eval mode on ``device`` (cached)."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    if not tokenizer.is_fast or tokenizer.mask_token_id is None:
        raise ValueError(f"{path}: needs a fast tokenizer with a mask token")
    model = AutoModelForMaskedLM.from_pretrained(path, local_files_only=True)
    model.to(pick_device(device)).eval()
    return tokenizer, model


def masked_logits(
    model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor, positions: torch.Tensor
) -> torch.Tensor:
    """Vocabulary logits at ``positions`` (``[n, 2]``: row, column) only.

    The output head runs on the gathered hidden states, not on every position of every
    window (a 30k-word vocabulary times every token would dominate time and memory).
    """
    head = getattr(model, "cls", None)
    if head is None:
        head = getattr(model, "lm_head", None)
    if head is None:  # another architecture: full logits, then gather
        logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
        return logits[positions[:, 0], positions[:, 1]]
    hidden = model.base_model(input_ids=input_ids, attention_mask=attention_mask)[0]
    return head(hidden[positions[:, 0], positions[:, 1]])


def window_starts(n_tokens: int, content: int, stride: int) -> list[int]:
    """Starts of windows of ``content`` tokens every ``stride`` tokens, the last one flush
    with the end, so that together they cover ``0..n_tokens``."""
    if n_tokens <= content:
        return [0]
    starts = list(range(0, n_tokens - content + 1, stride))
    if starts[-1] + content < n_tokens:
        starts.append(n_tokens - content)
    return starts


def assign_windows(n_tokens: int, content: int, stride: int) -> tuple[list[int], list[int]]:
    """``(starts, owner)``: each token's window is the one whose centre is nearest to it."""
    starts = window_starts(n_tokens, content, stride)
    owner: list[int] = []
    w = 0
    for p in range(n_tokens):
        # Windows are sorted, so the best one only moves right as p grows.
        while (
            w + 1 < len(starts)
            and starts[w + 1] <= p
            and abs(p - (starts[w + 1] + content / 2)) <= abs(p - (starts[w] + content / 2))
        ):
            w += 1
        owner.append(w)
    return starts, owner


@dataclass(frozen=True)
class TokenScores:
    """One document's tokenisation and the surprisal of each masked token (nats)."""

    offsets: list[tuple[int, int]]
    words: list[int | None]
    masked: list[bool]
    nats: dict[int, float]


class MaskedLMScorer(SurprisalScorer):
    """Contextual surprisal of entities from a masked LM (see the module docstring)."""

    name = "mlm"

    def __init__(
        self,
        background: Iterable[tuple[str, str]] = (),
        *,
        model: str,
        window: int = DEFAULT_WINDOW,
        stride: int = DEFAULT_STRIDE,
        batch_size: int = DEFAULT_BATCH_SIZE,
        block_attention: bool = True,
        device: str = "auto",
    ) -> None:
        if window < 8 or not 0 < stride <= window - 2:
            raise ValueError(f"need window ≥ 8 and 0 < stride ≤ window − 2 ({window}, {stride})")
        self.model_path = str(model)
        self.tokenizer, self.model = load_masked_lm(self.model_path, device)
        self.device = next(self.model.parameters()).device
        self.window = window
        self.stride = stride
        self.batch_size = batch_size
        self.block_attention = block_attention
        self.context_free = WordfreqScorer(background)
        # The lm measure and the solver's IC read the same document; a dial re-solves it.
        self._cache: OrderedDict[tuple[Any, ...], dict[str, EntitySurprisal]] = OrderedDict()

    def token_surprisals(self, text: str, *, exclude: str | None = None) -> list[TokenSurprisal]:
        """Text alone has no context: the context-free scorer's surprisals."""
        return self.context_free.token_surprisals(text, exclude=exclude)

    def entity_surprisals(self, document: RiskDocument) -> dict[str, EntitySurprisal]:
        """Each entity's surprisal in context, all entities masked at once (cached per doc)."""
        key = (
            document.doc_id,
            hash(document.text),
            tuple((m.start, m.end) for e in document.entities for m in e.mentions),
        )
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        spans = [(m.start, m.end) for e in document.entities for m in e.mentions]
        scores = self.score_tokens(document.text, spans)
        result = {e.entity_id: self._entity(e, scores) for e in document.entities}
        self._cache[key] = result
        if len(self._cache) > CACHED_DOCUMENTS:
            self._cache.popitem(last=False)
        return result

    def _entity(self, entity: RiskEntity, scores: TokenScores) -> EntitySurprisal:
        mention = max(entity.mentions, key=lambda m: (m.end - m.start, -m.start))
        per_word: dict[Any, float] = {}
        for i, (start, end) in enumerate(scores.offsets):
            if i in scores.nats and start < mention.end and end > mention.start:
                word = scores.words[i] if scores.words[i] is not None else ("token", i)
                per_word[word] = per_word.get(word, 0.0) + scores.nats[i]
        return EntitySurprisal(
            total=sum(per_word.values()), peak=max(per_word.values(), default=0.0)
        )

    def score_tokens(self, text: str, spans: Sequence[tuple[int, int]]) -> TokenScores:
        """Mask every token overlapping ``spans``; −ln p(original token) of each one."""
        enc = self.tokenizer(
            text, add_special_tokens=False, return_offsets_mapping=True, verbose=False
        )
        ids: list[int] = enc["input_ids"]
        offsets = [tuple(o) for o in enc["offset_mapping"]]
        words = enc.word_ids()
        masked = [any(s < e_ and t < e for s, e in spans) for t, e_ in offsets]
        nats = self.masked_surprisals(ids, masked)
        return TokenScores(offsets, words, masked, nats)

    def masked_surprisals(self, ids: Sequence[int], masked: Sequence[bool]) -> dict[int, float]:
        """``{token index: nats}`` for every masked token of the token sequence ``ids``."""
        tok = self.tokenizer
        content = self.window - 2
        starts, owner = assign_windows(len(ids), content, self.stride)
        wanted: dict[int, list[int]] = {}
        for p, is_masked in enumerate(masked):
            if is_masked:
                wanted.setdefault(owner[p], []).append(p)
        todo = sorted(wanted)
        out: dict[int, float] = {}
        for b in range(0, len(todo), self.batch_size):
            batch = todo[b : b + self.batch_size]
            rows, attention, positions, targets = [], [], [], []
            width = min(content, len(ids)) + 2
            for r, w in enumerate(batch):
                lo = starts[w]
                piece = list(ids[lo : lo + content])
                flags = list(masked[lo : lo + content])
                row = [
                    tok.cls_token_id,
                    *(tok.mask_token_id if f else t for t, f in zip(piece, flags, strict=True)),
                    tok.sep_token_id,
                ]
                keep = [1, *(0 if f and self.block_attention else 1 for f in flags), 1]
                pad = width - len(row)
                rows.append(row + [tok.pad_token_id] * pad)
                attention.append(keep + [0] * pad)
                for p in wanted[w]:
                    positions.append((r, p - lo + 1))
                    targets.append((p, ids[p]))
            with torch.inference_mode():
                logits = masked_logits(
                    self.model,
                    torch.tensor(rows, device=self.device),
                    torch.tensor(attention, device=self.device),
                    torch.tensor(positions, device=self.device),
                )
                logp = torch.log_softmax(logits.float(), dim=-1)
                target_ids = torch.tensor([t for _, t in targets], device=self.device)
                picked = -logp[torch.arange(len(targets), device=self.device), target_ids]
            for (p, _), value in zip(targets, picked.tolist(), strict=True):
                out[p] = value if math.isfinite(value) else 1e9
        return out
