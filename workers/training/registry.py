"""Name registries for the pluggable parts of the training package.

Built on ``catalogue`` (the registry library behind spaCy's ``@registry``), so later code
can pick a component from configuration by name::

    @label_schemes.register("my_scheme")
    def my_scheme() -> list[str]: ...

    labels = label_schemes.get("mask")()
"""

from __future__ import annotations

import catalogue

#: Functions returning the span label list of a tagger (``"tab"``, ``"mask"``).
label_schemes = catalogue.create("sanitizer", "training", "label_schemes", entry_points=False)

#: Functions merging per-window logits into per-token logits (``"center"``, ``"mean"``).
merge_strategies = catalogue.create("sanitizer", "training", "merge_strategies", entry_points=False)

#: Loaders returning an object with ``predict``/``predict_batch`` from a saved model dir.
taggers = catalogue.create("sanitizer", "training", "taggers", entry_points=False)
