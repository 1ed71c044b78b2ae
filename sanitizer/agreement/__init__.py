"""Inter-annotator agreement on TAB-style span annotations (plain Python, no Django).

Inputs: :class:`AnnotatedDocument` (built with :func:`make_document` or
:func:`document_from_tab`) holding, per annotator (any hashable name; machine runs and
gold count as annotators), spans ``(start, end, identifier_type[, entity_type])``.
Outputs are dataclasses with ``.as_dict()``. Undefined coefficients are None with a reason.

Main entry points:

* :func:`cohen_kappa` (a pair), :func:`light_kappa` (mean over pairs) and
  :func:`krippendorff_alpha` (all annotators), at character or span level, on a label
  space from :data:`label_spaces` (``identifier``, ``masked``, ``entity_type``);
* :func:`span_f1` / :func:`pooled_span_f1`: exact or overlap span P/R/F1;
* :func:`agreement_matrix`: any measure of :data:`pairwise_measures` for every pair;
* :func:`reference_agreement`: one reference (gold) against every other annotator;
* :func:`agreement_report`: project-level (and per-document) summary.
"""

from sanitizer.agreement.coefficients import (
    Agreement,
    alpha_from_value_counts,
    cohen_kappa,
    kappa_from_table,
    krippendorff_alpha,
    light_kappa,
)
from sanitizer.agreement.data import (
    AnnotatedDocument,
    AnnotatedSpan,
    coerce_span,
    document_from_tab,
    make_document,
    multi_annotated,
)
from sanitizer.agreement.labels import (
    LEVELS,
    SCOPES,
    LabelSpace,
    get_label_space,
    label_spaces,
    span_unit_bounds,
    units,
)
from sanitizer.agreement.report import (
    AgreementMatrix,
    AgreementReport,
    ReferenceAgreement,
    agreement_matrix,
    agreement_report,
    pairwise_measures,
    reference_agreement,
)
from sanitizer.agreement.span_f1 import MATCHES, SpanF1, count_matches, pooled_span_f1, span_f1

__all__ = [
    "LEVELS",
    "MATCHES",
    "SCOPES",
    "Agreement",
    "AgreementMatrix",
    "AgreementReport",
    "AnnotatedDocument",
    "AnnotatedSpan",
    "LabelSpace",
    "ReferenceAgreement",
    "SpanF1",
    "agreement_matrix",
    "agreement_report",
    "alpha_from_value_counts",
    "coerce_span",
    "cohen_kappa",
    "count_matches",
    "document_from_tab",
    "get_label_space",
    "kappa_from_table",
    "krippendorff_alpha",
    "label_spaces",
    "light_kappa",
    "make_document",
    "multi_annotated",
    "pairwise_measures",
    "pooled_span_f1",
    "reference_agreement",
    "span_f1",
    "span_unit_bounds",
    "units",
]
