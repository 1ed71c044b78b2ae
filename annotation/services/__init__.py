"""Writes: every change to projects, documents, annotation sets and spans goes through here.

One module per resource; functions take keyword-only arguments, validate with
``full_clean`` (or the equivalent streaming validator for bulk imports), run in one
transaction and record span changes in the audit trail. The names below are the
package's public interface.
"""

from annotation.services.annotation_sets import (
    annotation_set_for_annotator,
    annotation_set_submit,
    machine_set_create,
    suggestions_set_rejected,
)
from annotation.services.base import ProgressCallback, UserLike
from annotation.services.documents import (
    assignment_create,
    assignments_round_robin,
    document_update,
)
from annotation.services.imports import (
    IMPORT_JOB_KIND,
    ImportSummary,
    document_import,
    document_import_queue,
)
from annotation.services.invitations import (
    invitation_accept,
    invitation_create,
    invitation_decline,
)
from annotation.services.machine_runs import MachineRunSummary, machine_run_store
from annotation.services.projects import (
    RECOGNIZER_COMPONENTS_KEY,
    membership_delete,
    membership_set,
    project_create,
    project_update,
)
from annotation.services.review import (
    UnresolvedRegionsError,
    gold_adopt_set,
    gold_adopt_spans,
    gold_complete_unanimous,
    gold_publish,
    gold_set_for_document,
)
from annotation.services.spans import (
    SPAN_EDITABLE_FIELDS,
    span_create,
    span_delete,
    span_snapshot,
    span_update,
    spans_set_decision_for_entity,
)

__all__ = [
    "IMPORT_JOB_KIND",
    "RECOGNIZER_COMPONENTS_KEY",
    "SPAN_EDITABLE_FIELDS",
    "ImportSummary",
    "MachineRunSummary",
    "ProgressCallback",
    "UnresolvedRegionsError",
    "UserLike",
    "annotation_set_for_annotator",
    "annotation_set_submit",
    "assignment_create",
    "assignments_round_robin",
    "document_import",
    "document_import_queue",
    "document_update",
    "gold_adopt_set",
    "gold_adopt_spans",
    "gold_complete_unanimous",
    "gold_publish",
    "gold_set_for_document",
    "invitation_accept",
    "invitation_create",
    "invitation_decline",
    "machine_run_store",
    "machine_set_create",
    "membership_delete",
    "membership_set",
    "project_create",
    "project_update",
    "span_create",
    "span_delete",
    "span_snapshot",
    "span_update",
    "spans_set_decision_for_entity",
    "suggestions_set_rejected",
]
