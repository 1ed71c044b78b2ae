"""The dense bi-encoder: model directory, cached profile embeddings, scores, candidate drops."""

from pathlib import Path

import numpy as np
import pytest
import torch

from sanitizer.kanon.kb import Person
from sanitizer.kanon.synthetic import SyntheticPeople
from sanitizer.reid import dense as dense_mod
from sanitizer.reid.base import SupportsCandidateDrops, build_model, rank_of
from sanitizer.reid.dense import (
    DenseModel,
    create_untrained,
    load_encoders,
    precompute_embeddings,
)
from sanitizer.reid.embedding_cache import embeddings_cached
from sanitizer.reid.profiles import kb_fingerprint

torch.set_num_threads(2)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("dense")
    create_untrained(d, dim=96)
    return d


@pytest.fixture(scope="module")
def people() -> tuple[SyntheticPeople, list[tuple[int, dict]], list[Person]]:
    gen = SyntheticPeople(4)
    recs = list(gen.people(0, 40))
    return gen, recs, [gen.to_person(i, r) for i, r in recs]


def test_model_dir_round_trips(model_dir: Path) -> None:
    enc = load_encoders(model_dir)
    assert enc.config.dim == 96 and enc.config.version.startswith("dense-")
    assert {p.name for p in model_dir.iterdir()} >= {
        "reid.json",
        "doc_encoder",
        "profile_encoder",
        "projection.pt",
    }
    assert enc.doc.proj.out_features == enc.profile.proj.out_features == 96
    assert enc.scale == pytest.approx(20.0)


def test_profile_embeddings_are_cached_per_kb(model_dir: Path, people, monkeypatch) -> None:
    _gen, _recs, persons = people
    model = DenseModel.load(model_dir, persons[:30])
    cached = model_dir / "profiles" / f"{kb_fingerprint(persons[:30])}.npy"
    assert cached.is_file()
    assert np.allclose(np.load(cached), model.G.numpy())

    def refuse(*args, **kwargs):
        raise AssertionError("profile embeddings recomputed")

    monkeypatch.setattr(dense_mod, "encode_texts", refuse)
    again = DenseModel.load(model_dir, persons[:30])
    assert torch.equal(again.G, model.G)
    monkeypatch.undo()
    DenseModel.load(model_dir, persons[10:40])  # another KB gets its own file
    assert len(list((model_dir / "profiles").glob("*.npy"))) == 2


def test_scores_rank_the_named_person_first(model_dir: Path, people) -> None:
    gen, recs, persons = people
    model = build_model("dense", persons, model_dir=str(model_dir))
    assert model.name == "dense" and model.profile_ids == [p.id for p in persons]
    texts = [gen.biography(i, r) for i, r in recs[:10]]
    S = model.scores(texts, [[] for _ in texts])
    assert S.shape == (10, 40) and S.dtype == np.float32
    # even untrained (pretrained sentence similarity) most biographies find their person
    assert sum(rank_of(S[n], n) == 1 for n in range(10)) >= 7
    with pytest.raises(ValueError, match="model_dir"):
        build_model("dense", persons)


def test_links_name_visible_profile_rows(model_dir: Path, people) -> None:
    _gen, recs, persons = people
    model = DenseModel.load(model_dir, persons)
    _i, rec = recs[0]
    text = f"{rec['name']} was born in {rec['attributes']['place of birth'][0]}."
    links = model.links(text, [], 0)
    assert f"name || {rec['name']}" in links
    name_end = len(rec["name"])
    assert not any(row.startswith("name ||") for row in model.links(text, [(0, name_end)], 0))


def test_candidate_drops_agree_with_exact_rescoring(model_dir: Path, people) -> None:
    gen, recs, persons = people
    model = DenseModel.load(model_dir, persons)
    i, rec = recs[3]
    text = gen.biography(i, rec)
    assert isinstance(model, SupportsCandidateDrops)
    words: dict[str, list[tuple[int, int]]] = {}
    for s, e in dense_mod.word_spans(text):
        words.setdefault(text[s:e].lower(), []).append((s, e))
    candidates = list(words.values())
    exact = model._exact_drops(text, [], 3, candidates)
    model.exact_top = 3
    drops = model.candidate_drops(text, [], 3, candidates)
    top = np.argsort(-drops)[:3]
    assert np.allclose(drops[top], exact[top], atol=1e-4)
    rest = np.setdiff1d(np.arange(len(candidates)), top)
    assert drops[rest].max() < drops[top].min()
    # the first-order estimates alone order candidates like the exact drops
    model.exact_top = 0
    est = model.candidate_drops(text, [], 3, candidates)
    assert np.corrcoef(est, exact)[0, 1] > 0.3
    assert exact[int(np.argmax(est))] >= np.sort(exact)[-5]
    # an already masked candidate changes nothing
    first = candidates[0]
    assert model.candidate_drops(text, first, 3, [first])[0] == 0.0


def test_embeddings_cached_answers_without_loading_and_precompute_stores_them(
    model_dir: Path, people
) -> None:
    _gen, _recs, persons = people
    kb = persons[5:25]
    assert not embeddings_cached(model_dir, kb)
    assert precompute_embeddings(model_dir, kb)
    assert embeddings_cached(model_dir, kb)
    # The same people in another order are another candidate list: not the stored one.
    assert not embeddings_cached(model_dir, kb[::-1])
    # Embeddings of other weights (a retrained model, new version) do not count.
    reid_json = model_dir / "reid.json"
    saved = reid_json.read_text(encoding="utf-8")
    reid_json.write_text(saved.replace('"version": "dense-', '"version": "other-'), "utf-8")
    try:
        assert not embeddings_cached(model_dir, kb)
    finally:
        reid_json.write_text(saved, encoding="utf-8")


def test_a_given_fingerprint_is_used_as_is(model_dir: Path, people) -> None:
    _gen, _recs, persons = people
    kb = persons[3:13]
    fp = kb_fingerprint(kb)
    model = DenseModel.load(model_dir, kb, fingerprint=fp)
    assert (model_dir / "profiles" / f"{fp}.npy").is_file()
    assert embeddings_cached(model_dir, kb, fingerprint=fp)
    assert embeddings_cached(model_dir, kb) == embeddings_cached(model_dir, kb, fingerprint=fp)
    # The fingerprint names the stored file: another one finds nothing stored.
    assert not embeddings_cached(model_dir, kb, fingerprint="0" * 16)
    again = build_model("dense", kb, model_dir=str(model_dir), fingerprint=fp)
    assert torch.equal(again.G, model.G)  # type: ignore[attr-defined]
