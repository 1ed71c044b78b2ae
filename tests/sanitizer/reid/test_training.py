"""Training the dense re-identifier: the mask prior, held-out split, and that it learns."""

import json
import random
from pathlib import Path

import numpy as np
import torch

from sanitizer.kanon.synthetic import SyntheticPeople
from sanitizer.reid.base import ReidDocument
from sanitizer.reid.dense import DenseModel, create_untrained
from sanitizer.reid.training import (
    eval_masks,
    prior_masks,
    random_masks,
    split_by_person,
    train_dense,
)
from sanitizer.reid.words import masked_words, word_spans

torch.set_num_threads(2)
TEXT = "Ana Silva was born in Braga. Silva studied in Braga and in Porto, then left Braga."


def test_prior_masks_cover_whole_words_and_all_occurrences() -> None:
    rng = random.Random(0)
    words = [TEXT[s:e].lower() for s, e in word_spans(TEXT)]
    n_distinct = len(set(words))
    shares, counts = [], set()
    for _ in range(400):
        masks = prior_masks(TEXT, rng)
        flags = masked_words(TEXT, masks)
        assert set(masks) <= set(word_spans(TEXT))
        chosen = {w for w, f in zip(words, flags, strict=True) if f}
        # every occurrence of a chosen word is masked
        assert all(f == (w in chosen) for w, f in zip(words, flags, strict=True))
        counts.add(len(chosen))
        shares.append(len(chosen) / n_distinct)
    assert counts == set(range(n_distinct + 1))  # l ~ U(0, M): every count is drawn
    assert abs(np.mean(shares) - 0.5) < 0.06


def test_random_masks_are_seed_fixed_and_sized() -> None:
    masks = random_masks(TEXT, 0.3, random.Random(1))
    assert len(masks) == round(0.3 * len(word_spans(TEXT)))
    docs = [ReidDocument("a", TEXT, "p1"), ReidDocument("b", TEXT, "p2")]
    assert eval_masks(docs, 0.3, seed=0) == eval_masks(docs, 0.3, seed=0)
    assert eval_masks(docs[::-1], 0.3, seed=0) == eval_masks(docs, 0.3, seed=0)[::-1]
    assert eval_masks(docs, 0.0) == [[], []]


def test_split_keeps_people_apart() -> None:
    docs = [ReidDocument(f"d{i}", TEXT, f"p{i % 10}") for i in range(30)]
    train, held = split_by_person(docs, 0.2, seed=0)
    assert len(train) + len(held) == 30
    assert not {d.target for d in train} & {d.target for d in held}
    assert len({d.target for d in held}) == 2


def _mean_log_p(model: DenseModel, docs: list[ReidDocument]) -> float:
    masks = eval_masks(docs, 0.5, seed=3)
    S = torch.from_numpy(model.scores([d.text for d in docs], masks))
    lp = torch.log_softmax(S, dim=-1)
    index = {pid: n for n, pid in enumerate(model.profile_ids)}
    return float(np.mean([float(lp[n, index[d.target]]) for n, d in enumerate(docs)]))


def test_training_improves_on_the_untrained_model(tmp_path: Path) -> None:
    gen = SyntheticPeople(6)
    recs = list(gen.people(0, 30))
    persons = [gen.to_person(i, r) for i, r in recs]
    docs = [ReidDocument(f"d{i}", gen.biography(i, r), gen.person_id(i)) for i, r in recs]
    seen: list[str] = []
    result = train_dense(
        persons,
        docs,
        tmp_path / "m",
        epochs=3,
        profile_epochs=1,
        dim=64,
        batch_size=9,
        lr=3e-4,
        heldout=0.2,
        warmup_steps=1,
        progress=lambda d, t, msg: seen.append(msg),
    )
    assert [h["phase"] for h in result.history] == ["document", "profile", "document"]
    assert all(h["loss"] is not None and h["loss"] > 0 for h in result.history)
    m = result.metrics
    assert m["n_train"] == 24 and m["n_heldout"] == 6 and m["n_profiles"] == 30
    assert {"top1_unmasked", "top10_unmasked", "top1_masked30", "top10_masked30"} <= set(m)
    stored = json.loads((tmp_path / "m" / "reid.json").read_text())
    assert stored["metrics"] == m and stored["version"] == result.version
    assert stored["training"]["epochs"] == 3 and any("epoch done" in s for s in seen)
    create_untrained(tmp_path / "u", dim=64)
    train_docs, _held = split_by_person(docs, 0.2, seed=0)  # the split train_dense used
    trained = _mean_log_p(DenseModel.load(tmp_path / "m", persons), train_docs)
    untrained = _mean_log_p(DenseModel.load(tmp_path / "u", persons), train_docs)
    # the training people's (half-masked) documents are more likely under the trained model
    assert trained > untrained + 0.05, (trained, untrained)
