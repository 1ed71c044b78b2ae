from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ml", "0003_modelversion_trained_on_erased_data"),
    ]

    operations = [
        migrations.AddField(
            model_name="modelversion",
            name="trained_on_documents",
            field=models.JSONField(
                blank=True,
                help_text="Ids of the documents the training read; null when not known.",
                null=True,
            ),
        ),
    ]
