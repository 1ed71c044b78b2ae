"""Tokens through the API: make one with a username and password (login throttling
applies), list one's own, revoke one or all."""

from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import selectors, services
from common.apis import BaseApi, BaseListApi, current_user, parse


class TokenOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The key's first characters.")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)


class TokenCreateApi(BaseApi):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=4096, trim_whitespace=False)
        name = serializers.CharField(max_length=100, required=False, default="", allow_blank=True)
        days = serializers.IntegerField(required=False, min_value=1, allow_null=True, default=None)

    class OutputSerializer(TokenOutputSerializer):
        token = serializers.CharField(help_text="The key: shown this once, stored only hashed.")

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer},
        summary="Make an API token (send it as `Authorization: Token <key>`)",
    )
    def post(self, request: Request) -> Response:
        data = parse(self.InputSerializer, request.data)
        # Through authenticate with the request: django-axes counts and locks out here.
        user = authenticate(
            request=request._request, username=data["username"], password=data["password"]
        )
        if getattr(request._request, "axes_locked_out", False):
            return Response(
                {"detail": "too many wrong passwords: this login is locked for a while"},
                status=status.HTTP_429_TOO_MANY_REQUESTS,
            )
        if user is None:
            raise serializers.ValidationError(
                {"non_field_errors": ["Unable to log in with provided credentials."]}
            )
        token, key = services.token_create(user=user, name=data["name"], days=data["days"])
        output = {**TokenOutputSerializer(token).data, "token": key}
        return Response(self.OutputSerializer(output).data, status=status.HTTP_200_OK)


class TokenListApi(BaseListApi):
    @extend_schema(responses=TokenOutputSerializer(many=True), summary="Your API tokens")
    def get(self, request: Request) -> Response:
        tokens = selectors.token_list(user=current_user(request))
        return self.paginated(request, tokens, TokenOutputSerializer)


class TokenRevokeApi(BaseApi):
    @extend_schema(
        request=None, responses=TokenOutputSerializer, summary="Revoke one of your tokens"
    )
    def post(self, request: Request, token_id: int) -> Response:
        token = selectors.token_for_user(user=current_user(request), token_id=token_id)
        if token is None:
            raise NotFound("no such token")
        return Response(TokenOutputSerializer(services.token_revoke(token=token)).data)


class TokenRevokeAllApi(BaseApi):
    class OutputSerializer(serializers.Serializer):
        revoked = serializers.IntegerField()

    @extend_schema(request=None, responses=OutputSerializer, summary="Revoke all your tokens")
    def post(self, request: Request) -> Response:
        revoked = services.tokens_revoke_all(user=current_user(request))
        return Response(self.OutputSerializer({"revoked": revoked}).data)
