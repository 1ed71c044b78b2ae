"""Machine runs replaced by a newer run of their kind are kept as history.

Databases that already hold several runs of one kind on a document (a re-run used to
add a layer) keep the newest run of each kind current and mark the older ones
superseded, so the editor shows one layer from the start.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models
from django.utils import timezone

# As annotation.services.annotation_sets.MACHINE_RUN_KINDS when this was written.
_KINDS = {"preannotation": "recognizer", "model": "recognizer", "distant": "distant"}


def supersede_older_runs(apps: Any, schema_editor: Any) -> None:
    annotation_set = apps.get_model("annotation", "AnnotationSet")
    newest: dict[tuple[int, str], int] = {}
    older: list[int] = []
    runs = annotation_set.objects.filter(kind="machine").order_by("-created_at", "-id")
    for row in runs.values("id", "document_id", "source").iterator():
        key = (row["document_id"], _KINDS.get(row["source"], row["source"]))
        if key in newest:
            older.append(row["id"])
        else:
            newest[key] = row["id"]
    for start in range(0, len(older), 1000):
        annotation_set.objects.filter(pk__in=older[start : start + 1000]).update(
            superseded_at=timezone.now()
        )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0004_span_unique_offsets"),
    ]

    operations = [
        migrations.AddField(
            model_name="annotationset",
            name="superseded_at",
            field=models.DateTimeField(
                blank=True,
                help_text="Machine runs: when a newer run of the kind replaced it.",
                null=True,
            ),
        ),
        migrations.AlterModelOptions(
            name="annotationset",
            options={"default_manager_name": "objects", "ordering": ["document_id", "kind", "id"]},
        ),
        migrations.RunPython(supersede_older_runs, migrations.RunPython.noop),
    ]
