"""API tokens, under /api/auth/ (included before the annotation app's URLs)."""

from django.urls import path

from accounts import apis

urlpatterns = [
    path("auth/token/", apis.TokenCreateApi.as_view(), name="api-token"),
    path("auth/tokens/", apis.TokenListApi.as_view(), name="api-token-list"),
    path("auth/tokens/revoke-all/", apis.TokenRevokeAllApi.as_view(), name="api-token-revoke-all"),
    path(
        "auth/tokens/<int:token_id>/revoke/",
        apis.TokenRevokeApi.as_view(),
        name="api-token-revoke",
    ),
]
