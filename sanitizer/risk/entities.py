"""From detected spans to the entities risk measures reason about.

*Grouping* (co-reference, kept deliberately simple): two mentions are one entity when
their normalised surface forms are equal (case, accents' case, surrounding punctuation,
whitespace and a leading "the"/"Mr"/"Mrs"/... are ignored). A PERSON mention whose words
all occur, in order, in exactly one longer PERSON name of the document joins that name
("Polat" and "Mr Polat" join "Cengiz Polat"); when two longer names contain it
("Polat" with both "Cengiz Polat" and "Ayşe Polat") it stays an entity of its own.

*DIRECT rule* (TAB's practice): an entity is DIRECT when most of its mentions are PERSON
names or CODE identifiers (application numbers, ids); everything else is a candidate
QUASI identifier for the risk measures to judge.

*The person to protect*: the document's ``meta["applicant"]`` when it has one (TAB's
convention), otherwise the PERSON entity mentioned most often.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from sanitizer.risk import RiskEntity
from sanitizer.types import EntitySpan

DIRECT_LABELS = frozenset({"PERSON", "CODE"})

_TITLES = frozenset(
    {"the", "mr", "mrs", "ms", "miss", "dr", "prof", "professor", "judge", "mr.", "mrs.", "ms."}
)
_WORD = re.compile(r"\w+(?:[.'’]\w+)*", re.UNICODE)


def normalise(text: str) -> str:
    """The surface form two co-referent mentions share ("The  Court." → "court")."""
    words = words_of(text)
    while len(words) > 1 and words[0] in _TITLES:
        words = words[1:]
    return " ".join(words)


def words_of(text: str) -> list[str]:
    """Lower-cased words of ``text`` (NFC, punctuation dropped)."""
    return [w.casefold() for w in _WORD.findall(unicodedata.normalize("NFC", text))]


def group_entities(spans: Sequence[EntitySpan]) -> list[RiskEntity]:
    """Group mentions into entities (see the module docstring); ids follow first mentions.

    Every span becomes a mention of exactly one entity; ``entity_id`` is ``e1``, ``e2``, ...
    in the order of each entity's first mention, so the same spans give the same ids.
    """
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    keys: list[str] = []
    for span in ordered:
        key = normalise(span.text) or span.text.strip().casefold() or span.text
        keys.append(key)
    person_keys = {
        key for key, span in zip(keys, ordered, strict=True) if span.label == "PERSON" and key
    }
    alias = {key: _person_head(key, person_keys) for key in person_keys}
    members: dict[str, list[EntitySpan]] = {}
    for key, span in zip(keys, ordered, strict=True):
        canonical = alias.get(key, key) if span.label == "PERSON" else key
        members.setdefault(canonical, []).append(span)
    entities: list[RiskEntity] = []
    for n, mentions in enumerate(sorted(members.values(), key=lambda m: m[0].start), 1):
        labels = Counter(m.label for m in mentions)
        # Ties go to the label of the longest mention, the most explicit one.
        longest = max(mentions, key=lambda m: (m.end - m.start, -m.start))
        label = max(labels, key=lambda lab: (labels[lab], lab == longest.label))
        direct = sum(labels[lab] for lab in DIRECT_LABELS) * 2 > len(mentions)
        entities.append(
            RiskEntity(
                entity_id=f"e{n}",
                label=label,
                mentions=tuple(mentions),
                identifier_type="DIRECT" if direct else "QUASI",
            )
        )
    return entities


def _person_head(key: str, person_keys: set[str]) -> str:
    """The one longer PERSON name containing all words of ``key`` in order, else ``key``."""
    words = key.split()
    holders = [
        other
        for other in person_keys
        if other != key and len(other.split()) > len(words) and _in_order(words, other.split())
    ]
    if len(holders) != 1:
        return key
    # Chains ("polat" ⊂ "cengiz polat" ⊂ "cengiz ali polat") resolve to the longest name.
    return _person_head(holders[0], person_keys)


def _in_order(needle: list[str], haystack: list[str]) -> bool:
    it = iter(haystack)
    return all(word in it for word in needle)


def entity_text(entity: RiskEntity) -> str:
    """The entity's most explicit surface form: its longest mention."""
    return max(entity.mentions, key=lambda m: (m.end - m.start, -m.start)).text


def person_to_protect(
    entities: Sequence[RiskEntity], meta: Mapping[str, Any] | None = None
) -> tuple[str, str | None]:
    """``(name, entity id or None)`` of the person the document must not reveal.

    ``meta["applicant"]`` (TAB) wins; its entity is the PERSON entity sharing a word with it,
    if any. Without it, the PERSON entity with the most mentions (ties: first mentioned).
    Returns ``("", None)`` when the document names nobody.
    """
    people = [e for e in entities if e.label == "PERSON"]
    applicant = str((meta or {}).get("applicant") or "").strip()
    if applicant:
        wanted = set(words_of(applicant))
        best = max(
            people,
            key=lambda e: (len(wanted & set(normalise(entity_text(e)).split())), len(e.mentions)),
            default=None,
        )
        if best is not None and wanted & set(normalise(entity_text(best)).split()):
            return applicant, best.entity_id
        return applicant, None
    if not people:
        return "", None
    top = max(people, key=lambda e: (len(e.mentions), -e.mentions[0].start))
    return entity_text(top), top.entity_id
