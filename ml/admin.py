from django.contrib import admin

from ml.models import ModelVersion


@admin.register(ModelVersion)
class ModelVersionAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "name", "version", "is_active", "created_at")
    list_filter = ("kind", "is_active")
