"""The masked-LM surprisal scorer and its trainer, on a tiny BERT built locally."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import torch
from django.core.management import call_command
from transformers import AutoTokenizer, BertConfig, BertForMaskedLM, BertModel

from sanitizer.risk import RiskDocument, RiskEntity
from sanitizer.risk.mlm import MaskedLMScorer, assign_windows, pick_device, window_starts
from sanitizer.risk.options import RiskOptions, RiskOptionsError
from sanitizer.risk.pipeline import RiskMasker
from sanitizer.risk.surprisal import make_scorer
from sanitizer.training.config import default_base_model
from sanitizer.training.mlm import MLMTrainingConfig, train_masked_lm
from sanitizer.types import EntitySpan

TEXT = (
    "The applicant, Mr Cengiz Polat, was born in 1962 and lives in Mardin. "
    "He worked as a teacher in Paris before his arrest on 26 November 1996."
)


def tiny_config(tokenizer: object) -> BertConfig:
    return BertConfig(
        vocab_size=len(tokenizer),  # type: ignore[arg-type]
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )


@pytest.fixture(scope="module")
def tokenizer() -> object:
    return AutoTokenizer.from_pretrained(default_base_model(), local_files_only=True)


def save_tiny(factory: pytest.TempPathFactory, tokenizer: Any, model_class: Any, seed: int) -> Path:
    """A 2-layer BERT with MiniLM's vocabulary, saved with its tokenizer like a real model."""
    torch.manual_seed(seed)
    path = factory.mktemp(model_class.__name__)
    model_class(tiny_config(tokenizer)).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def tiny_mlm(tmp_path_factory: pytest.TempPathFactory, tokenizer: object) -> Path:
    """A masked LM (random head)."""
    return save_tiny(tmp_path_factory, tokenizer, BertForMaskedLM, 0)


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory: pytest.TempPathFactory, tokenizer: object) -> Path:
    """A bare encoder (no MLM head), like the bundled MiniLM."""
    return save_tiny(tmp_path_factory, tokenizer, BertModel, 1)


def span(text: str, word: str, label: str = "LOC") -> EntitySpan:
    start = text.index(word)
    return EntitySpan(start=start, end=start + len(word), label=label, text=word)


def document(text: str, words: list[str]) -> RiskDocument:
    entities = [
        RiskEntity(entity_id=f"e{i}", label="LOC", mentions=(span(text, w),))
        for i, w in enumerate(words, 1)
    ]
    return RiskDocument(doc_id="d1", text=text, entities=entities)


@pytest.mark.parametrize(("n", "content", "stride"), [(1, 30, 10), (30, 30, 10), (517, 30, 12)])
def test_windows_cover_every_token_and_prefer_the_centre(n: int, content: int, stride: int) -> None:
    starts, owner = assign_windows(n, content, stride)
    assert starts == window_starts(n, content, stride)
    assert len(owner) == n
    for p, w in enumerate(owner):
        assert starts[w] <= p < starts[w] + content
        if n > content:
            # The owner gives at least (content − stride) / 2 tokens of context on each side,
            # except at the document's ends.
            margin = (content - stride) // 2
            assert p - starts[w] >= min(margin, p)
            assert starts[w] + content - 1 - p >= min(margin, n - 1 - p)


def test_scores_are_per_entity_nats(tiny_mlm: Path) -> None:
    scorer = MaskedLMScorer(model=str(tiny_mlm), window=16, stride=6)
    doc = document(TEXT, ["Cengiz Polat", "Mardin", "Paris", "26 November 1996"])
    scores = scorer.entity_surprisals(doc)
    assert set(scores) == {"e1", "e2", "e3", "e4"}
    for value in scores.values():
        assert math.isfinite(value.total) and 0 < value.peak <= value.total
    tokens = scorer.score_tokens(TEXT, [(m.start, m.end) for e in doc.entities for m in e.mentions])
    # An untrained model is close to uniform: about ln |V| nats per masked sub-word token.
    vocab = math.log(len(scorer.tokenizer))
    assert all(v == pytest.approx(vocab, rel=0.3) for v in tokens.nats.values())
    # The total sums the entity's tokens; the peak is its worst *word* (pieces summed).
    date = span(TEXT, "26 November 1996")
    inside = [i for i, (a, b) in enumerate(tokens.offsets) if a >= date.start and b <= date.end]
    assert scores["e4"].total == pytest.approx(sum(tokens.nats[i] for i in inside))
    words: dict[int | None, float] = {}
    for i in inside:
        words[tokens.words[i]] = words.get(tokens.words[i], 0.0) + tokens.nats[i]
    assert len(words) == 3 and scores["e4"].peak == pytest.approx(max(words.values()))
    assert scorer.entity_surprisals(doc) is scores  # cached per document


