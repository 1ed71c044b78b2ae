"""``gazetteer``: term lists (demographic, miscellaneous, names, places) matched with Aho-Corasick.

Every list is a UTF-8 file with one term per line (``#`` starts a comment line). A term written
``=Term`` must match with exactly that capitalisation; other terms follow the list's case policy:

* ``any``: case-insensitive (attribute words such as occupations or diseases);
* ``title``: the matched text must start with an upper-case letter (names and places, so that
  "rose" or "bath" as common nouns are not taken for "Rose" or "Bath"). In a text with no
  upper-case letter at all, lower-case matches are accepted unless they are English common words.

Matches must sit on token boundaries (the shared matcher's ``"strict"`` rule of
:mod:`sanitizer.textmatch`: no letter or digit on either side) and the longest match wins among
overlapping ones. The lists and their loading are in
:mod:`sanitizer.recognizer.components.gazetteer_lists`; lists, labels and policies are documented
in ``sanitizer/recognizer/data/gazetteer/README.md``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import regex

from sanitizer.recognizer.base import DEFAULT_SPACY_MODEL, english_lexicon, in_lexicon
from sanitizer.recognizer.components.gazetteer_lists import (
    DEFAULT_DIRECTORY,
    DEFAULT_LISTS,
    NOT_NAMES,
    GazetteerList,
    ListEntry,
    load_term_table,
)
from sanitizer.recognizer.registry import recognizer_component
from sanitizer.recognizer.spans import make_span, sentence_initial
from sanitizer.textmatch import longest_first, lower_same_length
from sanitizer.types import EntitySpan

if TYPE_CHECKING:
    from spacy.tokens import Doc

__all__ = ["DEFAULT_LISTS", "Gazetteer", "GazetteerList", "make_gazetteer"]


_WORD_AFTER = regex.compile(
    r"[ \t]+((?:\p{Lu}\.?[ \t]+)*\p{Lu}[\p{Ll}\p{Lu}'\u2019\-]*\p{Ll}[\p{L}'\u2019\-]*)"
)
# Between two name parts only spaces and initials may stand ("Clara R. Dickson").
_NAME_GAP = regex.compile(r"[ \t]+(?:\p{Lu}\.?[ \t]+)*")
_MODIFIER_POS = frozenset({"NOUN", "PROPN", "ADJ"})
_MAX_MODIFIERS = 3
_WORD_BEFORE = regex.compile(r"(\p{Lu}[\p{Ll}'\u2019\-]*\p{Ll}[\p{L}'\u2019\-]*)[ \t]+$")


# A word after one of these (or at the start of the text) starts a sentence or a heading.
_SENTENCE_END_CHARS = frozenset(".!?:;\n\r\"'\u201c\u201d\u2018\u2019>•*-")


def _case_ok(entry: ListEntry, surface: str, caseless_text: bool) -> bool:
    if entry.exact is not None:
        return surface == entry.exact
    if entry.case == "title":
        return surface[0].isupper() or caseless_text
    return True


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
        table = load_term_table(str(directory), self.lists)
        self.matcher = table.matcher
        self.entries = table.entries
        self.size = len(table.entries)

    def signature(self) -> str:
        """Component name, term count and a digest of the list configuration."""
        spec = repr(self.lists).encode("utf-8")
        return f"{self.name}[{self.size}terms:{hashlib.sha1(spec).hexdigest()[:8]}]"

    def _candidates(self, text: str) -> list[tuple[int, int, ListEntry]]:
        lowered = lower_same_length(text)
        # Text written entirely in lower case (chat, forms) carries no capitalisation evidence;
        # title-case lists then match lower-case words that are not English common words.
        caseless_text = lowered == text
        found: list[tuple[int, int, ListEntry]] = []
        # Lower-casing keeps letters and digits what they are, so boundaries found in the
        # lower-cased text are those of the original.
        for start, end, key in self.matcher.find(lowered):
            surface = text[start:end]
            for entry in self.entries[key]:
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
        return longest_first(found)

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
        if not common and not sentence_initial(text, start, _SENTENCE_END_CHARS):
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
                if m and m.group(1).lower() not in NOT_NAMES:
                    end = m.end()
            if role in ("first", "last"):
                m = _WORD_BEFORE.search(text, max(0, start - 40), start)
                if (
                    m
                    and m.group(1).lower() not in NOT_NAMES
                    and not sentence_initial(text, m.start(1), _SENTENCE_END_CHARS)
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
