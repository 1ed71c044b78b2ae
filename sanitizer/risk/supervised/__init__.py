"""Supervised risk (seed 001, §3.2.3): a classifier of entities trained on human decisions.

* :mod:`~sanitizer.risk.supervised.labels`: MASK/KEEP labels from TAB annotators' votes;
* :mod:`~sanitizer.risk.supervised.features`: the general features of an entity in context;
* :mod:`~sanitizer.risk.supervised.model`: the stored model (directory with the estimator and
  a JSON config carrying the feature list, version, training summary and metrics);
* :mod:`~sanitizer.risk.supervised.training`: dataset, cross-validation, fitting (imported on
  its own: it needs :mod:`sanitizer.risk.pipeline`, which imports the model module).
* :mod:`~sanitizer.risk.supervised.transformer`: the transformer classifier (NTS input: the
  entity's context window + "{span} is a {TYPE}."), stored in its own directory format that
  :meth:`~sanitizer.risk.supervised.model.SupervisedRiskModel.load` recognises.

The ``supervised`` risk measure (:mod:`sanitizer.risk.measures.supervised`) reads a model
and calls every candidate entity with p(mask) ≥ threshold a risky combination of one.
"""
