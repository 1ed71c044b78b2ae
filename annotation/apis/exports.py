"""Exporting a project: TAB JSON, TAB's mask format, or the released texts."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, selectors
from annotation.permissions import REVIEWER_ROLES
from common.apis import BaseApi, current_user, parse
from sanitizer.formats.release import REPLACEMENT_STYLES


class _ExportNegotiation(DefaultContentNegotiation):
    """``?format=`` names the export format on this view, not a DRF renderer."""

    class settings:  # the attribute DefaultContentNegotiation reads
        URL_FORMAT_OVERRIDE = None


_SOURCE = re.compile(r"^(auto|gold|annotator:.+|machine:.+)$")


def _json_array(items: Iterable[Any]) -> Iterator[str]:
    yield "["
    for position, item in enumerate(items):
        yield ("," if position else "") + "\n" + json.dumps(item, ensure_ascii=False)
    yield "\n]\n"


class ProjectExportApi(BaseApi):
    content_negotiation_class = _ExportNegotiation

    class FilterSerializer(serializers.Serializer):
        format = serializers.ChoiceField(
            choices=["tab", "masks", "text"],
            default="tab",
            help_text="tab: TAB JSON; masks: {doc_id: [[start, end]]}; text: released texts.",
        )
        # The serializer metaclass takes declared fields out of the class, so these
        # names do not shadow Field attributes at run time; only the stubs object.
        source = serializers.RegexField(  # type: ignore[assignment]
            _SOURCE,
            default="auto",
            help_text="masks/text: auto, gold, annotator:<username> or machine:<source name>.",
        )
        style = serializers.ChoiceField(  # type: ignore[assignment]
            choices=list(REPLACEMENT_STYLES), default="type"
        )
        include_machine = serializers.BooleanField(default=False, help_text="tab only.")
        include_gold = serializers.BooleanField(default=False, help_text="tab only.")

    @extend_schema(
        parameters=[FilterSerializer],
        responses={(200, "application/json"): OpenApiTypes.ANY},
        summary="Export the project (admins and reviewers)",
    )
    def get(self, request: Request, project_id: int) -> Response | StreamingHttpResponse:
        project = permissions.project_for_user(
            user=current_user(request),
            project_id=project_id,
            roles=REVIEWER_ROLES,
            action="export the project",
        )
        options = parse(self.FilterSerializer, request.query_params)
        filename = f"project-{project.pk}-{options['format']}.json"
        if options["format"] == "masks":
            masks = Response(
                selectors.project_export_masks(project=project, source=options["source"])
            )
            # A file to save, like the other formats (the admin page's download link).
            masks["Content-Disposition"] = f'attachment; filename="{filename}"'
            return masks
        if options["format"] == "tab":
            items: Iterable[Any] = selectors.project_export_tab(
                project=project,
                include_machine=options["include_machine"],
                include_gold=options["include_gold"],
            )
        else:
            items = selectors.project_export_release(
                project=project, source=options["source"], style=options["style"]
            )
        response = StreamingHttpResponse(_json_array(items), content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
