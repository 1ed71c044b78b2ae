"""Dense bi-encoder re-identification model (seed 004, §5).

A document encoder ``f`` and a profile encoder ``g``, both a MiniLM-style transformer
with mean pooling and a linear projection to ``dim``. Both embeddings are
L2-normalised and the score is ``scale · f(x, z)·g(y)`` with a learned scale: on
CPU-sized training runs the normalised form trains faster and more stably than the
raw dot product, and the learned scale keeps ``softmax(row)`` a usable
``p(y | x, z)`` for greedy de-identification. Masked words reach ``f`` as the
tokenizer's mask token, one per word.

Model directory::

    reid.json            kind, version, base_model, dim, max lengths, scale, metrics, training
    doc_encoder/         HF ``save_pretrained`` + tokenizer
    profile_encoder/     HF ``save_pretrained`` + tokenizer
    projection.pt        the two projections and the log scale
    profiles/<fp>.npy    profile embeddings of one knowledge base (+ ``<fp>.json`` ids)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from transformers import AutoModel, AutoTokenizer, PreTrainedTokenizerBase

from sanitizer.devices import pick_device
from sanitizer.kanon.kb import Person
from sanitizer.reid.embedding_cache import cached_embeddings, embeddings_cached, store_embeddings
from sanitizer.reid.profiles import kb_fingerprint, profile_rows, profile_text
from sanitizer.reid.words import masked_flags, masked_text, masked_words, word_spans

Span = tuple[int, int]
KIND = "dense"
FORMAT_VERSION = 1


@dataclass
class DenseConfig:
    """What ``reid.json`` records about the architecture."""

    base_model: str
    dim: int = 768
    max_doc_len: int = 256
    max_profile_len: int = 128
    version: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": KIND, "format": FORMAT_VERSION, **self.__dict__}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DenseConfig:
        keys = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in keys})


class Encoder(nn.Module):
    """Transformer + mean pooling + linear projection + L2 normalisation."""

    def __init__(self, transformer: nn.Module, dim: int) -> None:
        super().__init__()
        self.transformer = transformer
        hidden = int(getattr(transformer, "config").hidden_size)  # noqa: B009
        self.proj = nn.Linear(hidden, dim, bias=False)

    def init_projection(self, seed: int = 0) -> None:
        # A (semi-)orthogonal projection preserves inner products, so an untrained
        # model scores like the pretrained sentence encoder instead of at random.
        gen = torch.Generator().manual_seed(seed)
        w = torch.empty_like(self.proj.weight)
        nn.init.orthogonal_(w, generator=gen)
        with torch.no_grad():
            self.proj.weight.copy_(w)

    def forward(
        self,
        input_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
    ) -> torch.Tensor:
        out = self.transformer(
            input_ids=input_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds
        )
        hidden = out.last_hidden_state
        assert attention_mask is not None
        m = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1.0)
        return nn.functional.normalize(self.proj(pooled), dim=-1)


@dataclass
class Encoders:
    """Both encoders, the tokenizer and the learned log scale."""

    config: DenseConfig
    tokenizer: PreTrainedTokenizerBase
    doc: Encoder
    profile: Encoder
    log_scale: nn.Parameter

    @property
    def scale(self) -> float:
        return float(self.log_scale.detach().exp())

    def to(self, device: torch.device) -> Encoders:
        self.doc.to(device)
        self.profile.to(device)
        self.log_scale.data = self.log_scale.data.to(device)
        return self


def new_encoders(base_model: str | None = None, dim: int = 768, **config: Any) -> Encoders:
    """Encoders initialised from ``base_model`` (default: the bundled MiniLM)."""
    if base_model is None:
        from sanitizer.training.config import default_base_model

        base_model = default_base_model()
    cfg = DenseConfig(base_model=str(base_model), dim=dim, **config)
    tok = AutoTokenizer.from_pretrained(base_model)
    doc = Encoder(AutoModel.from_pretrained(base_model), dim)
    prof = Encoder(AutoModel.from_pretrained(base_model), dim)
    doc.init_projection(0)
    prof.init_projection(0)
    return Encoders(cfg, tok, doc, prof, nn.Parameter(torch.tensor(float(np.log(20.0)))))


def load_encoders(model_dir: str | os.PathLike[str]) -> Encoders:
    """Read a model directory written by :func:`save_encoders`."""
    d = Path(model_dir)
    data = json.loads((d / "reid.json").read_text(encoding="utf-8"))
    if data.get("kind") != KIND:
        raise ValueError(f"{d} holds a {data.get('kind')!r} model, not a dense one")
    cfg = DenseConfig.from_json(data)
    tok = AutoTokenizer.from_pretrained(d / "doc_encoder")
    doc = Encoder(AutoModel.from_pretrained(d / "doc_encoder"), cfg.dim)
    prof = Encoder(AutoModel.from_pretrained(d / "profile_encoder"), cfg.dim)
    proj = torch.load(d / "projection.pt", map_location="cpu", weights_only=True)
    doc.proj.load_state_dict(proj["doc"])
    prof.proj.load_state_dict(proj["profile"])
    return Encoders(cfg, tok, doc, prof, nn.Parameter(proj["log_scale"].clone()))


def save_encoders(enc: Encoders, model_dir: str | os.PathLike[str]) -> str:
    """Write ``enc`` to ``model_dir`` with a fresh version string; returns the version."""
    d = Path(model_dir)
    d.mkdir(parents=True, exist_ok=True)
    for part, module in (("doc_encoder", enc.doc), ("profile_encoder", enc.profile)):
        module.transformer.save_pretrained(d / part)  # type: ignore[operator]
        enc.tokenizer.save_pretrained(d / part)
    proj = {
        "doc": {k: v.cpu() for k, v in enc.doc.proj.state_dict().items()},
        "profile": {k: v.cpu() for k, v in enc.profile.proj.state_dict().items()},
        "log_scale": enc.log_scale.detach().cpu(),
    }
    torch.save(proj, d / "projection.pt")
    digest = hashlib.sha1((d / "projection.pt").read_bytes()).hexdigest()[:10]
    enc.config.version = f"dense-{time.strftime('%Y%m%d%H%M%S')}-{digest}"
    # Cached profile embeddings belong to the previous weights.
    shutil.rmtree(d / "profiles", ignore_errors=True)
    (d / "reid.json").write_text(json.dumps(enc.config.to_json(), indent=2), encoding="utf-8")
    return enc.config.version


def precompute_embeddings(
    model_dir: str | os.PathLike[str],
    profiles: Sequence[Person],
    device: str | torch.device | None = None,
) -> bool:
    """Encode ``profiles`` once and store them in ``model_dir`` (the slow part of the first
    load against a knowledge base); True when they are now cached."""
    fp = kb_fingerprint(profiles)
    if not embeddings_cached(model_dir, profiles, fingerprint=fp):
        DenseModel.load(model_dir, profiles, device=device, fingerprint=fp)
    return embeddings_cached(model_dir, profiles, fingerprint=fp)


def create_untrained(
    model_dir: str | os.PathLike[str], base_model: str | None = None, dim: int = 768
) -> str:
    """A valid model directory with the pretrained weights, untrained (for tests)."""
    enc = new_encoders(base_model, dim=dim)
    enc.config.training = {"untrained": True}
    return save_encoders(enc, model_dir)


def encode_texts(
    encoder: Encoder,
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    max_len: int,
    batch_size: int = 64,
    device: torch.device | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> torch.Tensor:
    """Embeddings of ``texts`` (no gradient), shape ``[len(texts), dim]``, on ``device``."""
    device = device or next(encoder.parameters()).device
    was_training = encoder.training
    encoder.eval()
    # Sorting by length keeps padding (and so CPU time) low within each batch.
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = torch.empty((len(texts), encoder.proj.out_features), device=device)
    with torch.no_grad():
        for s in range(0, len(order), batch_size):
            idx = order[s : s + batch_size]
            batch = tokenizer(
                [texts[i] for i in idx],
                padding=True,
                truncation=True,
                max_length=max_len,
                return_tensors="pt",
            ).to(device)
            out[idx] = encoder(batch["input_ids"], batch["attention_mask"])
            if progress is not None:
                progress(min(s + batch_size, len(order)), len(order))
    encoder.train(was_training)
    return out


def masked_doc_text(text: str, masks: Sequence[Span], tokenizer: PreTrainedTokenizerBase) -> str:
    """The document as the doc encoder sees it: masked words as the mask token."""
    return masked_text(text, list(masks), token=str(tokenizer.mask_token))


class DenseModel:
    """The trained bi-encoder against one knowledge base (the ReidModel protocol)."""

    name = KIND

    def __init__(self, enc: Encoders, profiles: Sequence[Person], device: torch.device) -> None:
        self.enc = enc.to(device)
        self.enc.doc.eval()
        self.enc.profile.eval()
        self.device = device
        self.profiles = list(profiles)
        self.profile_ids = [p.id for p in self.profiles]
        self.version = enc.config.version
        self.G = torch.zeros((0, enc.config.dim), device=device)
        # Candidates re-scored exactly per greedy step. Each costs one sequence forward,
        # and the chosen one's states are reused by the next step (see _token_states);
        # 1 keeps a step at one forward, more trade time for slightly fewer masks.
        self.exact_top = 1
        # ...and at least as many as fit in this many tokens per step: a short biography
        # gets a dozen exact re-scores (a poor estimate then masks nothing useless), a
        # 150-word one two or three, which keeps a step near one forward of the document.
        self.exact_tokens = 512
        self._states: dict[str, torch.Tensor] = {}

    @classmethod
    def load(
        cls,
        model_dir: str | os.PathLike[str],
        profiles: Sequence[Person],
        device: str | torch.device | None = None,
        *,
        fingerprint: str | None = None,
    ) -> DenseModel:
        """Load the model and the (cached) embeddings of ``profiles``.

        ``fingerprint`` is ``kb_fingerprint(profiles)`` when the caller already has it."""
        model = cls(load_encoders(model_dir), profiles, pick_device(device))
        model.G = model._profile_embeddings(Path(model_dir), fingerprint)
        return model

    def _profile_embeddings(self, model_dir: Path, fingerprint: str | None = None) -> torch.Tensor:
        fp = kb_fingerprint(self.profiles) if fingerprint is None else fingerprint
        cached = cached_embeddings(model_dir, fp, self.version, self.profile_ids)
        if cached is not None:
            return torch.from_numpy(cached).to(self.device)
        cfg = self.enc.config
        texts = [profile_text(p) for p in self.profiles]
        G = encode_texts(self.enc.profile, self.enc.tokenizer, texts, cfg.max_profile_len)
        store_embeddings(model_dir, fp, G.cpu().numpy(), self.version, self.profile_ids)
        return G

    # ------------------------------------------------------------------ scoring

    def embed(self, texts: Sequence[str], masks: Sequence[Sequence[Span]]) -> torch.Tensor:
        tok = self.enc.tokenizer
        shown = [masked_doc_text(t, m, tok) for t, m in zip(texts, masks, strict=True)]
        return encode_texts(self.enc.doc, tok, shown, self.enc.config.max_doc_len, batch_size=32)

    def scores(self, texts: Sequence[str], masks: Sequence[Sequence[Span]]) -> np.ndarray:
        """``scale · f(x, z)·g(y)`` for every document and profile, float32."""
        if not texts:
            return np.zeros((0, len(self.profile_ids)), dtype=np.float32)
        if len(texts) == 1:
            # The hot path (a greedy step's ranks, the editor's live rank): the masked text
            # is usually one candidate_drops just re-scored, so its token states are cached.
            tok = self.enc.tokenizer
            states = self._token_states([masked_doc_text(texts[0], masks[0], tok)])[0]
            with torch.no_grad():
                emb = nn.functional.normalize(self.enc.doc.proj(states.mean(0)[None]), dim=-1)
                logits = emb @ self.G.T * self.enc.scale
            return logits.cpu().numpy().astype(np.float32)
        logits = self.embed(texts, masks) @ self.G.T * self.enc.scale
        return logits.cpu().numpy().astype(np.float32)

    def links(self, text: str, masks: Sequence[Span], index: int, limit: int = 5) -> list[str]:
        """Profile rows whose value words still appear unmasked in the text."""
        spans = word_spans(text)
        hidden = masked_words(text, list(masks))
        visible = {text[s:e].lower() for (s, e), h in zip(spans, hidden, strict=True) if not h}
        scored: list[tuple[float, int, str]] = []
        for n, row in enumerate(profile_rows(self.profiles[index])):
            _key, _sep, value = row.partition(" || ")
            words = [value[s:e].lower() for s, e in word_spans(value)]
            words = [w for w in words if len(w) > 1 or w.isdigit()]
            if not words:
                continue
            hit = sum(w in visible for w in words) / len(words)
            if hit > 0:
                scored.append((-hit, n, row))
        return [row for _h, _n, row in sorted(scored)[:limit]]

    # ------------------------------------------------------------------ greedy support

    def candidate_drops(
        self,
        text: str,
        masks: Sequence[Span],
        target_index: int,
        candidates: Sequence[Sequence[Span]],
    ) -> np.ndarray:
        """Decrease of ``log p(target)`` if each candidate's spans were also masked.

        One forward pass gives the token states that the mean pooling averages; a
        candidate's drop is estimated by leaving its tokens out of that average (all
        candidates at once, a few matrix products). A first-order gradient estimate was
        tried first and ranked candidates worse (inserting ``[MASK]`` is far from linear).
        Only the ``exact_top`` best estimates are re-scored exactly (one batched forward);
        the others keep their estimate capped just below the smallest exact drop, so the
        greedy search always picks an exactly scored candidate.
        """
        n = len(candidates)
        if n == 0:
            return np.zeros(0, dtype=np.float32)
        tokens = self._word_tokens(text, masks)
        if tokens is None:  # cannot align tokens with words: score every candidate exactly
            return self._exact_drops(text, masks, target_index, candidates).astype(np.float32)
        ids, _attention, word_tok, hidden, spans = tokens
        select = torch.zeros((n, ids.shape[1]), device=self.device)
        live = np.zeros(n, dtype=bool)
        for c, cand in enumerate(candidates):
            new = [w for w, m in enumerate(masked_flags(spans, list(cand))) if m and not hidden[w]]
            toks = [t for w in new for t in word_tok[w]]
            live[c] = bool(new)
            select[c, toks] = 1.0
        tok = self.enc.tokenizer
        states = self._token_states([masked_doc_text(text, masks, tok)])[0]
        if states.shape[0] != ids.shape[1]:  # cannot happen: same tokenizer call
            return self._exact_drops(text, masks, target_index, candidates).astype(np.float32)
        with torch.no_grad():
            total, length = states.sum(0), float(states.shape[0])
            pooled = torch.cat(
                [
                    (total / length)[None],
                    (total - select @ states)
                    / (length - select.sum(1, keepdim=True)).clamp(min=1.0),
                ]
            )
            lp = self._pooled_log_p(pooled, target_index)
        est = (lp[0] - lp[1:]).cpu().numpy().astype(np.float64)
        out = est.copy()
        n_exact = max(self.exact_top, self.exact_tokens // max(1, int(ids.shape[1])))
        order = [c for c in np.argsort(-est, kind="stable") if live[c]][:n_exact]
        if order:
            shown = [masked_doc_text(text, [*masks, *candidates[c]], tok) for c in order]
            with torch.no_grad():
                pooled = torch.stack([st.mean(0) for st in self._token_states(shown)])
                after = self._pooled_log_p(pooled, target_index)
            exact = (lp[0] - after).cpu().numpy().astype(np.float64)
            out[order] = exact
            rest = np.ones(n, dtype=bool)
            rest[order] = False
            out[rest] = np.minimum(est[rest], float(exact.min()) - 1e-3)
        out[~live] = 0.0
        return out.astype(np.float32)

    def _pooled_log_p(self, pooled: torch.Tensor, target: int) -> torch.Tensor:
        emb = nn.functional.normalize(self.enc.doc.proj(pooled), dim=-1)
        return torch.log_softmax(emb @ self.G.T * self.enc.scale, dim=-1)[:, target]

    def _token_states(self, shown: Sequence[str]) -> list[torch.Tensor]:
        """Last hidden states (unpadded) of each masked text, cached by text.

        The greedy search asks next about the text it just masked, which is one of the
        texts re-scored exactly here, so each step usually costs one batched forward.
        """
        tok = self.enc.tokenizer
        # Read into a local table first: another request's thread may evict meanwhile.
        found: dict[str, torch.Tensor] = {}
        missing: list[str] = []
        for t in dict.fromkeys(shown):
            states = self._states.get(t)
            if states is None:
                missing.append(t)
            else:
                found[t] = states
        if missing:
            batch = tok(
                missing,
                padding=True,
                truncation=True,
                max_length=self.enc.config.max_doc_len,
                return_tensors="pt",
            ).to(self.device)
            with torch.no_grad():
                out = self.enc.doc.transformer(
                    input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
                ).last_hidden_state
            for k, t in enumerate(missing):
                found[t] = self._states[t] = out[k, : int(batch["attention_mask"][k].sum())]
            for old in list(self._states)[: max(0, len(self._states) - 64)]:
                self._states.pop(old, None)
        return [found[t] for t in shown]

    def _exact_drops(
        self, text: str, masks: Sequence[Span], target: int, candidates: Sequence[Sequence[Span]]
    ) -> np.ndarray:
        # The current masks ride along in the same batch, so both sides share one code path.
        variants = [list(masks), *[[*masks, *c] for c in candidates]]
        lp = self.log_p([text] * len(variants), variants, target)
        return (lp[0] - lp[1:]).astype(np.float64)

    def _word_tokens(
        self, text: str, masks: Sequence[Span]
    ) -> tuple[torch.Tensor, torch.Tensor, list[list[int]], list[bool], list[Span]] | None:
        """Token ids of the masked text and, for each word of ``text``, its token positions."""
        tok = self.enc.tokenizer
        spans = word_spans(text)
        hidden = masked_flags(spans, list(masks))
        shown = masked_doc_text(text, masks, tok)
        batch = tok(
            shown,
            truncation=True,
            max_length=self.enc.config.max_doc_len,
            return_offsets_mapping=True,
            return_tensors="pt",
        )
        offsets = batch["offset_mapping"][0].tolist()
        # Where each word of ``text`` lands in ``shown`` (masked_text replaces word by word).
        starts: list[int] = []
        shift = 0
        for (s, e), h in zip(spans, hidden, strict=True):
            starts.append(s + shift)
            if h:
                shift += len(str(tok.mask_token)) - (e - s)
        word_tok: list[list[int]] = [[] for _ in spans]
        w = 0
        for t, (a, b) in enumerate(offsets):
            if a == b:
                continue  # special tokens
            while w + 1 < len(spans) and starts[w + 1] <= a:
                w += 1
            if not spans or a < starts[w]:
                continue  # punctuation before the first word
            if hidden[w]:
                continue
            s, e = spans[w]
            if a < starts[w] + (e - s):
                word_tok[w].append(t)
        seen = max((b for _a, b in offsets), default=0)  # words past it were truncated
        if any(not word_tok[i] and not hidden[i] and starts[i] < seen for i in range(len(spans))):
            return None  # an unmasked, untruncated word without tokens: misaligned
        dev = self.device
        return (
            batch["input_ids"].to(dev),
            batch["attention_mask"].to(dev),
            word_tok,
            hidden,
            spans,
        )

    def log_p(
        self, texts: Sequence[str], masks: Sequence[Sequence[Span]], target: int
    ) -> np.ndarray:
        """``log p(target | x, z)`` of each (text, masks) pair."""
        logits = self.embed(texts, masks) @ self.G.T * self.enc.scale
        return torch.log_softmax(logits, dim=-1)[:, target].cpu().numpy()
