"""Information content of entities: how surprising their words are (seed 001, §3.2.1).

A *surprisal scorer* turns a text into per-token surprisals in nats (−ln p). Scorers are
registered by name in :data:`surprisal_scorers` and built with
``make_scorer(name, background=texts, **options)``; the ``lm`` risk measure and the
solver's IC both read the same scorer, so swapping it changes both consistently.

``wordfreq`` (the default) is a *context-free* fallback for a
masked language model, which no package ships offline:

* a word's probability is the larger of its English frequency (the ``wordfreq``
  package) and its frequency in the background documents (the other documents of the
  collection; never the document being scored), so the vocabulary of the domain ("court",
  "prosecutor", "assize") counts as predictable, as it would be in context;
* a number is modelled as a uniformly chosen value of its length: an n-digit number has
  probability 10^−n. A language model in context knows that a year or a day goes there
  but not which one; English corpus frequencies would call "1996" a common word;
* unknown words get the floor probability ``floor``.

``mlm`` (:mod:`sanitizer.risk.mlm`, built with ``model=PATH``) is the contextual scorer:
a masked language model reads each entity in its document with all entities masked. Both
give :meth:`SurprisalScorer.entity_surprisals`, which the ``lm`` measure and the solver's IC
read; torch and transformers are imported only when ``mlm`` is built.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import wordfreq

from sanitizer.registry import Registry
from sanitizer.risk import RiskDocument
from sanitizer.risk.entities import entity_text

DEFAULT_SCORER = "wordfreq"
DEFAULT_FLOOR = 1e-9
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class TokenSurprisal:
    """One token of a text and its surprisal in nats."""

    token: str
    nats: float


@dataclass(frozen=True)
class EntitySurprisal:
    """An entity's surprisal in nats: ``total`` = −ln p(entity) (its IC), ``peak`` = that
    of its most surprising word (the ``lm`` measure's risk score)."""

    total: float
    peak: float


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

    def entity_surprisals(self, document: RiskDocument) -> dict[str, EntitySurprisal]:
        """Surprisal of every entity of ``document``, by entity id.

        Context-free default: the entity's longest mention as text, the document's own
        words excluded from the background. Contextual scorers read the document.
        """
        out: dict[str, EntitySurprisal] = {}
        for entity in document.entities:
            nats = [
                t.nats for t in self.token_surprisals(entity_text(entity), exclude=document.doc_id)
            ]
            out[entity.entity_id] = EntitySurprisal(total=sum(nats), peak=max(nats, default=0.0))
        return out


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


@surprisal_scorers.register("mlm")
def _masked_lm_scorer(
    background: Iterable[tuple[str, str]] = (), **options: Any
) -> SurprisalScorer:
    """The masked-LM scorer (``model=PATH`` required); imports torch only when used."""
    from sanitizer.risk.mlm import MaskedLMScorer

    if not options.get("model"):
        raise ValueError("the mlm scorer needs model=PATH (a local masked-LM directory)")
    return MaskedLMScorer(background, **options)


def make_scorer(
    name: str = DEFAULT_SCORER, background: Sequence[tuple[str, str]] = (), **options: object
) -> SurprisalScorer:
    """Build the registered scorer ``name`` (``KeyError`` lists the known ones)."""
    return surprisal_scorers.get(name)(background, **options)
