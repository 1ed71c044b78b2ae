"""``gazetteer``: term lists (demographic, miscellaneous, names, places) matched with Aho-Corasick.

Every list is a UTF-8 file with one term per line (``#`` starts a comment line). A term written
``=Term`` must match with exactly that capitalisation; other terms follow the list's case policy:

* ``any``: case-insensitive (attribute words such as occupations or diseases);
* ``title``: the matched text must start with an upper-case letter (names and places, so that
  "rose" or "bath" as common nouns are not taken for "Rose" or "Bath"). In a text with no
  upper-case letter at all, lower-case matches are accepted unless they are English common words.

Matches must sit on token boundaries (no letter or digit on either side) and the longest match
wins among overlapping ones. Lists, labels and policies are documented in
``sanitizer/recognizer/data/gazetteer/README.md``.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import ahocorasick
import regex

from sanitizer.recognizer.base import DEFAULT_SPACY_MODEL, english_lexicon, in_lexicon
from sanitizer.recognizer.registry import recognizer_component
from sanitizer.recognizer.spans import make_span
from sanitizer.types import SEMANTIC_TYPES, EntitySpan

if TYPE_CHECKING:
    from spacy.tokens import Doc

DEFAULT_DIRECTORY = Path(__file__).resolve().parents[1] / "data" / "gazetteer"
CASE_POLICIES = ("any", "title")


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
class _Entry:
    label: str
    case: str
    exact: str | None
    role: str
    list_name: str
    extend_left: bool


# Words that are capitalised at a sentence start or in headings but are not names; a title-case
# list never matches them (lower-cased comparison).
_NOT_NAMES = frozenset(
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

_WORD_AFTER = regex.compile(
    r"[ \t]+((?:\p{Lu}\.?[ \t]+)*\p{Lu}[\p{Ll}\p{Lu}'\u2019\-]*\p{Ll}[\p{L}'\u2019\-]*)"
)
# Between two name parts only spaces and initials may stand ("Clara R. Dickson").
_NAME_GAP = regex.compile(r"[ \t]+(?:\p{Lu}\.?[ \t]+)*")
_MODIFIER_POS = frozenset({"NOUN", "PROPN", "ADJ"})
_MAX_MODIFIERS = 3
_WORD_BEFORE = regex.compile(r"(\p{Lu}[\p{Ll}'\u2019\-]*\p{Ll}[\p{L}'\u2019\-]*)[ \t]+$")
_SENTENCE_END_CHARS = frozenset(".!?:;\n\r\"'\u201c\u201d\u2018\u2019>•*-")


def _pluralize(term: str) -> str | None:
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


def _read_terms(path: Path) -> Iterable[str]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            term = line.strip()
            if term and not term.startswith("#"):
                yield term


def _lower(text: str) -> str:
    # Aho-Corasick offsets are used on the original text, so lower-casing must keep lengths;
    # the rare characters whose lower case is longer (e.g. "İ") are kept as they are.
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


@functools.lru_cache(maxsize=4)
def _build_automaton(
    directory: str, lists: tuple[GazetteerList, ...]
) -> tuple[ahocorasick.Automaton, int]:
    """Build (once per list configuration) the automaton mapping lower-cased terms to entries."""
    table: dict[str, list[_Entry]] = {}
    for spec in lists:
        path = Path(spec.file) if Path(spec.file).is_absolute() else Path(directory) / spec.file
        for raw in _read_terms(path):
            exact = raw[1:] if raw.startswith("=") else None
            term = exact or raw
            forms = [term]
            if spec.plural:
                plural = _pluralize(term)
                if plural:
                    forms.append(plural)
            for form in forms:
                key = _lower(form)
                if spec.label in ("PERSON", "LOC") and key in _NOT_NAMES:
                    continue
                entry = _Entry(
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
    automaton = ahocorasick.Automaton()
    for key, entries in table.items():
        automaton.add_word(key, (len(key), tuple(entries)))
    automaton.make_automaton()
    return automaton, len(table)


def _is_boundary(text: str, start: int, end: int) -> bool:
    before_ok = start == 0 or not text[start - 1].isalnum()
    after_ok = end == len(text) or not text[end].isalnum()
    return before_ok and after_ok


def _case_ok(entry: _Entry, surface: str, caseless_text: bool) -> bool:
    if entry.exact is not None:
        return surface == entry.exact
    if entry.case == "title":
        return surface[0].isupper() or caseless_text
    return True


def _sentence_initial(text: str, start: int) -> bool:
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i < 0 or text[i] in _SENTENCE_END_CHARS


class Gazetteer:
    """Matches all configured lists in one Aho-Corasick pass over the lower-cased text."""

    needs_doc = True
    needs_pipes = ("tok2vec", "tagger", "attribute_ruler")

    def __init__(
        self,
        name: str,
        directory: Path,
        lists: Sequence[GazetteerList],
        confidence: float,
        join_names: bool,
        lexicon: frozenset[str],
    ) -> None:
        self.name = name
        self.lexicon = lexicon
        self.directory = directory
        self.lists = tuple(lists)
        self.confidence = confidence
        self.join_names = join_names
        self.automaton, self.size = _build_automaton(str(directory), self.lists)

    def signature(self) -> str:
        """Component name, term count and a digest of the list configuration."""
        spec = repr(self.lists).encode("utf-8")
        return f"{self.name}[{self.size}terms:{hashlib.sha1(spec).hexdigest()[:8]}]"

    def _candidates(self, text: str) -> list[tuple[int, int, _Entry]]:
        lowered = _lower(text)
        # Text written entirely in lower case (chat, forms) carries no capitalisation evidence;
        # title-case lists then match lower-case words that are not English common words.
        caseless_text = lowered == text
        found: list[tuple[int, int, _Entry]] = []
        for end_index, (length, entries) in self.automaton.iter(lowered):
            end = end_index + 1
            start = end - length
            if not _is_boundary(text, start, end):
                continue
            surface = text[start:end]
            for entry in entries:
                if not _case_ok(entry, surface, caseless_text):
                    continue
                if (
                    caseless_text
                    and entry.case == "title"
                    and any(in_lexicon(w, self.lexicon) for w in surface.split())
                ):
                    continue
                found.append((start, end, entry))
                break
        # Longest match first, then leftmost; overlapping shorter matches are dropped.
        found.sort(key=lambda c: (-(c[1] - c[0]), c[0]))
        taken: list[tuple[int, int, _Entry]] = []
        occupied: set[int] = set()
        for start, end, entry in found:
            if occupied.isdisjoint(range(start, end)):
                taken.append((start, end, entry))
                occupied.update(range(start, end))
        taken.sort(key=lambda c: c[0])
        return taken

    def _plausible_name(self, text: str, start: int, end: int, doc: Doc | None) -> bool:
        # Capitalisation is the evidence for names and places, except for a lone word that is
        # also an English common word ("Rose", "Page") or that stands at a sentence start: then
        # the tagger must call it a proper noun.
        surface = text[start:end]
        if " " in surface:
            return True
        common = in_lexicon(surface, self.lexicon)
        if not common and not (surface.isupper() and len(surface) <= 3):
            return True
        if not common and not _sentence_initial(text, start):
            return True
        if doc is None:
            return False
        span = doc.char_span(start, end, alignment_mode="expand")
        return span is not None and all(tok.pos_ == "PROPN" for tok in span)

    def _extend_left(self, text: str, start: int, doc: Doc | None) -> int:
        if doc is None:
            return start
        span = doc.char_span(start, start + 1, alignment_mode="expand")
        if span is None:
            return start
        i = span.start - 1
        taken = 0
        while i >= 0 and taken < _MAX_MODIFIERS:
            tok = doc[i]
            between = text[tok.idx + len(tok.text) : start]
            if "\n" in between or not tok.text[0].isalnum():
                break
            if tok.pos_ not in _MODIFIER_POS and not (tok.text == "-" or tok.whitespace_ == ""):
                break
            if tok.pos_ == "PROPN" and tok.text.isupper():
                break
            start = tok.idx
            taken += 1
            i -= 1
        return start

    def _join_person(self, text: str, names: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
        """Grow name matches over adjacent capitalised words and merge touching PERSON spans.

        ``names`` holds ``(start, end, role)``; a given name takes the capitalised word after it
        (an unknown surname), any name takes a capitalised word before it unless that word
        starts a sentence.
        """
        grown: list[tuple[int, int]] = []
        for start, end, role in names:
            if role == "first":
                m = _WORD_AFTER.match(text, end)
                if m and m.group(1).lower() not in _NOT_NAMES:
                    end = m.end()
            if role in ("first", "last"):
                m = _WORD_BEFORE.search(text, max(0, start - 40), start)
                if (
                    m
                    and m.group(1).lower() not in _NOT_NAMES
                    and not _sentence_initial(text, m.start(1))
                ):
                    start = m.start(1)
            grown.append((start, end))
        merged: list[tuple[int, int]] = []
        for start, end in sorted(grown):
            if merged:
                prev_start, prev_end = merged[-1]
                gap = text[prev_end:start]
                if start <= prev_end or _NAME_GAP.fullmatch(gap):
                    merged[-1] = (prev_start, max(prev_end, end))
                    continue
            merged.append((start, end))
        return merged

    def __call__(self, text: str, doc: Doc | None) -> list[EntitySpan]:
        """Spans for all list terms found in ``text``."""
        out: list[EntitySpan] = []
        people: list[tuple[int, int, str]] = []
        for start, end, entry in self._candidates(text):
            if entry.case == "title" and not self._plausible_name(text, start, end, doc):
                continue
            if entry.extend_left:
                start = self._extend_left(text, start, doc)
            if entry.label == "PERSON" and self.join_names:
                people.append((start, end, entry.role))
                continue
            span = make_span(
                text, start, end, entry.label, self.name, self.confidence, {"list": entry.list_name}
            )
            if span is not None:
                out.append(span)
        if people:
            for start, end in self._join_person(text, people):
                span = make_span(
                    text,
                    start,
                    end,
                    "PERSON",
                    self.name,
                    self.confidence,
                    {"list": "person_names"},
                )
                if span is not None:
                    out.append(span)
        out.sort(key=lambda s: (s.start, s.end))
        return out


@recognizer_component("gazetteer")
def make_gazetteer(
    directory: str | Path | None = None,
    lists: Sequence[GazetteerList | dict[str, object]] | None = None,
    confidence: float = 0.6,
    join_names: bool = True,
    spacy_model: str = DEFAULT_SPACY_MODEL,
) -> Gazetteer:
    """Factory. ``lists`` entries may be ``GazetteerList``s or dicts of its fields (from config).

    ``directory`` holds relative list files (default: the lists packaged with this library,
    ``sanitizer/recognizer/data/gazetteer``).
    ``spacy_model`` supplies the English common-word lexicon used to vet single-word names.
    """
    specs = tuple(
        item if isinstance(item, GazetteerList) else GazetteerList(**item)  # type: ignore[arg-type]
        for item in (lists if lists is not None else DEFAULT_LISTS)
    )
    return Gazetteer(
        "gazetteer",
        Path(directory) if directory else DEFAULT_DIRECTORY,
        specs,
        confidence,
        join_names,
        english_lexicon(spacy_model),
    )
