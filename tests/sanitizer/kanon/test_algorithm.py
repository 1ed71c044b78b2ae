"""Algorithm 1 (k-anonymity masking) on hand-made posting lists."""

import random
from itertools import combinations

import pytest
from pyroaring import BitMap

from sanitizer.kanon.algorithm import MaskDecision, selection_functions, terms_to_mask
from sanitizer.kanon.index import index_from_postings


def test_rare_term_is_masked_but_unknown_term_is_not() -> None:
    postings = {"albano": [4], "lisbon": range(100), "nowhere": []}
    result = terms_to_mask(["albano", "lisbon", "nowhere"], postings, k=5)
    assert result.masked == ["albano"]
    assert result.decisions["albano"] == MaskDecision("albano", ("albano",), 1)
    # exactly k people: safe
    assert terms_to_mask(["x"], {"x": range(5)}, k=5).masked == []
    assert terms_to_mask(["x"], {"x": range(4)}, k=5).masked == ["x"]


def test_pair_shared_by_fewer_than_k_gets_one_term_masked_greedily() -> None:
    # Lisbon: 10 people, Freamunde: 6 people, both: person 4 only.
    postings = {"lisbon": range(10), "freamunde": [4, 20, 21, 22, 23, 24]}
    result = terms_to_mask(postings.keys(), postings, k=5, selection="greedy")
    assert result.masked == ["freamunde"]  # the shorter posting list
    assert result.decisions["freamunde"].combination == ("freamunde", "lisbon")
    assert result.decisions["freamunde"].count == 1
    assert result.decisions["freamunde"].explain() == "freamunde + lisbon → 1 person"


def test_empty_or_large_intersections_are_safe() -> None:
    postings = {"a": range(0, 10), "b": range(10, 20), "c": range(0, 20)}
    # a∩b = ∅, a∩c = 10, b∩c = 10, a∩b∩c = ∅
    assert terms_to_mask(postings.keys(), postings, k=5).masked == []


def test_triple_breach_needs_arity_three() -> None:
    # every pair shares ≥ 5 people but only person 0 has all three
    a = [0, *range(1, 6), *range(6, 11)]
    b = [0, *range(1, 6), *range(11, 16)]
    c = [0, *range(6, 11), *range(11, 16)]
    postings = {"a": a, "b": b, "c": c}
    assert terms_to_mask(postings.keys(), postings, k=5, max_arity=2).masked == []
    res = terms_to_mask(postings.keys(), postings, k=5, max_arity=3)
    assert len(res.masked) == 1
    assert res.decisions[res.masked[0]].combination == ("a", "b", "c")
    assert res.decisions[res.masked[0]].count == 1


def test_random_selection_is_seeded() -> None:
    postings = {"lisbon": range(10), "freamunde": [4, 20, 21, 22, 23, 24]}
    picks = {
        tuple(terms_to_mask(postings.keys(), postings, k=5, selection="random", seed=s).masked)
        for s in range(30)
    }
    assert picks == {("lisbon",), ("freamunde",)}
    one = terms_to_mask(postings.keys(), postings, k=5, selection="random", seed=7).masked
    assert terms_to_mask(postings.keys(), postings, k=5, selection="random", seed=7).masked == one


def test_known_terms_are_never_masked() -> None:
    postings = {"lisbon": range(10), "freamunde": [4, 20, 21, 22, 23, 24]}
    res = terms_to_mask(["lisbon"], postings, k=5, known_terms=["freamunde"])
    assert res.masked == ["lisbon"]
    # a breach made only of known facts cannot be fixed by masking the text: reported
    postings["writer"] = range(100)
    res = terms_to_mask(["writer"], postings, k=5, known_terms=["freamunde", "lisbon"])
    assert res.masked == [] and res.unresolved == [(("freamunde", "lisbon"), 1)]


def test_works_on_an_inverted_index_too() -> None:
    index = index_from_postings({"Lisbon": range(10), "Freamunde": [4, 20, 21, 22, 23, 24]})
    assert terms_to_mask(["lisbon", "freamunde"], index, k=5).masked == ["freamunde"]


def test_registry_lists_selection_functions() -> None:
    assert selection_functions.names() == ["greedy", "random"]
    with pytest.raises(KeyError, match="unknown selection function"):
        terms_to_mask(["a"], {"a": [1]}, selection="nope")


@pytest.mark.parametrize("selection", ["greedy", "random"])
def test_after_masking_every_combination_is_k_anonymous_or_empty(selection: str) -> None:
    rng = random.Random(3)
    for trial in range(40):
        n_people, k, max_arity = 60, rng.choice([2, 3, 5]), rng.choice([2, 3])
        postings = {
            f"t{i}": BitMap(rng.sample(range(n_people), rng.randint(1, 30))) for i in range(9)
        }
        res = terms_to_mask(
            postings, postings, k=k, max_arity=max_arity, selection=selection, seed=trial
        )
        kept = [t for t in postings if t not in res.masked]
        for arity in range(1, max_arity + 1):
            for combo in combinations(kept, arity):
                inter = BitMap.intersection(*(postings[t] for t in combo))
                assert len(inter) == 0 or len(inter) >= k, (combo, len(inter))
        # every masked term is explained by a breaching combination containing it
        for term in res.masked:
            dec = res.decisions[term]
            assert term in dec.combination and 1 <= dec.count < k
            assert len(BitMap.intersection(*(postings[t] for t in dec.combination))) == dec.count
