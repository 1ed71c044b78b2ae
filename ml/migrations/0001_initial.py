"""ModelVersion moves here from the jobs app: the state changes, the table stays.

The table keeps its name (``jobs_modelversion``), so no row is copied or lost.
The content type is renamed too, so admin permissions and log entries follow.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def _content_type_to(app_label: str):
    def rename(apps, schema_editor):
        ContentType = apps.get_model("contenttypes", "ContentType")
        ContentType.objects.using(schema_editor.connection.alias).filter(
            app_label="jobs" if app_label == "ml" else "ml", model="modelversion"
        ).update(app_label=app_label)

    return rename


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("annotation", "0002_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("jobs", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ModelVersion",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("recognizer", "Entity recognizer"),
                                    ("masker", "Masking tagger"),
                                    ("risk_classifier", "Risk classifier"),
                                    ("reidentifier", "Re-identification model"),
                                ],
                                max_length=32,
                            ),
                        ),
                        ("name", models.CharField(max_length=200)),
                        ("version", models.CharField(max_length=100)),
                        ("base_model", models.CharField(blank=True, max_length=500)),
                        ("artefact_path", models.CharField(blank=True, max_length=1000)),
                        ("config", models.JSONField(blank=True, default=dict)),
                        ("training_summary", models.JSONField(blank=True, default=dict)),
                        ("metrics", models.JSONField(blank=True, default=dict)),
                        ("is_active", models.BooleanField(default=False)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "created_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "job",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="jobs.job",
                            ),
                        ),
                        (
                            "project",
                            models.ForeignKey(
                                blank=True,
                                help_text="Empty for models shared by all projects.",
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="model_versions",
                                to="annotation.project",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "jobs_modelversion",
                        "ordering": ["-created_at", "-id"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("name", "version"), name="modelversion_unique"
                            ),
                            models.UniqueConstraint(
                                condition=models.Q(("is_active", True), ("project__isnull", False)),
                                fields=("kind", "project"),
                                name="modelversion_one_active_per_project",
                            ),
                            models.UniqueConstraint(
                                condition=models.Q(("is_active", True), ("project__isnull", True)),
                                fields=("kind",),
                                name="modelversion_one_active_shared",
                            ),
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(_content_type_to("ml"), _content_type_to("jobs")),
    ]
