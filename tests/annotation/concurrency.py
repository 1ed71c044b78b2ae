"""Simulating a concurrent request in tests: work committed on another connection."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection


def in_another_connection(work: Callable[[], object]) -> None:
    """Run ``work`` in its own thread, so on its own database connection (committed as
    it goes: use it from ``django_db(transaction=True)`` tests)."""
    failures: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # re-raised in the test's thread
            failures.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failures:
        raise failures[0]
