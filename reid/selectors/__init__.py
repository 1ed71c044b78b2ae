"""Reads of the re-identification app."""

from reid.selectors.curve import project_reid_curve
from reid.selectors.ranking import (
    checked_masks,
    document_rank,
    document_suggest,
    document_version_ranks,
)
from reid.selectors.targets import (
    DEFAULT_K,
    ReidContext,
    ReidUnavailable,
    ResolvedTarget,
    document_reid_info,
    document_target,
    ready_knowledge_bases,
    reid_context,
)

__all__ = [
    "DEFAULT_K",
    "ReidContext",
    "ReidUnavailable",
    "ResolvedTarget",
    "checked_masks",
    "document_rank",
    "document_reid_info",
    "document_suggest",
    "document_target",
    "document_version_ranks",
    "project_reid_curve",
    "ready_knowledge_bases",
    "reid_context",
]
