"""Name registries for the pluggable parts of the training package.

Shared :class:`sanitizer.registry.Registry` tables, so later code can pick a component
from configuration by name::

    @label_schemes.register("my_scheme")
    def my_scheme() -> list[str]: ...

    labels = label_schemes.get("mask")()
"""

from __future__ import annotations

from sanitizer.registry import Registry

#: Functions returning the span label list of a tagger (``"tab"``, ``"mask"``).
label_schemes: Registry = Registry("label scheme")

#: Functions merging per-window logits into per-token logits (``"center"``, ``"mean"``).
merge_strategies: Registry = Registry("window merge strategy")

#: Loaders returning an object with ``predict``/``predict_batch`` from a saved model dir.
taggers: Registry = Registry("tagger")
