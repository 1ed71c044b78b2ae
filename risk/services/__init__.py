"""Writes of the risk app: storing assessments and the masking machine sets."""

from risk.services.assessment import risk_assess_documents
from risk.services.masking import risk_solve_documents

__all__ = ["risk_assess_documents", "risk_solve_documents"]
