"""Name → callable registries so configuration can pick agreement components by name.

Mirrors spaCy's ``@registry`` decorators::

    @pairwise_measures.register("cohen_kappa")
    def pairwise_kappa(documents, a, b, **options): ...

    measure = pairwise_measures.get("cohen_kappa")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T", bound=Callable[..., object])


class Registry(Generic[T]):
    """A named table of callables; ``register`` is a decorator factory."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Return a decorator storing the decorated callable under ``name``.

        Registering a different callable under a taken name raises ``ValueError``;
        re-registering the same one (module reload) is allowed.
        """

        def decorator(func: T) -> T:
            if name in self._items and self._items[name] is not func:
                raise ValueError(f"{self.kind} {name!r} is already registered")
            self._items[name] = func
            return func

        return decorator

    def get(self, name: str) -> T:
        """Return the callable registered as ``name``; the KeyError lists known names."""
        try:
            return self._items[name]
        except KeyError:
            known = ", ".join(sorted(self._items))
            raise KeyError(f"unknown {self.kind} {name!r}; known: {known}") from None

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items