def test_every_entity_token_is_masked_in_the_model_input(tiny_mlm: Path) -> None:
    scorer = MaskedLMScorer(model=str(tiny_mlm), window=16, stride=6, block_attention=False)
    seen: list[torch.Tensor] = []
    hook = scorer.model.base_model.register_forward_pre_hook(
        lambda _m, args, kwargs: seen.append(kwargs["input_ids"].clone()), with_kwargs=True
    )
    try:
        scores = scorer.score_tokens(TEXT, [(span(TEXT, "Mardin").start, span(TEXT, "Paris").end)])
    finally:
        hook.remove()
    inputs = torch.cat([row for batch in seen for row in batch])
    entity_ids = {
        scorer.tokenizer(w, add_special_tokens=False)["input_ids"][0] for w in ("mardin", "paris")
    }
    assert not any(int(t) in entity_ids for t in inputs.flatten())
    assert (inputs == scorer.tokenizer.mask_token_id).any()
    assert set(scores.nats) == {i for i, m in enumerate(scores.masked) if m}


def test_an_entity_score_does_not_depend_on_the_other_entities_words(tiny_mlm: Path) -> None:
    scorer = MaskedLMScorer(model=str(tiny_mlm), window=16, stride=6)
    paris = scorer.entity_surprisals(document(TEXT, ["Mardin", "Paris"]))
    other = TEXT.replace("Paris", "Rome!")  # same length, same token count
    rome = scorer.entity_surprisals(document(other, ["Mardin", "Rome!"]))
    assert paris["e1"] == rome["e1"]
    assert paris["e2"] != rome["e2"]


def test_the_pipeline_reads_the_mlm_for_lm_and_ic(tiny_mlm: Path) -> None:
    options = RiskOptions(measures=("lm",), mlm=str(tiny_mlm), threshold=5.0)
    masker = RiskMasker(options)
    assert masker.scorer.name == "mlm"
    spans = [span(TEXT, "Mardin"), span(TEXT, "Paris"), span(TEXT, "Cengiz Polat", "PERSON")]
    assessment = masker.assess("d1", TEXT, spans)
    expected = masker.scorer.entity_surprisals(assessment.document)
    assert assessment.ic == {eid: s.total for eid, s in expected.items()}
    # ~10 nats per token of an untrained model: every quasi identifier is risky at 5 nats.
    assert {m.text for m in assessment.masked_spans()} == {"Mardin", "Paris", "Cengiz Polat"}
    assert any(
        "LM: log p" in r["text"] for s in assessment.masked_spans() for r in s.attrs["reasons"]
    )


def test_options_refuse_what_cannot_load(tmp_path: Path) -> None:
    for missing in (str(tmp_path), str(tmp_path / "absent"), "no-such-org/no-such-model"):
        with pytest.raises(RiskOptionsError, match="neither a masked-LM directory"):
            RiskOptions(mlm=missing).validate()
    with pytest.raises(RiskOptionsError, match="needs a model"):
        RiskOptions(scorer="mlm").validate()
    with pytest.raises(RiskOptionsError, match="stride"):
        RiskOptions(mlm_window=16, mlm_stride=15).validate()
    with pytest.raises(ValueError, match="model=PATH"):
        make_scorer("mlm")


def test_train_masked_lm_saves_a_model_that_scores(tiny_encoder: Path, tmp_path: Path) -> None:
    texts = [TEXT, TEXT.replace("Mardin", "Izmir"), "The court held that there was a violation."]
    config = MLMTrainingConfig(
        base_model=str(tiny_encoder), max_steps=2, batch_size=2, block_size=16
    )
    summary = train_masked_lm(texts, tmp_path / "out", config)
    assert summary.steps == 2 and len(summary.losses) == 2
    assert summary.heldout_documents == 1 and summary.heldout_after is not None
    assert 0 <= summary.heldout_after.top1 <= summary.heldout_after.top5 <= 1
    saved = json.loads((tmp_path / "out" / "mlm_summary.json").read_text())
    assert saved["steps"] == 2 and saved["heldout_after"]["tokens"] > 0
    scorer = make_scorer("mlm", model=str(tmp_path / "out"), window=16, stride=6)
    scores = scorer.entity_surprisals(document(TEXT, ["Mardin"]))
    assert math.isfinite(scores["e1"].total) and scores["e1"].total > 0


def test_train_mlm_command(tiny_encoder: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs.json"
    docs.write_text(json.dumps([{"doc_id": str(i), "text": TEXT} for i in range(3)]))
    out = tmp_path / "model"
    call_command(
        "train_mlm",
        "--input", str(docs),
        "--output", str(out),
        "--base-model", str(tiny_encoder),
        "--max-steps", "1",
        "--batch-size", "2",
    )  # fmt: skip
    assert (out / "config.json").is_file() and (out / "mlm_summary.json").is_file()
    assert RiskOptions(mlm=str(out)).validate().scorer_spec()[0] == "mlm"


def test_pick_device_takes_a_name_a_device_or_none_for_the_best() -> None:
    best = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    assert pick_device() == pick_device("auto") == pick_device(None) == best
    assert pick_device("cpu") == pick_device(torch.device("cpu")) == torch.device("cpu")
