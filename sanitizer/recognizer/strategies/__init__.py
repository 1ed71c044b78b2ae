"""Masking strategies, one module each: adding a strategy is adding one module here.

A strategy decides which detected spans are masked::

    # sanitizer/recognizer/strategies/people_only.py
    from sanitizer.recognizer.registry import masking_strategy

    @masking_strategy("people-only")
    def people_only(spans):
        return [s for s in spans if s.label == "PERSON"]

``strategy_registry`` imports every module of this package the first time it is consulted,
so the new name is at once a choice of ``manage.py sanitize --strategy`` and of every other
caller that lists the registry. A directory ``sanitizer/recognizer/strategies/`` elsewhere on
``sys.path`` (a plugin kept outside this repository) contributes its modules too.
"""

import os
import sys

# pkgutil.extend_path would look only inside the parent package's own directory, so plugin
# directories on sys.path are added here (each once).
_seen = {os.path.realpath(p) for p in __path__}
for _entry in sys.path:
    _candidate = os.path.join(_entry or os.curdir, *__name__.split("."))
    if os.path.isdir(_candidate) and os.path.realpath(_candidate) not in _seen:
        __path__.append(_candidate)
        _seen.add(os.path.realpath(_candidate))
