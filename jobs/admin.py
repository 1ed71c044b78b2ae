from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from jobs.models import Job
from jobs.services import job_delete


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "kind",
        "project",
        "status",
        "progress_done",
        "progress_total",
        "created_at",
    )
    list_filter = ("kind", "status")

    # Through the service: a deleted import job's upload is removed with it.
    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        job_delete(job=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Job]) -> None:
        for job in queryset:
            job_delete(job=job)
