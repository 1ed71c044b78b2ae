"""Token weighting schemes and their registry."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sanitizer.evaluation import (
    TokenWeighting,
    UniformWeighting,
    UnigramWeighting,
    make_weighting,
    token_weightings,
)


def test_registry_names_and_errors() -> None:
    assert {"uniform", "corpus_unigram", "masked_lm"} <= set(token_weightings.names())
    with pytest.raises(KeyError, match="known"):
        token_weightings.get("nope")
    with pytest.raises(ValueError, match="model_path"):
        make_weighting("masked_lm", [])

    def another_uniform(texts: list[str]) -> TokenWeighting:
        return UniformWeighting()

    with pytest.raises(ValueError, match="already registered"):
        token_weightings.register("uniform")(another_uniform)


def test_corpus_unigram_information() -> None:
    w = make_weighting("corpus_unigram", ["a a b", "c"])
    assert isinstance(w, UnigramWeighting)
    # counts a:2 b:1 c:1, N=4, V=3; add-one with an unseen slot: norm = 4 + (3 + 1) = 8
    assert w.information("A") == pytest.approx(-math.log(3 / 8))
    assert w.information("b") == pytest.approx(-math.log(2 / 8))
    assert w.information("zzz") == pytest.approx(-math.log(1 / 8))
    text = "b a, zzz"
    # span "b a" weighs as its rarest token (b); a span without a word weighs 0
    assert w.weights(text, [(0, 3), (3, 4), (5, 8)]) == pytest.approx(
        [-math.log(2 / 8), 0.0, -math.log(1 / 8)]
    )


def test_uniform() -> None:
    assert make_weighting("uniform", []).weights("ab cd", [(0, 2), (3, 5)]) == [1.0, 1.0]


def _tiny_mlm(path: Path) -> None:
    """Save a randomly initialised 1-layer BERT masked LM and its tokenizer to ``path``.

    In transformers 5, ``BertTokenizer`` is the fast (offset-mapping) tokenizer.
    """
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    words = ["anna", "berg", "met", "olav", "in", "bergen", ".", "the"]
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    BertTokenizer(vocab_file=str(path / "vocab.txt")).save_pretrained(path)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    BertForMaskedLM(cfg).save_pretrained(path)


def test_masked_lm_weighting_matches_direct_model_call(tmp_path: Path) -> None:
    import torch

    _tiny_mlm(tmp_path)
    w = make_weighting("masked_lm", [], model_path=str(tmp_path))
    text = "Anna Berg met Olav in Bergen."
    spans = [(0, 4), (14, 18), (13, 14)]  # "Anna", "Olav", a space (no sub-word)
    weights = w.weights(text, spans)
    # Independent computation: [CLS] [MASK] berg met [MASK] in bergen . [SEP]
    tok = w.tokenizer  # type: ignore[attr-defined]
    model = w.model  # type: ignore[attr-defined]
    ids = tok(text)["input_ids"]
    masked = list(ids)
    masked[1] = masked[4] = tok.mask_token_id
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=torch.tensor([masked])).logits[0], dim=-1)
    expected = [-logp[1, ids[1]].item(), -logp[4, ids[4]].item(), 0.0]
    assert weights == pytest.approx(expected, abs=1e-5)
    assert weights[0] > 0
    # Short segments still give one finite weight per span.
    short = make_weighting("masked_lm", [], model_path=str(tmp_path), max_segment=4)
    seg_weights = short.weights(text, spans)
    assert len(seg_weights) == 3
    assert all(math.isfinite(x) and x >= 0 for x in seg_weights)
