from django.apps import AppConfig


class ReidConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "reid"
    verbose_name = "Re-identification"
