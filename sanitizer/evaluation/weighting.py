"""Token weighting schemes for TAB's weighted precision.

TAB weights each masked token by its information content, ``-log P(token)``
under a language model, so that masking a rare, informative word costs more
utility than masking "court" or "the". The scheme is pluggable: factories are
registered by name in :data:`token_weightings` and called as
``factory(texts, **options)`` where ``texts`` are the gold corpus texts.

Registered schemes:

``uniform``
    Every token weighs 1 (TAB's unweighted precision).
``corpus_unigram`` (the default for weighted precision)
    ``-log P(w)`` with ``P`` an add-``alpha`` smoothed unigram model of the
    lower-cased ``\\w+`` tokens of the gold texts. Needs no model and no network,
    but ignores context (TAB used BERT in context) and, on a small gold corpus,
    under-weights names repeated throughout a document.
``masked_lm``
    TAB's scheme: the masked spans are replaced by mask tokens, a masked language
    model loaded from a *local* directory (``model_path``, no download) predicts
    them, and a span weighs ``-log`` of the smallest probability among its
    sub-word tokens. No MLM weights ship with the project (the bundled MiniLM is
    a sentence encoder without an MLM head), so this needs a path to e.g. a local
    copy of ``bert-base-uncased``.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from sanitizer.evaluation.spans import word_tokens
from sanitizer.registry import Registry


class TokenWeighting(Protocol):
    """Information content of text spans (typically single tokens) of one text."""

    name: str

    def weights(self, text: str, spans: Sequence[tuple[int, int]]) -> list[float]:
        """Return one non-negative weight per span of ``text``, in order."""
        ...


WeightingFactory = Callable[..., TokenWeighting]

token_weightings: Registry[WeightingFactory] = Registry("token weighting")

DEFAULT_WEIGHTING = "corpus_unigram"


class UniformWeighting:
    """Every span weighs 1.0."""

    name = "uniform"

    def weights(self, text: str, spans: Sequence[tuple[int, int]]) -> list[float]:
        """Return ``[1.0] * len(spans)``."""
        return [1.0] * len(spans)


class UnigramWeighting:
    """``-log P(w)`` under a smoothed unigram model of lower-cased ``\\w+`` tokens.

    A span holding several tokens weighs as its least probable token (as TAB's
    BERT weighting takes the minimum probability); a span without any word
    character weighs 0.
    """

    name = "corpus_unigram"

    def __init__(self, counts: Counter[str], alpha: float = 1.0) -> None:
        if alpha <= 0:
            raise ValueError("alpha must be positive so unseen words get a finite weight")
        self.counts = counts
        self.alpha = alpha
        self._total = sum(counts.values())
        # One extra vocabulary slot stands for every unseen word.
        self._norm = self._total + alpha * (len(counts) + 1)

    @classmethod
    def from_texts(cls, texts: Sequence[str], alpha: float = 1.0) -> UnigramWeighting:
        """Estimate the model on ``texts``."""
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(text[s:e].lower() for s, e in word_tokens(text))
        return cls(counts, alpha)

    def information(self, word: str) -> float:
        """``-log P(word)`` in nats (case-insensitive)."""
        return -math.log((self.counts.get(word.lower(), 0) + self.alpha) / self._norm)

    def weights(self, text: str, spans: Sequence[tuple[int, int]]) -> list[float]:
        """Weight of each span (its most informative token)."""
        out: list[float] = []
        for start, end in spans:
            infos = [self.information(text[s:e]) for s, e in word_tokens(text, start, end)]
            out.append(max(infos) if infos else 0.0)
        return out


class MaskedLMWeighting:
    """TAB's information content from a masked language model read from disk.

    Preconditions: ``model_path`` is a local directory with a Hugging Face
    tokenizer (fast, for offsets) and a masked-LM checkpoint; it is loaded with
    ``local_files_only=True`` so no network call is ever made.
    """

    name = "masked_lm"

    def __init__(self, model_path: str, max_segment: int = 128, device: str = "cpu") -> None:
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(model_path, local_files_only=True)
        if not getattr(self.tokenizer, "is_fast", False):
            raise ValueError("masked_lm weighting needs a fast tokenizer (character offsets)")
        self.model = AutoModelForMaskedLM.from_pretrained(model_path, local_files_only=True)
        self.model.eval()
        self.model.to(device)
        self.device = device
        self.max_segment = max_segment

    def weights(self, text: str, spans: Sequence[tuple[int, int]]) -> list[float]:
        """``-log`` of the smallest probability of the sub-words of each span, with
        all spans of the text masked at once (the model sees the masked text)."""
        import torch

        if not spans:
            return []
        enc = self.tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
        ids: list[int] = list(enc["input_ids"])
        offsets: list[tuple[int, int]] = [tuple(o) for o in enc["offset_mapping"]]
        # Sub-word offsets are sorted and disjoint, so the tokens overlapping a span
        # form a run found by bisecting on their ends.
        ends = [e for _, e in offsets]
        span_tokens: list[list[int]] = []
        for start, end in spans:
            toks: list[int] = []
            i = bisect.bisect_right(ends, start)
            while i < len(offsets) and offsets[i][0] < end:
                if offsets[i][1] > offsets[i][0]:
                    toks.append(i)
                i += 1
            span_tokens.append(toks)
        masked_ids = list(ids)
        for toks in span_tokens:
            for i in toks:
                masked_ids[i] = self.tokenizer.mask_token_id
        log_probs = torch.empty(len(ids))
        body = max(1, self.max_segment - 2)
        cls_id, sep_id = self.tokenizer.cls_token_id, self.tokenizer.sep_token_id
        with torch.no_grad():
            for seg_start in range(0, len(ids), body):
                seg = masked_ids[seg_start : seg_start + body]
                prefix = [cls_id] if cls_id is not None else []
                suffix = [sep_id] if sep_id is not None else []
                inp = torch.tensor([prefix + seg + suffix], device=self.device)
                logits = self.model(input_ids=inp).logits[0, len(prefix) : len(prefix) + len(seg)]
                lp = torch.log_softmax(logits.float(), dim=-1)
                actual = torch.tensor(ids[seg_start : seg_start + len(seg)], device=self.device)
                log_probs[seg_start : seg_start + len(seg)] = lp[
                    torch.arange(len(seg), device=self.device), actual
                ].cpu()
        return [
            float(-min(log_probs[i].item() for i in toks)) if toks else 0.0 for toks in span_tokens
        ]


@token_weightings.register("uniform")
def make_uniform(texts: Sequence[str] = (), **options: Any) -> TokenWeighting:
    """Factory for :class:`UniformWeighting` (``texts`` unused)."""
    return UniformWeighting()


@token_weightings.register("corpus_unigram")
def make_corpus_unigram(texts: Sequence[str], alpha: float = 1.0) -> TokenWeighting:
    """Factory for :class:`UnigramWeighting` estimated on ``texts``."""
    return UnigramWeighting.from_texts(texts, alpha=alpha)


@token_weightings.register("masked_lm")
def make_masked_lm(
    texts: Sequence[str] = (),
    model_path: str | None = None,
    max_segment: int = 128,
    device: str = "cpu",
) -> TokenWeighting:
    """Factory for :class:`MaskedLMWeighting`; ``model_path`` (local dir) is required."""
    if not model_path:
        raise ValueError("the masked_lm weighting needs model_path, a local model directory")
    return MaskedLMWeighting(model_path, max_segment=max_segment, device=device)


def make_weighting(name: str, texts: Sequence[str], **options: Any) -> TokenWeighting:
    """Build the weighting scheme registered as ``name`` for the gold ``texts``."""
    return token_weightings.get(name)(texts, **options)
