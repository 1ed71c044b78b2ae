from django.contrib import admin

from jobs.models import Job


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
