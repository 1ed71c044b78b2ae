"""``spacy_ner``: a generic spaCy NER model with its labels mapped to TAB's 8 categories."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

import regex

from sanitizer.recognizer.registry import recognizer_component
from sanitizer.recognizer.spans import make_span
from sanitizer.types import EntitySpan

if TYPE_CHECKING:
    from spacy.tokens import Doc

# OntoNotes labels -> TAB categories. ORDINAL is left out: "first", "second" rarely single out a
# person and TAB almost never annotates them. CARDINAL is kept as QUANTITY because counts ("two
# children", "five attacks") are annotated QUANTITY in TAB; bare "one" is dropped below.
DEFAULT_LABEL_MAP: dict[str, str] = {
    "PERSON": "PERSON",
    "GPE": "LOC",
    "LOC": "LOC",
    "FAC": "LOC",
    "ORG": "ORG",
    "NORP": "DEM",
    "DATE": "DATETIME",
    "TIME": "DATETIME",
    "MONEY": "QUANTITY",
    "QUANTITY": "QUANTITY",
    "PERCENT": "QUANTITY",
    "CARDINAL": "QUANTITY",
    "EVENT": "MISC",
    "WORK_OF_ART": "MISC",
    "LAW": "MISC",
    "PRODUCT": "MISC",
    "LANGUAGE": "MISC",
}
# Cardinals that are mostly pronouns or articles in running text ("one of them").
_WEAK_CARDINALS = frozenset({"one", "One", "ONE"})
# A DATE/TIME entity is kept only if it pins time down: a digit, a month or weekday name, a
# number word or a named period. Vague relative expressions ("next week", "a few months ago",
# "the following year") do not identify anyone.
_SPECIFIC_TIME = regex.compile(
    r"\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\b|"
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day|\b(?:one|two|three|four|five|six|seven|eight|"
    r"nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
    r"twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|half|christmas|easter|"
    r"spring|summer|autumn|fall|winter|noon|midnight|century|decade)\b",
    regex.IGNORECASE,
)


def _digest(value: str) -> str:
    # A stable (unlike hash()) short digest so that the version string changes with the mapping.
    return hashlib.sha1(value.encode("utf-8")).hexdigest()[:8]


class SpacyNer:
    """Maps ``doc.ents`` of the pipeline's shared spaCy ``Doc`` to ``EntitySpan``s."""

    needs_doc = True
    needs_pipes = ("tok2vec", "ner")

    def __init__(
        self,
        name: str,
        label_map: Mapping[str, str],
        confidence: float,
        drop_vague_dates: bool = True,
    ) -> None:
        self.name = name
        self.drop_vague_dates = drop_vague_dates
        self.label_map = dict(label_map)
        self.confidence = confidence

    def signature(self) -> str:
        """Component name plus a digest of its label map."""
        mapped = ";".join(f"{k}:{v}" for k, v in sorted(self.label_map.items()))
        return f"{self.name}[{_digest(mapped)}:vague={int(not self.drop_vague_dates)}]"

    def __call__(self, text: str, doc: Doc | None) -> list[EntitySpan]:
        """Spans for the mapped entities of ``doc`` (required)."""
        if doc is None:
            raise ValueError("spacy_ner needs the spaCy Doc")
        out: list[EntitySpan] = []
        for ent in doc.ents:
            label = self.label_map.get(ent.label_)
            if label is None:
                continue
            if ent.label_ == "CARDINAL" and ent.text in _WEAK_CARDINALS:
                continue
            if (
                self.drop_vague_dates
                and ent.label_ in ("DATE", "TIME")
                and not _SPECIFIC_TIME.search(ent.text)
            ):
                continue
            span = make_span(
                text,
                ent.start_char,
                ent.end_char,
                label,
                self.name,
                self.confidence,
                {"ner_label": ent.label_},
            )
            if span is not None:
                out.append(span)
        return out


@recognizer_component("spacy_ner")
def make_spacy_ner(
    label_map: Mapping[str, str] | None = None,
    confidence: float = 0.7,
    drop_vague_dates: bool = True,
) -> SpacyNer:
    """Factory: ``label_map`` overrides the OntoNotes -> TAB mapping (unmapped labels dropped).

    ``drop_vague_dates`` drops DATE/TIME entities with nothing specific in them (see
    ``_SPECIFIC_TIME``). The spaCy model itself is chosen by the pipeline config
    (``spacy_model``) because all components share one spaCy pass.
    """
    return SpacyNer("spacy_ner", label_map or DEFAULT_LABEL_MAP, confidence, drop_vague_dates)
