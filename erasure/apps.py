from django.apps import AppConfig


class ErasureConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "erasure"
