"""Information content of entities: how surprising their words are (seed 001, §3.2.1).

A *surprisal scorer* turns a text into per-token surprisals in nats (−ln p). Scorers are
registered by name in :data:`surprisal_scorers` and built with
``make_scorer(name, background=texts, **options)``; the ``lm`` risk measure and the
solver's IC both read the same scorer, so swapping it changes both consistently.

``wordfreq`` (the default, and so far the only one) is a *context-free* fallback for a
masked language model, which no package ships offline:

* a word's probability is the larger of its English frequency (the ``wordfreq``
  package) and its frequency in the background documents (the other documents of the
  collection; never the document being scored), so the vocabulary of the domain ("court",
  "prosecutor", "assize") counts as predictable, as it would be in context;
* a number is modelled as a uniformly chosen value of its length: an n-digit number has
  probability 10^−n. A language model in context knows that a year or a day goes there
  but not which one; English corpus frequencies would call "1996" a common word;
* unknown words get the floor probability ``floor``.

A masked-LM scorer (contextual, over a local model directory) can be registered here
later under another name; none is faked.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import wordfreq

from sanitizer.registry import Registry

DEFAULT_SCORER = "wordfreq"
DEFAULT_FLOOR = 1e-9
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class TokenSurprisal:
    """One token of a text and its surprisal in nats."""

    token: str
    nats: float


class SurprisalScorer:
    """Interface of a scorer: ``token_surprisals(text)`` in nats, summaries derived from it."""

    name = "abstract"

    def token_surprisals(self, text: str, *, exclude: str | None = None) -> list[TokenSurprisal]:
        """Surprisal of each token of ``text``.

        ``exclude`` names a background document whose own words must not make ``text``
        look predictable (the document the text comes from).
        """
        raise NotImplementedError

    def peak(self, text: str, *, exclude: str | None = None) -> float:
        """The surprisal of the most surprising token: how identifying the text can be."""
        return max((t.nats for t in self.token_surprisals(text, exclude=exclude)), default=0.0)

    def information_content(self, text: str, *, exclude: str | None = None) -> float:
        """IC = −ln p(text) = Σ token surprisals (seed 001's IC for the solver)."""
        return sum(t.nats for t in self.token_surprisals(text, exclude=exclude))


surprisal_scorers: Registry[Callable[..., SurprisalScorer]] = Registry("surprisal scorer")


@surprisal_scorers.register("wordfreq")
class WordfreqScorer(SurprisalScorer):
    """Context-free surprisal from word frequencies (see the module docstring)."""

    name = "wordfreq"

    def __init__(
        self,
        background: Iterable[tuple[str, str]] = (),
        *,
        lang: str = "en",
        floor: float = DEFAULT_FLOOR,
    ) -> None:
        """``background``: ``(doc_id, text)`` pairs whose word counts make domain words cheap."""
        if not 0 < floor < 1:
            raise ValueError(f"floor must be in (0, 1), got {floor}")
        self.lang = lang
        self.floor = floor
        self._doc_counts: dict[str, Counter[str]] = {}
        self._doc_sizes: dict[str, int] = {}
        self._total: Counter[str] = Counter()
        for doc_id, text in background:
            counts = Counter(self.tokenize(text))
            self._doc_counts[doc_id] = counts
            self._doc_sizes[doc_id] = sum(counts.values())
            self._total.update(counts)
        self._n_tokens = sum(self._total.values())
        self._general: dict[str, float] = {}

    def tokenize(self, text: str) -> list[str]:
        """wordfreq's tokenisation (lower-cased words and numbers)."""
        return list(wordfreq.tokenize(text, self.lang))

    def _general_p(self, token: str) -> float:
        p = self._general.get(token)
        if p is None:
            p = wordfreq.word_frequency(token, self.lang)
            self._general[token] = p
        return p

    def probability(self, token: str, *, exclude: str | None = None) -> float:
        """p(token): numbers uniform over their length, else max(English, background)."""
        if _DIGITS.fullmatch(token):
            return max(10.0 ** -len(token), self.floor)
        p = self._general_p(token)
        if self._n_tokens:
            key = exclude or ""
            n = self._n_tokens - self._doc_sizes.get(key, 0)
            if n > 0:
                own = self._doc_counts[key][token] if key in self._doc_counts else 0
                p = max(p, (self._total[token] - own) / n)
        return max(p, self.floor)

    def token_surprisals(self, text: str, *, exclude: str | None = None) -> list[TokenSurprisal]:
        return [
            TokenSurprisal(tok, -math.log(self.probability(tok, exclude=exclude)))
            for tok in self.tokenize(text)
        ]


def make_scorer(
    name: str = DEFAULT_SCORER, background: Sequence[tuple[str, str]] = (), **options: object
) -> SurprisalScorer:
    """Build the registered scorer ``name`` (``KeyError`` lists the known ones)."""
    return surprisal_scorers.get(name)(background, **options)
