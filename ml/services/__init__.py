"""Writes of the ml app: model versions, recognizer training, pre-annotation."""
