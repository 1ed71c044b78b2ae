"""What a job tells its users: no server paths, no credentials, no tracebacks.

A traceback shows the server's files and the code's layout, and an exception's message
or a job's parameters may name an upload's or a model's folder, or a broker URL with its
password. Users see the exception's own line with every absolute path cut to its last
part; ``jobs.services.job_fail`` writes the whole traceback to the log, for admins.
"""

from __future__ import annotations

import re
from typing import Any

TRACEBACK_HEAD = "Traceback (most recent call last):"
# scheme://user:password@host -> scheme://***@host
_CREDENTIALS = re.compile(r"\b([a-z][a-z0-9+.-]*://)[^/\s@]*@", re.IGNORECASE)
_PART = r"[^\s'\"/:,;()\[\]{}<>|]+"
# An absolute path of two or more parts, not inside a URL or a relative path.
_PATH = re.compile(rf"(?<![\w/:.~\\-])(?:/{_PART})+/({_PART})")


def public_text(text: str) -> str:
    """``text`` with credentials in URLs masked and absolute paths cut to their last part."""
    return _PATH.sub(r"\1", _CREDENTIALS.sub(r"\1***@", text))


def public_error(error: str) -> str:
    """The error as users may read it: a traceback shrinks to its exception line."""
    text = error.strip()
    if TRACEBACK_HEAD in text:
        # The last line of a traceback is the exception itself: that is what people read.
        text = text.splitlines()[-1].strip()
    return public_text(text)


def public_value(value: Any) -> Any:
    """``public_text`` on every string in a JSON value (a job's parameters or result)."""
    if isinstance(value, str):
        return public_text(value)
    if isinstance(value, dict):
        return {key: public_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [public_value(item) for item in value]
    return value
