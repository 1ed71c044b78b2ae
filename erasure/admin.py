from django.contrib import admin

from erasure.models import ErasureRecord


@admin.register(ErasureRecord)
class ErasureRecordAdmin(admin.ModelAdmin):
    """Read-only: the audit trail of erasures is written by the services alone."""

    list_display = ("id", "kind", "object_id", "project_id", "actor", "created_at")
    list_filter = ("kind",)

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False
