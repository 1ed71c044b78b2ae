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

A registry may name a *plugin package* (``Registry("masking strategy",
plugins="sanitizer.recognizer.strategies")``): the first time it is consulted
(``get``, ``names``, ``in``) it imports every module of that package, so adding a
module there, with its ``@register`` decorator, is all it takes to make a new entry
known to every caller (command line, API, UI), without editing a list anywhere.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from typing import Generic, TypeVar

import catalogue

T = TypeVar("T", bound=Callable[..., object])


class Registry(Generic[T]):
    """A named table of callables of one kind (e.g. ``"recognizer component"``)."""

    def __init__(self, kind: str, plugins: str | None = None) -> None:
        self.kind = kind
        self.plugins = plugins
        self._discovered = plugins is None
        namespace = re.sub(r"[^a-z0-9]+", "_", kind.lower()).strip("_")
        # catalogue refuses to create a namespace twice (e.g. on a module reload).
        if catalogue.check_exists("sanitizer", namespace):
            self._registry = catalogue.Registry(("sanitizer", namespace), entry_points=False)
        else:
            self._registry = catalogue.create("sanitizer", namespace, entry_points=False)

    def _discover(self) -> None:
        # Marked done before importing: the plugin modules register while being imported.
        if self._discovered or self.plugins is None:
            return
        self._discovered = True
        package = importlib.import_module(self.plugins)
        for module in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)

    def _has(self, name: str) -> bool:
        return catalogue.check_exists(*self._registry.namespace, name)

    def register(self, name: str) -> Callable[[T], T]:
        """A decorator storing the decorated callable under ``name``."""

        def decorator(func: T) -> T:
            if self._has(name) and self._registry.get(name) is not func:
                raise ValueError(f"{self.kind} {name!r} is already registered")
            self._registry.register(name, func=func)
            return func

        return decorator

    def get(self, name: str) -> T:
        """The callable registered as ``name``; a KeyError names the known ones."""
        self._discover()
        if not self._has(name):
            known = ", ".join(self.names()) or "none"
            raise KeyError(f"unknown {self.kind} {name!r} (known: {known})")
        func: T = self._registry.get(name)
        return func

    def names(self) -> list[str]:
        """Registered names, sorted."""
        self._discover()
        return sorted(self._registry.get_all())

    def __contains__(self, name: object) -> bool:
        self._discover()
        return isinstance(name, str) and self._has(name)
