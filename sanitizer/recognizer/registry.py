"""Name -> factory registries for pluggable recognizer parts (spaCy ``@registry``-style).

Configuration files refer to components and masking strategies by name; code registers them with
the decorators below at import time. Masking strategies are modules of
``sanitizer.recognizer.strategies``, imported the first time the registry is consulted.
Registering a name twice is an error so that a plugin cannot silently replace a built-in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sanitizer.registry import Registry

T = TypeVar("T", bound=Callable[..., object])


component_registry: Registry[Callable[..., object]] = Registry("recognizer component")
# One module per strategy in sanitizer/recognizer/strategies/, imported on first use.
strategy_registry: Registry[Callable[..., object]] = Registry(
    "masking strategy", plugins="sanitizer.recognizer.strategies"
)


def recognizer_component(name: str) -> Callable[[T], T]:
    """Register a component factory: ``factory(**params) -> Component``."""
    return component_registry.register(name)  # type: ignore[return-value]


def masking_strategy(name: str) -> Callable[[T], T]:
    """Register a masking strategy: ``strategy(spans) -> list[EntitySpan]``."""
    return strategy_registry.register(name)  # type: ignore[return-value]
