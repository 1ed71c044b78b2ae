"""ModelVersion now belongs to the ml app (its table stays); job kinds come from a registry.

Runs after every foreign key to the model was pointed at ``ml.ModelVersion``.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("jobs", "0001_initial"),
        ("ml", "0001_initial"),
        ("annotation", "0003_modelversion_moved_to_ml"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="ModelVersion")],
            database_operations=[],
        ),
        migrations.AlterField(
            model_name="job",
            name="kind",
            field=models.CharField(max_length=32),
        ),
    ]
