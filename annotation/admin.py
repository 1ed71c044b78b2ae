from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from annotation.models import (
    AnnotationSet,
    Assignment,
    Document,
    Membership,
    Project,
    Span,
    SpanEvent,
)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "k_anonymity", "risk_threshold", "created_at")
    inlines = [MembershipInline]


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ("external_id", "project", "split", "status", "target_person")
    list_filter = ("project", "split", "status")
    search_fields = ("external_id", "target_person")


class ReadOnlyAdmin(admin.ModelAdmin):
    """Spans change only through the services (version check, audit trail)."""

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(AnnotationSet)
class AnnotationSetAdmin(ReadOnlyAdmin):
    """Every set, machine runs superseded by a newer run included (their history)."""

    list_display = (
        "id",
        "document",
        "kind",
        "source",
        "annotator",
        "source_version",
        "status",
        "superseded_at",
    )
    list_filter = ("kind", "source", "status", ("superseded_at", admin.EmptyFieldListFilter))

    def get_queryset(self, request: HttpRequest) -> QuerySet[AnnotationSet]:
        # The default manager hides superseded runs; admins need to see them.
        return AnnotationSet.history.select_related("document", "annotator")


@admin.register(Span)
class SpanAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "annotation_set",
        "start",
        "end",
        "entity_type",
        "identifier_type",
        "text",
    )
    list_filter = ("entity_type", "identifier_type")


@admin.register(SpanEvent)
class SpanEventAdmin(ReadOnlyAdmin):
    list_display = ("id", "span_key", "action", "user", "at")
    readonly_fields = ("before", "after")


admin.site.register(Membership)
admin.site.register(Assignment)
