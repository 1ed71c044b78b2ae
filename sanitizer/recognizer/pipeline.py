"""The privacy-enhanced recognizer: named components + overlap policy, built from a config."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import regex

from sanitizer.recognizer import components as _builtin  # noqa: F401  (registers components)
from sanitizer.recognizer.base import DEFAULT_SPACY_MODEL, Component, load_spacy, spacy_model_id
from sanitizer.recognizer.overlap import OverlapPolicy, merge_priority, resolve_overlaps
from sanitizer.recognizer.registry import component_registry
from sanitizer.types import EntitySpan

CONFIG_VERSION = "1"

# A purely numeric span right after one of these words is a reference into a legal text
# ("Article 6 § 1", "Rule 39", "paragraphs 12-14"), not information about a person.
_LEGAL_REFERENCE_BEFORE = regex.compile(
    r"(?:\b(?:Articles?|Art\.|paragraphs?|paras?\.|Rules?|Sections?|Chapters?|Protocol"
    r"(?:\s+No\.)?|sub-paragraphs?|points?|items?|Annex|Appendix|Schedule|Part|Title|Book|"
    r"Regulation|Directive|Recommendation)|§§?)\s*(?:\d+[\s,]*(?:§§?|and|to|-|\u2013)?\s*)*$",
    regex.IGNORECASE,
)
_PROVISION = regex.compile(
    r"(?:Articles?|Art\.|Rules?|Sections?|§§?|paragraphs?|paras?\.|Protocol(?:\s+No\.)?)\s*\d",
    regex.IGNORECASE,
)
_NUMERIC_ONLY = regex.compile(r"[\d\s§.,()\u2013\-]+(?:\s?(?:and|to)\s?[\d\s§.,()\u2013\-]+)*")


@dataclass(frozen=True)
class ComponentSpec:
    """A component by registered name and the keyword arguments for its factory."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)


DEFAULT_COMPONENTS: tuple[ComponentSpec, ...] = (
    ComponentSpec("spacy_ner"),
    ComponentSpec("gazetteer"),
    ComponentSpec("rules"),
    ComponentSpec("proper_nouns"),
)


@dataclass(frozen=True)
class RecognizerConfig:
    """Versioned recognizer configuration. Bump ``version`` whenever behaviour changes."""

    version: str = CONFIG_VERSION
    spacy_model: str = DEFAULT_SPACY_MODEL
    components: tuple[ComponentSpec, ...] = DEFAULT_COMPONENTS
    priorities: Mapping[str, int] = field(default_factory=lambda: merge_priority(None))
    trim_partial: bool = True
    drop_legal_references: bool = True
    batch_size: int = 32

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RecognizerConfig:
        """Build from plain data (JSON/YAML); missing keys take the defaults."""
        comps = data.get("components")
        specs = (
            tuple(
                ComponentSpec(c)
                if isinstance(c, str)
                else ComponentSpec(c["name"], c.get("params", {}))
                for c in comps
            )
            if comps is not None
            else DEFAULT_COMPONENTS
        )
        return cls(
            version=str(data.get("version", CONFIG_VERSION)),
            spacy_model=str(data.get("spacy_model", DEFAULT_SPACY_MODEL)),
            components=specs,
            priorities=merge_priority(data.get("priorities")),
            trim_partial=bool(data.get("trim_partial", True)),
            drop_legal_references=bool(data.get("drop_legal_references", True)),
            batch_size=int(data.get("batch_size", 32)),
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (inverse of ``from_dict``)."""
        data = asdict(self)
        data["components"] = [{"name": c.name, "params": dict(c.params)} for c in self.components]
        data["priorities"] = dict(self.priorities)
        return data


def is_legal_reference(text: str, span: EntitySpan) -> bool:
    """True if ``span`` cites a legal provision rather than describing a person.

    That is: it starts with a provision word and a number ("Article 6 § 1 of the Convention"), or
    it is only a number that follows such a word ("Article *6*").
    """
    if _PROVISION.match(span.text):
        return True
    if not _NUMERIC_ONLY.fullmatch(span.text):
        return False
    return _LEGAL_REFERENCE_BEFORE.search(text, max(0, span.start - 60), span.start) is not None


class Recognizer:
    """Runs every component (sharing one spaCy pass per text) and applies the overlap policy."""

    def __init__(self, config: RecognizerConfig) -> None:
        self.config = config
        self.components: list[Component] = [
            self._make_component(spec.name, spec.params) for spec in config.components
        ]
        self.policy = OverlapPolicy(
            priorities=dict(config.priorities), trim_partial=config.trim_partial
        )
        self._needs_doc = any(c.needs_doc for c in self.components)
        self._nlp = None
        self._unused_pipes: list[str] = []
        model_id = "none"
        if self._needs_doc:
            needed = {p for c in self.components for p in c.needs_pipes}
            self._nlp = load_spacy(config.spacy_model)
            self._unused_pipes = [p for p in self._nlp.pipe_names if p not in needed]
            model_id = spacy_model_id(config.spacy_model)
        names = "+".join(c.signature() for c in self.components)
        self.version = (
            f"recognizer-v{config.version}|{names}|{self.policy.signature()}|spacy:{model_id}"
        )

    def _make_component(self, name: str, params: Mapping[str, Any]) -> Component:
        factory = component_registry.get(name)
        kwargs = dict(params)
        # Components that consult the spaCy model (lexicon...) use the pipeline's model unless
        # their own params name another one.
        if "spacy_model" in inspect.signature(factory).parameters:
            kwargs.setdefault("spacy_model", self.config.spacy_model)
        return factory(**kwargs)  # type: ignore[return-value]

    def _finish(self, text: str, candidates: list[EntitySpan]) -> list[EntitySpan]:
        if self.config.drop_legal_references:
            candidates = [s for s in candidates if not is_legal_reference(text, s)]
        return resolve_overlaps(text, candidates, self.policy)

    def _candidates(self, text: str, doc: Any) -> list[EntitySpan]:
        out: list[EntitySpan] = []
        for component in self.components:
            out.extend(component(text, doc if component.needs_doc else None))
        return out

    def predict(self, text: str) -> list[EntitySpan]:
        """Disjoint, start-sorted spans over ``text`` with ``text[s.start:s.end] == s.text``."""
        return self.predict_batch([text])[0]

    def predict_batch(self, texts: Sequence[str]) -> list[list[EntitySpan]]:
        """``predict`` for many texts; spaCy processes them with ``nlp.pipe`` in batches."""
        docs: Iterable[Any]
        if self._nlp is not None:
            docs = self._nlp.pipe(
                texts, batch_size=self.config.batch_size, disable=self._unused_pipes
            )
        else:
            docs = [None] * len(texts)
        return [
            self._finish(text, self._candidates(text, doc))
            for text, doc in zip(texts, docs, strict=True)
        ]


def build_recognizer(config: RecognizerConfig | Mapping[str, Any] | None = None) -> Recognizer:
    """Build a recognizer from a config object, a plain mapping, or the defaults (``None``)."""
    if config is None:
        config = RecognizerConfig()
    elif not isinstance(config, RecognizerConfig):
        config = RecognizerConfig.from_dict(config)
    return Recognizer(config)
