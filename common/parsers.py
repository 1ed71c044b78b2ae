"""Request parsers with limits: every JSON body and every upload is bounded.

``BoundedJSONParser`` replaces DRF's JSONParser (``DEFAULT_PARSER_CLASSES``): a body
over ``API_JSON_MAX_BYTES`` is refused (413) before it is read, nesting past
``JSON_MAX_DEPTH`` before it is built, and values PostgreSQL cannot store (NUL,
lone surrogates, NaN, 1e400) with a 400 naming the field (``sanitizer.formats.
bounded_json``). ``UploadLimitMultiPartParser`` counts file bytes as they arrive and
stops reading at the limit of the view's ``upload_kind`` (``UPLOAD_MAX_BYTES``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any, cast

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest
from django.http.multipartparser import MultiPartParser as DjangoMultiPartParser
from django.http.multipartparser import MultiPartParserError
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import DataAndFiles, JSONParser, MultiPartParser

from sanitizer.formats.bounded_json import JsonLimitError, loads

# Form fields and part headers around the file; a request longer than the limit
# plus this is refused from its Content-Length alone, before a byte is read.
MULTIPART_OVERHEAD_BYTES = 1024 * 1024
DEFAULT_UPLOAD_KIND = "default"


class RequestTooLarge(APIException):
    status_code = 413
    default_detail = "the request is too large"
    default_code = "request_too_large"


def _content_length(request: Any) -> int:
    try:
        return max(int(request.META.get("CONTENT_LENGTH") or 0), 0)
    except (TypeError, ValueError):
        return 0


def _size(limit: int) -> str:
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if limit >= factor:
            return f"{limit / factor:.4g} {unit}"
    return f"{limit} bytes"


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser with a size limit, a depth limit and storable values only."""

    def parse(
        self,
        stream: IO[bytes] | None,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        limit: int = settings.API_JSON_MAX_BYTES
        request = (parser_context or {}).get("request")
        if request is not None and _content_length(request) > limit:
            raise RequestTooLarge(f"JSON bodies are limited to {_size(limit)}")
        data = stream.read(limit + 1) if stream is not None else b""
        if len(data) > limit:
            raise RequestTooLarge(f"JSON bodies are limited to {_size(limit)}")
        try:
            return loads(data, max_depth=settings.JSON_MAX_DEPTH)
        except JsonLimitError as exc:
            if exc.field:
                raise ParseError({exc.field: [str(exc)]}) from exc
            raise ParseError(f"JSON parse error - {exc}") from exc


def upload_max_bytes(kind: str) -> int:
    """The configured limit for uploads of ``kind`` (``UPLOAD_MAX_BYTES``)."""
    limits: Mapping[str, int] = settings.UPLOAD_MAX_BYTES
    return int(limits.get(kind, limits[DEFAULT_UPLOAD_KIND]))


class _LimitHandler(FileUploadHandler):
    """First of the upload handlers: stops the upload once the files pass ``limit``.

    Stopping with ``connection_reset`` reads no more of the body; Django closes the
    handlers' files, which deletes the temporary file holding what came so far.
    """

    def __init__(self, request: HttpRequest, limit: int) -> None:
        super().__init__(request)
        self.limit = limit
        self.received = 0
        self.exceeded = False

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        if self.received > self.limit:
            self.exceeded = True
            raise StopUpload(connection_reset=True)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


class UploadLimitMultiPartParser(MultiPartParser):
    """Multipart parser that refuses files over the view's ``upload_kind`` limit (413)."""

    def parse(
        self,
        stream: IO[bytes] | None,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> DataAndFiles:
        context = parser_context or {}
        request = context["request"]
        kind = getattr(context.get("view"), "upload_kind", DEFAULT_UPLOAD_KIND)
        limit = upload_max_bytes(kind)
        message = f"uploads ({kind}) are limited to {_size(limit)}"
        if _content_length(request) > limit + MULTIPART_OVERHEAD_BYTES:
            raise RequestTooLarge(message)
        meta = request.META.copy()
        meta["CONTENT_TYPE"] = media_type
        guard = _LimitHandler(request._request, limit)
        handlers = [guard, *request.upload_handlers]
        encoding = context.get("encoding", settings.DEFAULT_CHARSET)
        try:
            parser = DjangoMultiPartParser(meta, cast(Any, stream), handlers, encoding)
            data, files = parser.parse()
        except MultiPartParserError as exc:
            raise ParseError(f"Multipart form parse error - {exc}") from exc
        if guard.exceeded:
            raise RequestTooLarge(message)
        return DataAndFiles(data, files)
