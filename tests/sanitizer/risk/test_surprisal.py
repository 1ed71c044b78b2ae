"""The context-free surprisal scorer behind the lm measure and the solver's IC."""

from __future__ import annotations

import math

import pytest

from sanitizer.risk.surprisal import WordfreqScorer, make_scorer, surprisal_scorers


def test_rare_words_are_more_surprising_than_common_ones() -> None:
    scorer = WordfreqScorer()
    assert scorer.peak("Şanlıurfa") > scorer.peak("Istanbul") > scorer.peak("the court")
    # Unknown words get the floor probability.
    assert scorer.peak("xqzvw") == pytest.approx(-math.log(scorer.floor))


def test_numbers_are_uniform_over_their_length() -> None:
    scorer = WordfreqScorer()
    assert scorer.peak("1996") == pytest.approx(4 * math.log(10))
    assert scorer.peak("26") == pytest.approx(2 * math.log(10))


def test_ic_sums_the_tokens_and_peak_takes_the_most_surprising() -> None:
    scorer = WordfreqScorer()
    tokens = scorer.token_surprisals("26 November 1996")
    assert [t.token for t in tokens] == ["26", "november", "1996"]
    assert scorer.information_content("26 November 1996") == pytest.approx(
        sum(t.nats for t in tokens)
    )
    assert scorer.peak("26 November 1996") == pytest.approx(max(t.nats for t in tokens))
    assert scorer.information_content("") == 0.0 and scorer.peak("") == 0.0


def test_background_documents_make_their_vocabulary_predictable_except_their_own() -> None:
    background = [("a", "assize assize assize court"), ("b", "assize court")]
    scorer = WordfreqScorer(background)
    plain = WordfreqScorer()
    assert scorer.peak("assize") < plain.peak("assize")
    # The word counts of the scored document itself never count.
    assert scorer.peak("assize", exclude="a") > scorer.peak("assize")
    only = WordfreqScorer([("a", "zzyzxq")])
    assert only.peak("zzyzxq", exclude="a") == pytest.approx(plain.peak("zzyzxq"))


def test_scorers_are_registered_by_name() -> None:
    assert "wordfreq" in surprisal_scorers
    assert isinstance(make_scorer("wordfreq", [("a", "text")]), WordfreqScorer)
    with pytest.raises(KeyError, match="wordfreq"):
        make_scorer("bert")
    with pytest.raises(ValueError):
        WordfreqScorer(floor=0)
