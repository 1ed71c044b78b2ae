"""Reads: what a user may see, documents and members, annotation sets and spans, the
editor's workspace, exports, agreement and jobs. One module per resource; the names
below are the package's public interface."""

from annotation.selectors.access import (
    annotation_set_editable,
    annotation_set_editable_in_role,
    annotation_set_visible,
    annotation_sets_for_user,
    annotator_set_allowed,
    document_list,
    document_visible,
    documents_for_user,
    gold_published,
    project_list,
    project_role,
    projects_for_user,
)
from annotation.selectors.agreement import (
    document_agreement,
    document_disagreements,
    gold_unresolved_regions,
    project_agreement,
    set_name,
)
from annotation.selectors.annotation_sets import (
    annotation_set_get,
    document_workspace,
    gold_set,
    span_events,
    span_get,
    span_history_set_id,
    spans_of_document,
)
from annotation.selectors.documents import (
    annotator_queue,
    document_get,
    my_queue,
    project_by_name,
    project_get,
    project_membership,
    project_memberships,
    user_memberships,
)
from annotation.selectors.exports import (
    MASKED_IDENTIFIER_TYPES,
    document_release,
    masked_spans,
    masking_set,
    project_export_masks,
    project_export_release,
    project_export_tab,
)
from annotation.selectors.invitations import (
    invitation_for_invitee,
    invitations_pending_for_user,
)
from annotation.selectors.jobs import job_get, job_list, jobs_for_user
from annotation.selectors.pages import home_projects, project_document_table

__all__ = [
    "MASKED_IDENTIFIER_TYPES",
    "annotation_set_editable",
    "annotation_set_editable_in_role",
    "annotation_set_get",
    "annotation_set_visible",
    "annotation_sets_for_user",
    "annotator_queue",
    "annotator_set_allowed",
    "document_agreement",
    "document_disagreements",
    "document_get",
    "document_list",
    "document_release",
    "document_visible",
    "document_workspace",
    "documents_for_user",
    "gold_published",
    "gold_set",
    "gold_unresolved_regions",
    "home_projects",
    "invitation_for_invitee",
    "invitations_pending_for_user",
    "job_get",
    "job_list",
    "jobs_for_user",
    "masked_spans",
    "masking_set",
    "my_queue",
    "project_agreement",
    "project_by_name",
    "project_document_table",
    "project_export_masks",
    "project_export_release",
    "project_export_tab",
    "project_get",
    "project_list",
    "project_membership",
    "project_memberships",
    "project_role",
    "projects_for_user",
    "set_name",
    "span_events",
    "span_get",
    "span_history_set_id",
    "spans_of_document",
    "user_memberships",
]
