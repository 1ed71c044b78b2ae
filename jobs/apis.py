"""REST API of the jobs app: jobs, document imports and model versions.

Jobs belong to project admins: members with another role get 403, users outside
the project 404. Jobs and model versions without a project (shared models) are
managed by staff.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.utils.text import get_valid_filename
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, services
from annotation.apis import BaseApi, BaseListApi, current_user, parse
from annotation.permissions import ADMIN_ROLES, ANY_ROLE
from jobs import selectors
from jobs.models import Job, JobKind, JobStatus, ModelKind, ModelVersion
from jobs.services import JOB_TASKS, job_cancel, job_create, model_version_activate

# Larger files go through a job: a request should not hold a worker for minutes.
SYNC_IMPORT_MAX_BYTES = 5 * 1024 * 1024
_UPLOAD_SUFFIX = {"tab": ".json", "jsonl": ".jsonl", "text": ".txt"}


def job_for_user(*, user: Any, job_id: int, action: str) -> Job:
    job = Job.objects.select_related("project", "created_by").filter(pk=job_id).first()
    if job is not None and job.project is None:
        if not permissions.is_staff(user):
            raise NotFound()
        return job
    role = permissions.role_or_404(
        user=user, project_id=job.project.pk if job and job.project else None
    )
    permissions.require_role(role=role, allowed=ADMIN_ROLES, action=action)
    assert job is not None
    return job


class JobOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=JobKind.choices)
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


class JobListApi(BaseListApi):
    class FilterSerializer(serializers.Serializer):
        project = serializers.IntegerField(required=False)
        status = serializers.ChoiceField(choices=JobStatus.choices, required=False)
        kind = serializers.ChoiceField(choices=JobKind.choices, required=False)

    @extend_schema(
        parameters=[FilterSerializer],
        responses=JobOutputSerializer(many=True),
        summary="Jobs of the projects you administer",
    )
    def get(self, request: Request) -> Response:
        user = current_user(request)
        filters = parse(self.FilterSerializer, request.query_params)
        project = None
        if "project" in filters:
            project = permissions.project_for_user(
                user=user,
                project_id=filters.pop("project"),
                roles=ADMIN_ROLES,
                action="see the project's jobs",
            )
        jobs = selectors.jobs_for_user(user=user, project=project).filter(**filters)
        return self.paginated(request, jobs, JobOutputSerializer)


class JobDetailApi(BaseApi):
    @extend_schema(responses=JobOutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        job = job_for_user(user=current_user(request), job_id=job_id, action="see jobs")
        return Response(JobOutputSerializer(job).data)


class JobCreateApi(BaseApi):
    class InputSerializer(serializers.Serializer):
        # Imports are excluded: their parameter is a server path, which clients must
        # not choose (the import task deletes the file afterwards). Use the upload API.
        kind = serializers.ChoiceField(
            choices=[(k, JobKind(k).label) for k in JOB_TASKS if k != JobKind.IMPORT]
        )
        params = serializers.DictField(default=dict)

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
        job = job_for_user(user=user, job_id=job_id, action="cancel jobs")
        return Response(JobOutputSerializer(job_cancel(job=job, user=user)).data)


# --- import -----------------------------------------------------------------------------------


def _store_upload(upload: UploadedFile, fmt: str) -> Path:
    upload_dir = Path(settings.UPLOAD_DIR)
    suffix = _UPLOAD_SUFFIX[fmt]
    if fmt == "text":
        # The text reader takes the document id from the file name: keep it, in a
        # folder of its own so concurrent uploads of the same name do not meet.
        stem = get_valid_filename(Path(upload.name or "").stem or "document")[:200]
        path = upload_dir / uuid.uuid4().hex / f"{stem}{suffix}"
    else:
        path = upload_dir / f"{uuid.uuid4().hex}{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    return path


def _discard_upload(path: Path) -> None:
    path.unlink(missing_ok=True)
    if path.parent != Path(settings.UPLOAD_DIR):
        path.parent.rmdir()


class ImportApi(BaseApi):
    parser_classes = [MultiPartParser, FormParser]

    class InputSerializer(serializers.Serializer):
        file = serializers.FileField()
        format = serializers.ChoiceField(choices=list(_UPLOAD_SUFFIX))
        sync = serializers.BooleanField(
            default=False,
            help_text=f"Import within the request (files up to {SYNC_IMPORT_MAX_BYTES} bytes).",
        )

    class SummaryOutputSerializer(serializers.Serializer):
        documents = serializers.IntegerField()
        annotation_sets = serializers.IntegerField()
        spans = serializers.IntegerField()
        users_created = serializers.ListField(child=serializers.CharField())

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
        if data["sync"] and (upload.size or 0) > SYNC_IMPORT_MAX_BYTES:
            raise serializers.ValidationError(
                {"sync": f"files over {SYNC_IMPORT_MAX_BYTES} bytes are imported by a job"}
            )
        path = _store_upload(upload, data["format"])
        if not data["sync"]:
            job = job_create(
                kind=JobKind.IMPORT,
                params={"path": str(path), "format": data["format"], "delete_after": True},
                project=project,
                created_by=user,
            )
            return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)
        try:
            summary = services.document_import(
                project=project, path=path, fmt=data["format"], user=user
            )
        finally:
            _discard_upload(path)
        return Response(
            self.SummaryOutputSerializer(summary.as_dict()).data, status=status.HTTP_201_CREATED
        )


# --- model versions ---------------------------------------------------------------------------


def model_version_for_user(*, user: Any, model_version_id: int) -> ModelVersion:
    model_version = (
        ModelVersion.objects.select_related("project").filter(pk=model_version_id).first()
    )
    if model_version is not None and model_version.project is None:
        return model_version
    permissions.role_or_404(
        user=user,
        project_id=model_version.project.pk if model_version and model_version.project else None,
    )
    assert model_version is not None
    return model_version


class ModelVersionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ModelKind.choices)
    project = serializers.IntegerField(source="project_id", allow_null=True)
    name = serializers.CharField()
    version = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]
    base_model = serializers.CharField()
    config = serializers.JSONField()
    training_summary = serializers.JSONField()
    metrics = serializers.JSONField()
    is_active = serializers.BooleanField()
    job = serializers.IntegerField(source="job_id", allow_null=True)
    created_at = serializers.DateTimeField()


class ModelVersionListApi(BaseListApi):
    class FilterSerializer(serializers.Serializer):
        project = serializers.IntegerField(required=False)
        kind = serializers.ChoiceField(choices=ModelKind.choices, required=False)
        is_active = serializers.BooleanField(required=False, allow_null=True, default=None)

    @extend_schema(
        parameters=[FilterSerializer],
        responses=ModelVersionOutputSerializer(many=True),
        summary="Shared model versions and those of your projects",
    )
    def get(self, request: Request) -> Response:
        user = current_user(request)
        filters = parse(self.FilterSerializer, request.query_params)
        if filters.get("is_active") is None:
            filters.pop("is_active", None)
        project = None
        if "project" in filters:
            project = permissions.project_for_user(
                user=user, project_id=filters.pop("project"), roles=ANY_ROLE
            )
        versions = selectors.model_versions_for_user(user=user, project=project).filter(**filters)
        return self.paginated(request, versions, ModelVersionOutputSerializer)


class ModelVersionDetailApi(BaseApi):
    @extend_schema(responses=ModelVersionOutputSerializer)
    def get(self, request: Request, model_version_id: int) -> Response:
        model_version = model_version_for_user(
            user=current_user(request), model_version_id=model_version_id
        )
        return Response(ModelVersionOutputSerializer(model_version).data)


class ModelVersionActivateApi(BaseApi):
    @extend_schema(
        request=None,
        responses=ModelVersionOutputSerializer,
        summary="Make this the active model of its kind (project admins; staff for shared models)",
    )
    def post(self, request: Request, model_version_id: int) -> Response:
        user = current_user(request)
        model_version = model_version_for_user(user=user, model_version_id=model_version_id)
        if model_version.project is None:
            if not permissions.is_staff(user):
                raise PermissionDenied("only staff may activate shared models")
        else:
            role = permissions.role_or_404(user=user, project_id=model_version.project.pk)
            permissions.require_role(role=role, allowed=ADMIN_ROLES, action="activate models")
        model_version = model_version_activate(model_version=model_version)
        return Response(ModelVersionOutputSerializer(model_version).data)
