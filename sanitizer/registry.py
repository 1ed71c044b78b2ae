"""Name → callable registries for pluggable components (spaCy ``@registry`` style).

Configuration refers to recognizer components, masking strategies, selection
functions, risk measures and the like by name; code registers them with a
decorator at import time::

    selection_functions = Registry("selection function")

    @selection_functions.register("greedy")
    def greedy(...): ...

    select = selection_functions.get("greedy")

Built on ``catalogue``, the registry library behind spaCy's. Registering a
different callable under a taken name is an error, so a plugin cannot silently
replace a built-in; looking up an unknown name lists the known ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Generic, TypeVar

import catalogue

T = TypeVar("T", bound=Callable[..., object])


class Registry(Generic[T]):
    """A named table of callables of one kind (e.g. ``"recognizer component"``)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        namespace = re.sub(r"[^a-z0-9]+", "_", kind.lower()).strip("_")
        # catalogue refuses to create a namespace twice (e.g. on a module reload).
        if catalogue.check_exists("sanitizer", namespace):
            self._registry = catalogue.Registry(("sanitizer", namespace), entry_points=False)
        else:
            self._registry = catalogue.create("sanitizer", namespace, entry_points=False)

    def register(self, name: str) -> Callable[[T], T]:
        """A decorator storing the decorated callable under ``name``."""

        def decorator(func: T) -> T:
            if name in self and self._registry.get(name) is not func:
                raise ValueError(f"{self.kind} {name!r} is already registered")
            self._registry.register(name, func=func)
            return func

        return decorator

    def get(self, name: str) -> T:
        """The callable registered as ``name``; a KeyError names the known ones."""
        if name not in self:
            known = ", ".join(self.names()) or "none"
            raise KeyError(f"unknown {self.kind} {name!r} (known: {known})")
        func: T = self._registry.get(name)
        return func

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._registry.get_all())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and catalogue.check_exists(*self._registry.namespace, name)
