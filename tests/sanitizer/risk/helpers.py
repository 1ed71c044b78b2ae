"""Hand-made documents for the risk tests: spans found by searching the text."""

from __future__ import annotations

import json
from pathlib import Path

from sanitizer.types import EntitySpan


def spans_for(text: str, *labelled: tuple[str, str]) -> list[EntitySpan]:
    """One span per occurrence of each ``(surface, label)`` in ``text``."""
    out: list[EntitySpan] = []
    for surface, label in labelled:
        start = text.find(surface)
        assert start >= 0, surface
        while start >= 0:
            out.append(EntitySpan(start, start + len(surface), label, surface))
            start = text.find(surface, start + len(surface))
    return sorted(out, key=lambda s: s.start)


def write_kb(path: Path) -> Path:
    """A JSONL knowledge base where only Ayse Demir and Ali Veli are professors born in 1932."""
    people = [("p0", "Ayse Demir", "professor", "1932"), ("p1", "Ali Veli", "professor", "1932")]
    people += [(f"q{i}", f"Person {i}", "professor", str(1940 + i)) for i in range(4)]
    people += [(f"r{i}", f"Other {i}", "farmer", "1932") for i in range(4)]
    path.write_text(
        "\n".join(
            json.dumps(
                {"id": pid, "name": name, "attributes": {"occupation": [job], "birth": [year]}}
            )
            for pid, name, job, year in people
        )
    )
    return path
