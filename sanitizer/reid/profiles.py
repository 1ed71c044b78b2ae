"""Knowledge-base profiles as the text re-identification models read.

A profile is linearised as ``key || value`` rows (seed 004 §5), the name first; ISO dates
also appear as prose ("12 March 1987") because biographies write them that way.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from sanitizer.kanon.kb import Person, read_kb
from sanitizer.kanon.variants import _MONTHS

_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")


def _date_value(value: str) -> str:
    """``"1987-03-12"`` → ``"12 March 1987 (1987-03-12)"``; other values unchanged."""
    m = _ISO_DATE.match(value.strip())
    if not m:
        return value
    try:
        d = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return value
    return f"{d.day} {_MONTHS[d.month - 1]} {d.year} ({value.strip()})"


def profile_rows(person: Person) -> list[str]:
    """``["name || Ana Silva", "alias || ...", "place of birth || Braga", ...]``."""
    rows = [f"name || {person.name}"]
    rows.extend(f"alias || {alias}" for alias in person.aliases if alias)
    for key, values in person.attributes.items():
        rows.extend(f"{key} || {_date_value(v)}" for v in values if v)
    return rows


def profile_text(person: Person) -> str:
    """The profile's rows joined by newlines."""
    return "\n".join(profile_rows(person))


def kb_fingerprint(persons: Iterable[Person]) -> str:
    """A hash of the profiles (ids and text): models store it to detect a changed KB."""
    h = hashlib.sha256()
    for person in persons:
        h.update(person.id.encode("utf-8"))
        h.update(b"\x00")
        h.update(profile_text(person).encode("utf-8"))
        h.update(b"\x01")
    return h.hexdigest()[:16]


def load_profiles(path: str | os.PathLike[str], fmt: str | None = None) -> list[Person]:
    """Every profile of a knowledge-base file (JSONL profiles or a Wikidata dump)."""
    return list(read_kb(path, fmt))


def target_of(doc: Mapping[str, Any]) -> str | None:
    """The profile id a document is about: ``target``, else ``meta.target``, ``meta.person_id``."""
    target = doc.get("target")
    if target:
        return str(target)
    meta = doc.get("meta")
    if isinstance(meta, Mapping):
        for key in ("target", "person_id"):
            if meta.get(key):
                return str(meta[key])
    return None
