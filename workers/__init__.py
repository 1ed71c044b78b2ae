"""Background work.

``workers.tasks`` holds the thin Celery tasks (Django-aware). Every other
sub-package here is plain Python with no Django import: text and arrays in,
dataclasses out, so it can be tested and reused on its own.
"""
