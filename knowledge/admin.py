from django.contrib import admin

from knowledge.models import KnowledgeBase


@admin.register(KnowledgeBase)
class KnowledgeBaseAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "project", "source_format", "status", "n_persons", "n_terms")
    list_filter = ("status", "source_format")
