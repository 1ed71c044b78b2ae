from django.contrib import admin

from jobs.models import Job, ModelVersion


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


@admin.register(ModelVersion)
class ModelVersionAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "name", "version", "is_active", "created_at")
    list_filter = ("kind", "is_active")
