"""``proper_nouns``: unknown capitalised names that no other component recognised.

Generic NER models miss rare foreign names ("Ravil G Yefimov", "TYSTBERGA"); for privacy, any
proper noun is a candidate. A token qualifies if it is capitalised and not an English common word
(lexicon from the spaCy model's lemmatizer tables plus its stop words), so headings ("THE
FACTS") and title-cased phrases stay unmasked; a sentence-initial token must also be tagged
PROPN.
Runs of such tokens (with initials and name particles inside) become one span labelled LOC after
a locative cue ("in", "from"...), PERSON after a person cue ("by", "Dear"...), else MISC.
The overlap policy gives this component the lowest priority, so it only fills gaps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import regex

from sanitizer.recognizer.base import DEFAULT_SPACY_MODEL, english_lexicon, in_lexicon
from sanitizer.recognizer.registry import recognizer_component
from sanitizer.recognizer.spans import make_span, sentence_initial
from sanitizer.types import EntitySpan

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_LOCATIVE_CUES = frozenset(
    [
        "in",
        "to",
        "from",
        "at",
        "near",
        "via",
        "towards",
        "toward",
        "city",
        "town",
        "village",
        "visit",
        "visited",
        "visiting",
    ]
)
_PERSON_CUES = frozenset(
    [
        "by",
        "dear",
        "name",
        "named",
        "called",
        "with",
        "and",
        "mr",
        "mr.",
        "mrs",
        "mrs.",
        "ms",
        "ms.",
        "miss",
        "dr",
        "dr.",
        "prof",
        "prof.",
        "sir",
        "madam",
        "judge",
    ]
)
_PARTICLES = frozenset(
    [
        "de",
        "la",
        "le",
        "du",
        "des",
        "di",
        "del",
        "della",
        "da",
        "do",
        "dos",
        "das",
        "van",
        "von",
        "der",
        "den",
        "ten",
        "ter",
    ]
)
_APOSTROPHE = regex.compile(r"['\u2019]")
_SENTENCE_END = frozenset(".!?:;\n\r\"'\u201c\u201d>|•")


class ProperNouns:
    """Finds runs of capitalised tokens that look like names but are not common words."""

    needs_doc = True
    needs_pipes = ("tok2vec", "tagger", "attribute_ruler")

    def __init__(self, name: str, lexicon: frozenset[str], confidence: float, min_len: int) -> None:
        self.name = name
        self.lexicon = lexicon
        self.confidence = confidence
        self.min_len = min_len

    def signature(self) -> str:
        """Component name, lexicon size and minimum token length."""
        return f"{self.name}[lex{len(self.lexicon)}:min{self.min_len}]"

    def _qualifies(self, text: str, tok: Token) -> bool:
        word = tok.text
        if len(word) < self.min_len or not word[0].isupper():
            return False
        if not all(ch.isalpha() or ch in "-'\u2019" for ch in word):
            return False
        # Contractions and possessives ("DON'T", "Anna's") are judged by their first part.
        stem = _APOSTROPHE.split(word, maxsplit=1)[0]
        if len(stem) < self.min_len or in_lexicon(stem, self.lexicon):
            return False
        # An unknown all-caps word of 4+ letters (a place on its own address line) needs no tag.
        if word.isupper() and len(stem) >= 4:
            return True
        return tok.pos_ == "PROPN" or not sentence_initial(text, tok.idx, _SENTENCE_END)

    def _label(self, text: str, doc: Doc, first: int) -> str:
        if first == 0:
            return "MISC"
        prev = doc[first - 1].lower_
        if prev in _LOCATIVE_CUES:
            return "LOC"
        if prev in _PERSON_CUES:
            return "PERSON"
        return "MISC"

    def __call__(self, text: str, doc: Doc | None) -> list[EntitySpan]:
        """Spans over qualifying capitalised token runs of ``doc`` (required)."""
        if doc is None:
            raise ValueError("proper_nouns needs the spaCy Doc")
        out: list[EntitySpan] = []
        i, n = 0, len(doc)
        while i < n:
            if not self._qualifies(text, doc[i]):
                i += 1
                continue
            j = i + 1
            while j < n:
                tok = doc[j]
                if "\n" in text[doc[j - 1].idx + len(doc[j - 1].text) : tok.idx]:
                    break
                if self._qualifies(text, tok):
                    j += 1
                elif (
                    (tok.lower_ in _PARTICLES or (len(tok.text) <= 2 and tok.text[0].isupper()))
                    and j + 1 < n
                    and self._qualifies(text, doc[j + 1])
                ):
                    j += 2
                else:
                    break
            span = make_span(
                text,
                doc[i].idx,
                doc[j - 1].idx + len(doc[j - 1].text),
                self._label(text, doc, i),
                self.name,
                self.confidence,
            )
            if span is not None:
                out.append(span)
            i = j
        return out


@recognizer_component("proper_nouns")
def make_proper_nouns(
    spacy_model: str = DEFAULT_SPACY_MODEL, confidence: float = 0.4, min_len: int = 3
) -> ProperNouns:
    """Factory: ``spacy_model`` supplies the lexicon (its lemmatizer tables)."""
    return ProperNouns("proper_nouns", english_lexicon(spacy_model), confidence, min_len)
