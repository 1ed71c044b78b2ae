"""Writes of the erasure app: erase a document, a project or a user's data.

Each runs in one transaction, leaves an ``ErasureRecord`` and removes files only after
the commit (``erasure.services.files``), so a failed erasure changes nothing.
"""

from erasure.services.documents import document_erase
from erasure.services.projects import project_erase
from erasure.services.users import ERASED_USERNAME, user_data_erase

__all__ = ["ERASED_USERNAME", "document_erase", "project_erase", "user_data_erase"]
