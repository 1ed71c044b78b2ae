from typing import Any

from django import forms
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
from annotation.services.documents import document_text_locked
from sanitizer.formats.tab import reserved_meta_keys


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "k_anonymity", "risk_threshold", "created_at")
    inlines = [MembershipInline]


class DocumentAdminForm(forms.ModelForm):
    """The admin's edits obey the services' rules: no text change once the document
    is annotated (the field is read-only then, and refused here too), and the app's
    reserved meta keys (``_tab_extra``) stay as the import wrote them."""

    class Meta:
        model = Document
        fields = (
            "project",
            "external_id",
            "text",
            "meta",
            "task",
            "split",
            "target_person",
            "status",
            "position",
        )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        stored = Document.objects.filter(pk=self.instance.pk).first()
        if stored is None:
            return cleaned
        if "text" in cleaned and cleaned["text"] != stored.text and document_text_locked(stored):
            self.add_error("text", "the text of an annotated document cannot change")
        meta = cleaned.get("meta")
        if isinstance(meta, dict):
            given = {key: meta[key] for key in reserved_meta_keys(meta)}
            kept = {key: stored.meta[key] for key in reserved_meta_keys(stored.meta)}
            if given != kept:
                self.add_error("meta", "keys starting with '_' belong to the app and cannot change")
        return cleaned


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    form = DocumentAdminForm
    list_display = ("external_id", "project", "split", "status", "target_person")
    list_filter = ("project", "split", "status")
    search_fields = ("external_id", "target_person")

    def get_readonly_fields(
        self, request: HttpRequest, obj: Document | None = None
    ) -> list[str] | tuple[str, ...]:
        readonly = list(super().get_readonly_fields(request, obj))
        if obj is not None and document_text_locked(obj):
            # Every span's offsets point into this text: see document_text_locked.
            readonly.append("text")
        return readonly


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
