"""Registries of components and masking strategies."""

from __future__ import annotations

import pytest

from sanitizer.recognizer import (
    build_recognizer,
    component_registry,
    recognizer_component,
    strategy_registry,
)
from sanitizer.registry import Registry
from sanitizer.types import EntitySpan


def test_builtins_are_registered() -> None:
    assert component_registry.names() == ["gazetteer", "proper_nouns", "rules", "spacy_ner"]
    assert strategy_registry.names() == ["mask-all", "most-specific", "reid", "risk"]


def test_unknown_name_lists_known_ones() -> None:
    with pytest.raises(KeyError, match="known: gazetteer, proper_nouns, rules, spacy_ner"):
        component_registry.get("bert")


def test_duplicate_registration_is_an_error() -> None:
    registry: Registry = Registry("thing")
    registry.register("a")(len)
    registry.register("a")(len)  # same object again is harmless
    with pytest.raises(ValueError):
        registry.register("a")(abs)
    assert "a" in registry and "b" not in registry


class _Fixed:
    """A test component that always marks the first word."""

    name = "test_first_word"
    needs_doc = False
    needs_pipes: tuple[str, ...] = ()

    def signature(self) -> str:
        return self.name

    def __call__(self, text: str, doc: object) -> list[EntitySpan]:
        word = text.split()[0]
        return [EntitySpan(0, len(word), "MISC", word, self.name)]


def test_plugin_component_is_used_by_config() -> None:
    if "test_first_word" not in component_registry:
        recognizer_component("test_first_word")(_Fixed)
    recognizer = build_recognizer({"components": ["test_first_word", "rules"]})
    assert recognizer.version.startswith("recognizer-v1|test_first_word+rules[")
    spans = recognizer.predict("Hello from 1992")
    assert [(s.text, s.label, s.source) for s in spans] == [
        ("Hello", "MISC", "test_first_word"),
        ("1992", "DATETIME", "rules"),
    ]
