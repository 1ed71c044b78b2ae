"""``tfidf-char``: cosine of character n-gram TF-IDF vectors (scikit-learn).

An attacker the greedy search never consults (by default): the evaluation checks the
greedy masks against it, so a mask that only fools the search's own models shows up.
Masked words are removed from the text before vectorising; cosine similarities are
multiplied by ``scale`` so that softmax gives a usable distribution.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer

from sanitizer.kanon.kb import Person
from sanitizer.reid.base import Span, reid_models
from sanitizer.reid.profiles import kb_fingerprint, profile_rows, profile_text
from sanitizer.reid.words import masked_text


class TfidfCharModel:
    """``TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5))`` fitted on the profiles."""

    name = "tfidf-char"

    def __init__(self, profiles: Sequence[Person], *, scale: float = 20.0) -> None:
        self.profiles = list(profiles)
        self.profile_ids = [p.id for p in self.profiles]
        self.scale = float(scale)
        self.version = (
            f"sklearn-{sklearn.__version__}-char_wb3-5-kb={kb_fingerprint(self.profiles)}"
        )
        self.vectorizer = TfidfVectorizer(
            analyzer="char_wb", ngram_range=(3, 5), lowercase=True, sublinear_tf=True
        )
        self.matrix = self.vectorizer.fit_transform([profile_text(p) for p in self.profiles])

    def scores(self, texts: Sequence[str], masks: Sequence[Sequence[Span]]) -> np.ndarray:
        """``scale * cosine`` of each masked text with every profile (rows are L2-normalised)."""
        kept = [masked_text(t, m, token="") for t, m in zip(texts, masks, strict=True)]
        queries = self.vectorizer.transform(kept)
        sims = (queries @ self.matrix.T).toarray()
        return np.asarray(sims * self.scale, dtype=np.float32)

    def links(self, text: str, masks: Sequence[Span], index: int, limit: int = 5) -> list[str]:
        """Profile ``index``'s rows most similar (char n-grams) to the unmasked text."""
        query = self.vectorizer.transform([masked_text(text, masks, token="")])
        rows = profile_rows(self.profiles[index])
        sims = (self.vectorizer.transform(rows) @ query.T).toarray().ravel()
        order = np.argsort(-sims, kind="stable")
        return [rows[i] for i in order[:limit] if sims[i] > 0.05]


@reid_models.register("tfidf-char")
def tfidf_char(
    profiles: Sequence[Person], *, model_dir: str | None = None, **options: Any
) -> TfidfCharModel:
    """Needs no trained model: ``model_dir`` is ignored."""
    return TfidfCharModel(profiles, **options)
