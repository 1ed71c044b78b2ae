"""API infrastructure every app's views build on: the base views, input parsing
and the mapping of domain errors to HTTP answers."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import as_serializer_error
from rest_framework.views import APIView, set_rollback
from rest_framework.views import exception_handler as drf_exception_handler

from common.errors import DomainError, StaleVersionError, TooLargeError
from common.pagination import CappedLimitOffsetPagination
from sanitizer.formats.bounded_json import JsonLimitError, check_value
from sanitizer.formats.tab import FormatError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Map domain exceptions to HTTP answers; everything else goes to DRF's handler."""
    if isinstance(exc, StaleVersionError):
        set_rollback()
        return Response(
            {"detail": str(exc), "current": exc.current}, status=status.HTTP_409_CONFLICT
        )
    if isinstance(exc, FormatError):
        set_rollback()
        return Response(
            {
                "detail": str(exc),
                "doc_id": exc.doc_id,
                "mention_id": exc.mention_id,
                "problem": exc.problem,
            },
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, TooLargeError):
        set_rollback()
        return Response({"detail": str(exc)}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, DomainError):
        set_rollback()
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DjangoValidationError):
        set_rollback()
        return Response(as_serializer_error(exc), status=status.HTTP_400_BAD_REQUEST)
    return drf_exception_handler(exc, context)


class ApiSchema(AutoSchema):
    """Names schema components after the view owning the nested serializer
    (``ProjectCreateApi.InputSerializer`` → ``ProjectCreateInput``); every view
    nests classes with the same names, which would otherwise collide."""

    def get_serializer_name(self, serializer: serializers.Serializer, direction: Any) -> str:
        cls = type(serializer)
        owner, _, name = cls.__qualname__.rpartition(".")
        if not owner:
            return cls.__name__
        return owner.removesuffix("Api") + name.removesuffix("Serializer")


class BaseApi(APIView):
    schema = ApiSchema()


class BaseListApi(BaseApi):
    # No docstring: spectacular would copy it into every list operation.
    # Capped even if the setting names another class.
    pagination_class: Any = CappedLimitOffsetPagination

    def paginated(
        self, request: Request, queryset: QuerySet[Any] | list[Any], output: type
    ) -> Response:
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(queryset, request, view=self)
        return paginator.get_paginated_response(output(page, many=True).data)


def parse(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    """Validated input; values PostgreSQL cannot store (NUL, lone surrogates, NaN) are
    refused naming the field, whichever parser (JSON or a form) they came through."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    validated = dict(serializer.validated_data)
    try:
        check_value(validated, max_depth=settings.JSON_MAX_DEPTH + 1)
    except JsonLimitError as exc:
        raise serializers.ValidationError({exc.field or "non_field_errors": [str(exc)]}) from exc
    return validated


def current_user(request: Request) -> Any:
    return request.user
