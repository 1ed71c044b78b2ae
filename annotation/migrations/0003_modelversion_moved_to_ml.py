"""AnnotationSet.model_version points at ml.ModelVersion: the same table, so state only."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0002_initial"),
        ("ml", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="annotationset",
                    name="model_version",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="ml.modelversion",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
