from django.contrib import admin

from reid.models import ReidTarget


@admin.register(ReidTarget)
class ReidTargetAdmin(admin.ModelAdmin):
    list_display = ("id", "document", "knowledge_base", "profile_id", "source", "updated_at")
    list_filter = ("source",)
    search_fields = ("profile_id",)
    raw_id_fields = ("document", "knowledge_base", "set_by")
