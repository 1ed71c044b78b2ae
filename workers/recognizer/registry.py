"""Name -> factory registries for pluggable recognizer parts (spaCy ``@registry``-style).

Configuration files refer to components and masking strategies by name; code registers them with
the decorators below at import time. Registering a name twice is an error so that a plugin cannot
silently replace a built-in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T", bound=Callable[..., object])


class Registry(Generic[T]):
    """A named collection of callables (factories or functions)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Return a decorator that stores the decorated callable under ``name``."""

        def decorator(func: T) -> T:
            if name in self._items and self._items[name] is not func:
                raise ValueError(f"{self.kind} {name!r} is already registered")
            self._items[name] = func
            return func

        return decorator

    def get(self, name: str) -> T:
        """Look up ``name``; raises ``KeyError`` listing the known names if it is missing."""
        try:
            return self._items[name]
        except KeyError:
            known = ", ".join(sorted(self._items)) or "none"
            raise KeyError(f"unknown {self.kind} {name!r} (known: {known})") from None

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items


component_registry: Registry[Callable[..., object]] = Registry("recognizer component")
strategy_registry: Registry[Callable[..., object]] = Registry("masking strategy")


def recognizer_component(name: str) -> Callable[[T], T]:
    """Register a component factory: ``factory(**params) -> Component``."""
    return component_registry.register(name)  # type: ignore[return-value]


def masking_strategy(name: str) -> Callable[[T], T]:
    """Register a masking strategy: ``strategy(spans) -> list[EntitySpan]``."""
    return strategy_registry.register(name)  # type: ignore[return-value]
