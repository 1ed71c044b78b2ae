"""Background jobs of a project (list, detail, create, cancel, retry) and document imports.

They live here rather than in the jobs app because they need project permissions:
jobs belong to project admins (members with another role get 403, users outside the
project 404); jobs without a project (shared models) are managed by staff.
"""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import UploadedFile
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, selectors, services
from annotation.permissions import ADMIN_ROLES
from common.apis import BaseApi, BaseListApi, current_user, parse
from common.parsers import UploadLimitMultiPartParser, upload_max_bytes
from common.uploads import upload_discard, upload_save
from jobs.errors import public_error, public_value
from jobs.kinds import job_kinds
from jobs.models import JobStatus
from jobs.services import job_cancel, job_create, job_retry

# Larger files go through a job: a request should not hold a worker for minutes.
SYNC_IMPORT_MAX_BYTES = 5 * 1024 * 1024
# ... and so are files of many tiny documents (each costs rows, not bytes).
SYNC_IMPORT_MAX_DOCUMENTS = 2000
_UPLOAD_SUFFIX = {"tab": ".json", "jsonl": ".jsonl", "text": ".txt"}


class JobOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    project = serializers.IntegerField(source="project_id", allow_null=True)
    params = serializers.JSONField()
    status = serializers.ChoiceField(choices=JobStatus.choices)
    progress_done = serializers.IntegerField()
    progress_total = serializers.IntegerField()
    log_tail = serializers.CharField()
    result = serializers.JSONField()
    error = serializers.CharField()
    queue = serializers.CharField()
    attempts = serializers.IntegerField()
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    heartbeat_at = serializers.DateTimeField(allow_null=True)
    chunks = serializers.SerializerMethodField(
        help_text="A job that fanned out over the workers: its chunks by status, and "
        "how many workers ran them (all zero for a job run as one task)."
    )

    def get_chunks(self, instance: Any) -> dict[str, int]:
        # Counted by the selectors (annotation/selectors/jobs.py); a job just created
        # or changed has none yet.
        keys = ["total", "workers", *JobStatus.values]
        return {key: int(getattr(instance, f"chunks_{key}", 0) or 0) for key in keys}

    def to_representation(self, instance: Any) -> dict[str, Any]:
        # No server paths (uploads, model folders) nor tracebacks, rows from before
        # job_fail cleaned errors included: the log has them, for admins.
        data = super().to_representation(instance)
        for name in ("params", "result", "log_tail"):
            data[name] = public_value(data[name])
        data["error"] = public_error(data["error"])
        return data


class JobListApi(BaseListApi):
    class FilterSerializer(serializers.Serializer):
        project = serializers.IntegerField(required=False)
        status = serializers.ChoiceField(choices=JobStatus.choices, required=False)
        kind = serializers.CharField(required=False)

    @extend_schema(
        parameters=[FilterSerializer],
        responses=JobOutputSerializer(many=True),
        summary="Jobs of the projects you administer",
    )
    def get(self, request: Request) -> Response:
        user = current_user(request)
        filters = parse(self.FilterSerializer, request.query_params)
        project = permissions.project_filter_for_user(
            user=user,
            project_id=filters.pop("project", None),
            roles=ADMIN_ROLES,
            action="see the project's jobs",
        )
        jobs = selectors.job_list(user=user, project=project, **filters)
        return self.paginated(request, jobs, JobOutputSerializer)


