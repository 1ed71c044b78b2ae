"""REST API of the re-identification app (one view per operation)."""

from reid.apis.curve import ProjectReidCurveApi
from reid.apis.documents import (
    DocumentReidApi,
    DocumentReidRankApi,
    DocumentReidSuggestApi,
    DocumentReidTargetApi,
    DocumentReidVersionsApi,
)

__all__ = [
    "DocumentReidApi",
    "DocumentReidRankApi",
    "DocumentReidSuggestApi",
    "DocumentReidTargetApi",
    "DocumentReidVersionsApi",
    "ProjectReidCurveApi",
]
