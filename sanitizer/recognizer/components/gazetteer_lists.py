"""The gazetteer's word lists: which files, how their terms are labelled, and loading them.

Every list is a UTF-8 file with one term per line (``#`` starts a comment line). A term written
``=Term`` must match with exactly that capitalisation; other terms follow the list's case policy
(``any`` or ``title``, see :mod:`sanitizer.recognizer.components.gazetteer`). Lists, labels and
policies are documented in ``sanitizer/recognizer/data/gazetteer/README.md``; the component that
matches them is in :mod:`sanitizer.recognizer.components.gazetteer`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sanitizer.textmatch import PhraseMatcher, lower_same_length
from sanitizer.types import SEMANTIC_TYPES

DEFAULT_DIRECTORY = Path(__file__).resolve().parents[1] / "data" / "gazetteer"
CASE_POLICIES = ("any", "title")
# Terms are whole words or phrases: no letter or digit may touch a match on either side.
BOUNDARY = "strict"


@dataclass(frozen=True)
class GazetteerList:
    """One term file and how its matches are labelled.

    ``role`` is ``"first"``/``"last"`` for given-name/surname lists: such matches are joined with
    neighbouring capitalised words into one PERSON span. ``extend_left`` grows a match over the
    nouns and adjectives that modify it ("bus driver" -> "local transit bus driver"; occupation
    titles are open-ended compounds that no list can enumerate).
    """

    file: str
    label: str
    case: str = "any"
    plural: bool = False
    role: str = ""
    extend_left: bool = False

    def __post_init__(self) -> None:
        if self.label not in SEMANTIC_TYPES:
            raise ValueError(f"unknown label {self.label!r}")
        if self.case not in CASE_POLICIES:
            raise ValueError(f"unknown case policy {self.case!r}")


DEFAULT_LISTS: tuple[GazetteerList, ...] = (
    GazetteerList("honorifics.txt", "DEM", "title"),
    GazetteerList("nationalities.txt", "DEM", "any", plural=True),
    GazetteerList("ethnicities.txt", "DEM", "any", plural=True),
    GazetteerList("religions.txt", "DEM", "any", plural=True),
    GazetteerList("political_ideologies.txt", "DEM", "any", plural=True),
    GazetteerList("sexual_orientation.txt", "DEM", "any", plural=True),
    GazetteerList("family_status.txt", "DEM", "any", plural=True),
    GazetteerList("education.txt", "DEM", "any", plural=True),
    GazetteerList("occupations_extra.txt", "DEM", "any", plural=True, extend_left=True),
    GazetteerList("occupations_faker.txt", "DEM", "any", plural=True, extend_left=True),
    GazetteerList("diseases.txt", "DEM", "any"),
    GazetteerList("offences.txt", "MISC", "any"),
    GazetteerList("causes_of_death.txt", "MISC", "any"),
    GazetteerList("vehicles_weapons.txt", "MISC", "any", plural=True),
    GazetteerList("countries.txt", "LOC", "title"),
    GazetteerList("subdivisions.txt", "LOC", "title"),
    GazetteerList("places.txt", "LOC", "title"),
    GazetteerList("person_first_names.txt", "PERSON", "title", role="first"),
    GazetteerList("person_last_names.txt", "PERSON", "title", role="last"),
)


@dataclass(frozen=True)
class ListEntry:
    """What a matched term means: its label, case policy and list."""

    label: str
    case: str
    exact: str | None
    role: str
    list_name: str
    extend_left: bool


@dataclass(frozen=True)
class TermTable:
    """A matcher over the lower-cased terms and, for each term, what it means."""

    matcher: PhraseMatcher
    entries: list[tuple[ListEntry, ...]]


# Words that are capitalised at a sentence start or in headings but are not names; a title-case
# list never matches them (lower-cased comparison).
NOT_NAMES = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "with",
        "from",
        "as",
        "is",
        "was",
        "be",
        "are",
        "were",
        "this",
        "that",
        "these",
        "those",
        "he",
        "she",
        "it",
        "we",
        "they",
        "i",
        "you",
        "his",
        "her",
        "its",
        "our",
        "their",
        "my",
        "your",
        "me",
        "him",
        "us",
        "them",
        "who",
        "whom",
        "which",
        "what",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "some",
        "no",
        "not",
        "yes",
        "may",
        "june",
        "april",
        "august",
        "march",
        "will",
        "can",
        "may",
        "must",
        "shall",
        "should",
        "would",
        "could",
        "court",
        "state",
        "states",
        "government",
        "republic",
        "article",
        "section",
        "chapter",
        "part",
        "law",
        "act",
        "code",
        "convention",
        "protocol",
        "judge",
        "justice",
        "president",
        "minister",
        "police",
        "prosecutor",
        "applicant",
        "applicants",
        "application",
        "mr",
        "mrs",
        "ms",
        "dr",
        "sir",
        "madam",
        "lord",
        "lady",
        "saint",
        "st",
        "mount",
        "north",
        "south",
        "east",
        "west",
        "new",
        "old",
        "great",
        "little",
        "good",
        "best",
        "page",
        "sun",
        "moon",
        "day",
        "night",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "july",
        "september",
        "october",
        "november",
        "december",
        "christmas",
        "easter",
        "god",
        "bank",
        "union",
        "city",
        "county",
        "street",
        "road",
        "avenue",
    ]
)


def pluralize(term: str) -> str | None:
    """The regular English plural of ``term``'s last word, or None when it has none."""
    # Regular English plurals only; irregular ones are listed explicitly in the files.
    last = term.rsplit(" ", 1)[-1]
    low = last.lower()
    if low.endswith(("s", "sh", "ch", "x", "z", "ese", "ism", "ish", "ed")) or not last.isalpha():
        return None
    if low.endswith("man"):
        return term[:-3] + ("MEN" if last.isupper() else "men")
    if low.endswith("y") and len(low) > 2 and low[-2] not in "aeiou":
        return term[:-1] + "ies"
    return term + "s"


def read_terms(path: Path) -> Iterable[str]:
    """The terms of one list file (blank lines and ``#`` comments skipped)."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            term = line.strip()
            if term and not term.startswith("#"):
                yield term


@functools.lru_cache(maxsize=4)
def load_term_table(directory: str, lists: tuple[GazetteerList, ...]) -> TermTable:
    """Read the lists (once per list configuration) into a matcher over lower-cased terms."""
    table: dict[str, list[ListEntry]] = {}
    for spec in lists:
        path = Path(spec.file) if Path(spec.file).is_absolute() else Path(directory) / spec.file
        for raw in read_terms(path):
            exact = raw[1:] if raw.startswith("=") else None
            term = exact or raw
            forms = [term]
            if spec.plural:
                plural = pluralize(term)
                if plural:
                    forms.append(plural)
            for form in forms:
                key = lower_same_length(form)
                if spec.label in ("PERSON", "LOC") and key in NOT_NAMES:
                    continue
                entry = ListEntry(
                    spec.label,
                    spec.case,
                    form if exact else None,
                    spec.role,
                    spec.file,
                    spec.extend_left,
                )
                bucket = table.setdefault(key, [])
                if all(e.label != entry.label or e.role != entry.role for e in bucket):
                    bucket.append(entry)
    keys = list(table)
    return TermTable(PhraseMatcher.build(keys, boundary=BOUNDARY), [tuple(table[k]) for k in keys])
