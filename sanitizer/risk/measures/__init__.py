"""The registered risk measures, one module each (imported on the registry's first lookup).

* ``lm``: information content, :mod:`sanitizer.risk.measures.lm`;
* ``linkage``: local search over background documents, :mod:`sanitizer.risk.measures.linkage`;
* ``kb``: k-anonymity against a knowledge base, :mod:`sanitizer.risk.measures.kb`;
* ``supervised``: a model trained on human decisions, :mod:`sanitizer.risk.measures.supervised`.

Each is ``(RiskDocument, config) -> list[RiskyCombination]``; the shared resources a measure
needs (scorer, search index, knowledge base, risk model) arrive in ``config``, built once
per collection by :mod:`sanitizer.risk.pipeline`.
"""
