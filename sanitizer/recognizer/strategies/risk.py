"""``risk``: mask what explicit risk measures call risky, at the least information lost.

Seed 001 §3.2–3.3 through :mod:`sanitizer.risk.pipeline`: the detected spans are grouped
into entities, DIRECT ones (PERSON names, CODE identifiers) are masked, the risk measures
name risky combinations of the others and CP-SAT masks the cheapest entities that break
them all. Every returned span carries ``attrs["reasons"]``.

Called with spans alone (the strategy-registry interface) only the ``lm`` measure can run,
with the context-free scorer and no background. Callers that have the documents use
:meth:`RiskStrategy.document_masker`, which ``sanitize_documents`` does: then the other
input documents (or ``options["background"]``, a documents file) are the background, the
TAB ``meta`` names the person to protect and the options are the dial's settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sanitizer.kanon.labelling import document_id, iter_documents
from sanitizer.recognizer.registry import masking_strategy
from sanitizer.risk.options import RiskOptions
from sanitizer.risk.pipeline import RiskMasker
from sanitizer.types import EntitySpan


class RiskDocumentMasker:
    """Masks whole documents with the risk pipeline; also returns the ``--explain`` record."""

    def __init__(self, documents: Sequence[Mapping[str, Any]], options: Mapping[str, Any]) -> None:
        background_path = options.get("background")
        background = list(iter_documents(background_path)) if background_path else list(documents)
        self.masker = RiskMasker(
            RiskOptions.from_mapping(options),
            [(document_id(d, i), str(d["text"])) for i, d in enumerate(background, 1)],
        )

    def mask(
        self, document: Mapping[str, Any], spans: Sequence[EntitySpan]
    ) -> tuple[list[EntitySpan], dict[str, Any]]:
        """``(masked spans, explain record)`` of one document (``doc_id``, ``text``, ``meta``)."""
        meta = document.get("meta")
        assessment = self.masker.assess(
            str(document["doc_id"]),
            str(document["text"]),
            spans,
            meta=meta if isinstance(meta, Mapping) else None,
        )
        return assessment.masked_spans(), assessment.explain()


class RiskStrategy:
    """The registered ``risk`` strategy (see the module docstring)."""

    def __call__(self, spans: Sequence[EntitySpan]) -> list[EntitySpan]:
        """Spans only: DIRECT entities plus the ``lm`` measure's choice."""
        masker = RiskMasker(RiskOptions(measures=("lm",)))
        return masker.assess("", "", spans).masked_spans()

    def document_masker(
        self, documents: Sequence[Mapping[str, Any]], options: Mapping[str, Any]
    ) -> RiskDocumentMasker:
        """A masker for this collection of documents with these settings."""
        return RiskDocumentMasker(documents, options)


risk = masking_strategy("risk")(RiskStrategy())
