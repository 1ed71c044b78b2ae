"""Features of one detected entity in its document, for the supervised risk model.

The model judges the entities the measures judge
(:func:`~sanitizer.risk.measures.common.candidates`: not DIRECT, not the person to
protect, which are masked anyway), so those two facts are not features. It sees only
general properties: the semantic type, how surprising the words are (the same scorer as
the ``lm`` measure and the solver's IC), size, how often and where the entity occurs, how
common it is across the collection, whether it shares a word with the person's name, its
shape (digits, capitals) and which detector found it. Nothing is keyed on particular
strings, so a model transfers to documents it has not seen.

"The collection" is the documents sanitized together (at training: the training
documents), as for the scorer's background; a document never counts itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import mean

from sanitizer.risk import RiskDocument, RiskEntity
from sanitizer.risk.entities import entity_text, normalise, words_of
from sanitizer.risk.surprisal import SurprisalScorer

TYPES = ("PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC")
SOURCES = ("rules", "spacy_ner", "gazetteer", "proper_nouns")

FEATURES: tuple[str, ...] = (
    *(f"type={t}" for t in TYPES),
    "type=OTHER",
    "shares_person_word",
    "ic_peak",
    "ic_sum",
    "ic_mean",
    "n_tokens",
    "n_chars",
    "mentions",
    "surface_forms",
    "doc_share",
    "in_other_docs",
    "first_position",
    "spread",
    "digit_share",
    "capital_share",
    "has_digit",
    *(f"source={s}" for s in SOURCES),
    "confidence",
    "entities_per_kchar",
)
"""The model's input columns, in order (stored with every model)."""


class CollectionFrequency:
    """In how many of the collection's other documents an entity's surface form occurs."""

    def __init__(self, documents: Sequence[tuple[str, str]]) -> None:
        """``documents``: ``(doc_id, text)`` pairs."""
        self._texts = [(doc_id, text.casefold()) for doc_id, text in documents]

    def share(self, surface: str, *, exclude: str | None = None) -> float:
        """Share of the other documents containing ``surface`` (case-insensitive)."""
        needle = surface.casefold().strip()
        others = [text for doc_id, text in self._texts if doc_id != exclude]
        if not needle or not others:
            return 0.0
        return sum(needle in text for text in others) / len(others)


def _person_words(document: RiskDocument) -> set[str]:
    return set(words_of(document.person)) if document.person else set()


def entity_features(
    document: RiskDocument,
    entity: RiskEntity,
    scorer: SurprisalScorer,
    collection: CollectionFrequency | None = None,
) -> list[float]:
    """The :data:`FEATURES` of ``entity`` in ``document``, in order."""
    surface = entity_text(entity)
    surprisals = [t.nats for t in scorer.token_surprisals(surface, exclude=document.doc_id)]
    words = surface.split()
    letters = [c for c in surface if c.isalnum()]
    length = len(document.text) or 1
    starts = [m.start for m in entity.mentions]
    sources = [m.source for m in entity.mentions]
    confidences = [m.confidence for m in entity.mentions if m.confidence is not None]
    share = collection.share(surface, exclude=document.doc_id) if collection else 0.0
    person_words = _person_words(document)
    values: dict[str, float] = {f"type={t}": float(entity.label == t) for t in TYPES}
    values["type=OTHER"] = float(entity.label not in TYPES)
    values.update(
        {
            "shares_person_word": float(bool(person_words & set(normalise(surface).split()))),
            "ic_peak": max(surprisals, default=0.0),
            "ic_sum": sum(surprisals),
            "ic_mean": mean(surprisals) if surprisals else 0.0,
            "n_tokens": float(len(surprisals)),
            "n_chars": float(len(surface)),
            "mentions": float(len(entity.mentions)),
            "surface_forms": float(len({normalise(m.text) for m in entity.mentions})),
            "doc_share": share,
            "in_other_docs": float(share > 0),
            "first_position": min(starts) / length,
            "spread": (max(starts) - min(starts)) / length,
            "digit_share": sum(c.isdigit() for c in letters) / len(letters) if letters else 0.0,
            "capital_share": sum(w[:1].isupper() for w in words) / len(words) if words else 0.0,
            "has_digit": float(any(c.isdigit() for c in surface)),
            "confidence": mean(confidences) if confidences else 0.0,
            "entities_per_kchar": 1000 * len(document.entities) / length,
        }
    )
    for source in SOURCES:
        values[f"source={source}"] = sources.count(source) / len(sources) if sources else 0.0
    return [values[name] for name in FEATURES]
