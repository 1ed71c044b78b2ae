"""Error types every app raises and the API maps to HTTP answers (``common.apis``)."""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A request that breaks a business rule (HTTP 400)."""


class TooLargeError(Exception):
    """An upload or body over its configured limit (HTTP 413)."""


class StaleVersionError(Exception):
    """A write based on an outdated read (HTTP 409); carries the current state."""

    def __init__(
        self,
        current: dict[str, Any] | None,
        message: str = "the span was changed by someone else since you read it",
    ):
        self.current = current
        super().__init__(message)
