"""Shared pieces of the re-identification API: the 409 answer and the masks field."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.response import Response

from common.apis import BaseApi
from reid.selectors import ReidUnavailable

MAX_MASKS = 10_000
K_BOUNDS = (1, 1000)
TOP_BOUNDS = (1, 50)
DEFAULT_TOP = 5


class ReidConflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "the document cannot be ranked"
    default_code = "reid_unavailable"


class ReidApi(BaseApi):
    """A view whose selector may find no target person or no ready knowledge base: that
    is a state of the document (409 with what is missing), not a bad request."""

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, ReidUnavailable):
            exc = ReidConflict(str(exc))
        return super().handle_exception(exc)


@extend_schema_field(
    {
        "type": "array",
        "maxItems": MAX_MASKS,
        "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
    }
)
class MasksField(serializers.Field):
    """``[[start, end], ...]``: at most :data:`MAX_MASKS` pairs of integers, start < end.

    Checked by hand rather than as nested list fields: the editor sends the masks with
    every decision, and ten thousand nested fields would cost more than the rank itself.
    Whether the offsets fall inside the text is checked against the document
    (``reid.selectors.checked_masks``).
    """

    default_error_messages = {
        "not_a_list": "masks must be a list of [start, end] pairs",
        "too_many": f"at most {MAX_MASKS} masks",
        "bad_pair": "mask #{index} must be [start, end] with integers 0 <= start < end",
    }

    def to_internal_value(self, data: Any) -> list[tuple[int, int]]:
        if not isinstance(data, list):
            self.fail("not_a_list")
        if len(data) > MAX_MASKS:
            self.fail("too_many")
        out = []
        for index, pair in enumerate(data):
            if (
                not isinstance(pair, list | tuple)
                or len(pair) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in pair)
                or not 0 <= pair[0] < pair[1]
            ):
                self.fail("bad_pair", index=index)
            out.append((int(pair[0]), int(pair[1])))
        return out

    def to_representation(self, value: Any) -> list[list[int]]:
        return [[int(s), int(e)] for s, e in value]


def k_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=K_BOUNDS[0], max_value=K_BOUNDS[1], **kwargs)