class JobDetailApi(BaseApi):
    @extend_schema(responses=JobOutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        job = permissions.job_for_user(user=current_user(request), job_id=job_id, action="see jobs")
        return Response(JobOutputSerializer(job).data)


class JobCreateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        kind = serializers.ChoiceField(choices=[])
        params = serializers.DictField(default=dict)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # The registry fills at app start (and a plugin may add a kind later): read
            # it per request. Kinds whose parameters clients must not choose (an import
            # names a server path) are left out; use the upload API for imports.
            kind = self.fields["kind"]
            assert isinstance(kind, serializers.ChoiceField)
            kind.choices = [(s.name, s.label) for s in job_kinds() if s.creatable]

    @extend_schema(
        request=InputSerializer,
        responses={201: JobOutputSerializer},
        summary="Queue a background job for the project (admins)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        user = current_user(request)
        project = permissions.project_for_user(
            user=user, project_id=project_id, roles=ADMIN_ROLES, action="start jobs"
        )
        data = parse(self.InputSerializer, request.data)
        job = job_create(kind=data["kind"], params=data["params"], project=project, created_by=user)
        return Response(JobOutputSerializer(job).data, status=status.HTTP_201_CREATED)


class JobCancelApi(BaseApi):
    @extend_schema(request=None, responses=JobOutputSerializer)
    def post(self, request: Request, job_id: int) -> Response:
        user = current_user(request)
        job = permissions.job_for_user(user=user, job_id=job_id, action="cancel jobs")
        job = job_cancel(job=job, user=user)
        # Read back with its chunk counts (the selectors count them).
        return Response(JobOutputSerializer(selectors.job_get(job_id=job.pk)).data)


class JobRetryApi(BaseApi):
    @extend_schema(
        request=None,
        responses={202: JobOutputSerializer},
        summary="Queue a failed or cancelled job again (admins)",
    )
    def post(self, request: Request, job_id: int) -> Response:
        user = current_user(request)
        job = permissions.job_for_user(user=user, job_id=job_id, action="retry jobs")
        job = job_retry(job=job, user=user)
        return Response(
            JobOutputSerializer(selectors.job_get(job_id=job.pk)).data,
            status=status.HTTP_202_ACCEPTED,
        )


class ImportApi(BaseApi):
    parser_classes = [UploadLimitMultiPartParser, FormParser]
    upload_kind = "documents"  # settings.UPLOAD_MAX_BYTES: over it, 413

    class InputSerializer(serializers.Serializer):
        file = serializers.FileField()
        format = serializers.ChoiceField(choices=list(_UPLOAD_SUFFIX))
        sync = serializers.BooleanField(
            default=False,
            help_text=(
                f"Import within the request (files up to {SYNC_IMPORT_MAX_BYTES} bytes and "
                f"{SYNC_IMPORT_MAX_DOCUMENTS} documents)."
            ),
        )

    class SummaryOutputSerializer(serializers.Serializer):
        documents = serializers.IntegerField()
        annotation_sets = serializers.IntegerField()
        spans = serializers.IntegerField()
        users_created = serializers.ListField(
            child=serializers.CharField(),
            help_text=(
                "The import-only stand-ins (`<name>@import.<project id>`, inactive) this "
                "import added to the project: every annotator named in the file who is not "
                "a member, whether or not an account of that name exists."
            ),
        )

    class FormatErrorOutputSerializer(serializers.Serializer):
        detail = serializers.CharField()
        doc_id = serializers.CharField(allow_null=True)
        mention_id = serializers.CharField(allow_null=True)
        problem = serializers.CharField()

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses={
            202: JobOutputSerializer,
            201: SummaryOutputSerializer,
            400: FormatErrorOutputSerializer,
        },
        summary="Upload documents (TAB JSON, JSONL or text) into the project (admins)",
        description=(
            "By default the file is imported by a background job (202, the job). With "
            "`sync=true` a small file is imported within the request: 201 with the "
            "summary, or 400 naming the document and mention at fault; all or nothing."
        ),
    )
    def post(self, request: Request, project_id: int) -> Response:
        user = current_user(request)
        project = permissions.project_for_user(
            user=user, project_id=project_id, roles=ADMIN_ROLES, action="import documents"
        )
        data = parse(self.InputSerializer, request.data)
        upload: UploadedFile = data["file"]
        fmt = data["format"]
        if data["sync"] and (upload.size or 0) > SYNC_IMPORT_MAX_BYTES:
            raise serializers.ValidationError(
                {"sync": f"files over {SYNC_IMPORT_MAX_BYTES} bytes are imported by a job"}
            )
        # The text reader takes the document id from the file name: keep it.
        path = upload_save(
            upload=upload,
            suffix=_UPLOAD_SUFFIX[fmt],
            keep_name=fmt == "text",
            max_bytes=upload_max_bytes(self.upload_kind),
        )
        if not data["sync"]:
            job = services.document_import_queue(
                project=project, path=path, fmt=fmt, created_by=user, delete_after=True
            )
            return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)
        try:
            summary = services.document_import(
                project=project,
                path=path,
                fmt=fmt,
                user=user,
                max_documents=SYNC_IMPORT_MAX_DOCUMENTS,
            )
        finally:
            upload_discard(path=path)
        return Response(
            self.SummaryOutputSerializer(summary.as_dict()).data, status=status.HTTP_201_CREATED
        )
