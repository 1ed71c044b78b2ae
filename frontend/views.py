"""Server-rendered pages; the interactive parts are ES modules talking to the REST API.

Each page gets a small JSON configuration (``json_script``) and loads its module; the
pages check the same visibility rules as the API (404 outside the user's projects,
403 for a role that may not open the page).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import PermissionDenied as DrfPermissionDenied

from annotation import permissions
from annotation.models import (
    ConfidentialStatus,
    Document,
    IdentifierType,
    Project,
    Role,
    SemanticType,
    Span,
)
from annotation.selectors import (
    annotator_set_allowed,
    home_projects,
    invitations_pending_for_user,
    project_document_table,
)
from annotation.services import RECOGNIZER_COMPONENTS_KEY
from erasure.selectors import erasable_users_page
from risk.selectors import risk_assessment_latest
from risk.services.solving import effective_settings
from sanitizer.formats.release import REPLACEMENT_STYLES
from sanitizer.kanon.algorithm import selection_functions
from sanitizer.recognizer import strategy_registry
from sanitizer.recognizer.registry import component_registry
from sanitizer.risk import risk_measures

REVIEWER_ROLES = (Role.REVIEWER, Role.ADMIN)


def _page_access(check: Callable[[], Any]) -> Any:
    """Run an API permission check for a page: the same rules, as page answers."""
    try:
        return check()
    except NotFound as exc:
        raise Http404("not found") from exc
    except DrfPermissionDenied as exc:
        raise PermissionDenied(str(exc.detail)) from exc


def _project(user: Any, project_id: int, roles: tuple[str, ...]) -> tuple[Project, str]:
    project = _page_access(
        lambda: permissions.project_for_user(
            user=user, project_id=project_id, roles=roles, action="open this page"
        )
    )
    return project, _page_access(lambda: permissions.role_or_404(user=user, project_id=project_id))


def _document(user: Any, document_id: int, roles: tuple[str, ...]) -> tuple[Document, str]:
    document = _page_access(
        lambda: permissions.document_for_user(
            user=user, document_id=document_id, roles=roles, action="open this page"
        )
    )
    role = _page_access(lambda: permissions.role_or_404(user=user, project_id=document.project_id))
    return document, role


# The editor's shortcut letters, by type (editor/keyboard.js binds them, annotate.html
# lists them). A type without a letter is still offered in the span panel.
ENTITY_TYPE_KEYS = {
    "PERSON": "p",
    "CODE": "c",
    "LOC": "l",
    "ORG": "o",
    "DEM": "e",
    "DATETIME": "t",
    "QUANTITY": "u",
    "MISC": "i",
}
# A digit and a letter per decision; Shift+letter decides for every mention of the entity.
IDENTIFIER_TYPE_KEYS = {"DIRECT": ("1", "d"), "QUASI": ("2", "q"), "NO_MASK": ("3", "x")}


def _vocabulary() -> dict[str, Any]:
    """The span vocabulary of the pages (the API's choices) with the editor's keys, and
    the values a new span starts with."""
    identifier_types = []
    for name in IdentifierType.values:
        keys = IDENTIFIER_TYPE_KEYS.get(name, ())
        letters = [key for key in keys if key.isalpha()]
        identifier_types.append(
            {"name": name, "keys": list(keys), "entity_key": letters[0].upper() if letters else ""}
        )
    return {
        "entity_types": [
            {"name": name, "key": ENTITY_TYPE_KEYS.get(name, "")} for name in SemanticType.values
        ],
        "identifier_types": identifier_types,
        # The masked preview's choices: the release function's styles.
        "release_styles": list(REPLACEMENT_STYLES),
        "defaults": {
            "entity_type": SemanticType.values[0],
            "identifier_type": Span._meta.get_field("identifier_type").default,
            "confidential_status": ConfidentialStatus.values[0],
        },
    }


def _risk_config(project: Project, document: Document | None = None) -> dict[str, Any]:
    """The privacy/utility dial's choices (the registered risk measures) and starting
    values: those the server solves with when asked for nothing else (the document's
    assessment's settings), else the project's ``privacy_settings["risk"]``; both over
    the library's defaults."""
    assessment = risk_assessment_latest(document=document) if document else None
    stored = assessment.settings if assessment else (project.privacy_settings or {}).get("risk")
    return {"measures": risk_measures.names(), "settings": effective_settings(stored or {}, {})}


def _key_help(vocabulary: dict[str, Any]) -> dict[str, str]:
    """The editor's key list (annotate.html) drawn from the same table as the keys."""
    decisions = vocabulary["identifier_types"]
    types = [t for t in vocabulary["entity_types"] if t["key"]]
    digits = " ".join(k for t in decisions for k in t["keys"] if not k.isalpha())
    letters = " ".join(k for t in decisions for k in t["keys"] if k.isalpha())
    entity_letters = " / ".join(t["entity_key"] for t in decisions if t["entity_key"])
    return {
        "decision_keys": f"{digits} or {letters}" if digits and letters else digits or letters,
        "decisions": " / ".join(t["name"] for t in decisions),
        "entity_decision_keys": f"Shift+{entity_letters}",
        "type_keys": " ".join(t["key"] for t in types),
        "types": " ".join(t["name"] for t in types),
    }


def _document_page_links(projects_page: int, entry: dict[str, Any]) -> dict[str, str]:
    """The previous and next links of one project's document table."""
    page = entry["documents_page"]
    links = {}
    for key, wanted, present in (
        ("previous", page.number - 1, page.has_previous()),
        ("next", page.number + 1, page.has_next()),
    ):
        if present:
            query = {"page": projects_page, "project": entry["project"].pk, "docs": wanted}
            links[key] = f"?{urlencode(query)}"
    return links


@login_required
def home(request: HttpRequest) -> HttpResponse:
    # The new-project form offers the registered recognizer components and the defaults.
    config = {
        "recognizer_components": component_registry.names(),
        "recognizer_components_key": RECOGNIZER_COMPONENTS_KEY,
        "defaults": {
            "k_anonymity": Project._meta.get_field("k_anonymity").default,
            "risk_threshold": Project._meta.get_field("risk_threshold").default,
        },
    }
    # ?page= pages the projects, ?project=<id>&docs= the documents of one project.
    wanted = request.GET.get("project", "")
    document_pages = {int(wanted): request.GET.get("docs", 1)} if wanted.isdigit() else {}
    home = home_projects(
        user=request.user, page=request.GET.get("page", 1), document_pages=document_pages
    )
    for entry in home.entries:
        entry["links"] = _document_page_links(home.projects.number, entry)
    context = {
        "projects": home.entries,
        "projects_page": home.projects,
        "invitations": invitations_pending_for_user(user=request.user),
        "config": config,
    }
    return render(request, "frontend/home.html", context)


@login_required
def document_annotate(request: HttpRequest, document_id: int) -> HttpResponse:
    document, role = _document(request.user, document_id, tuple(Role.values))
    vocabulary = _vocabulary()
    config = {
        "document_id": document.pk,
        "project_id": document.project_id,
        "role": role,
        "user": request.user.get_username(),
        # False for a reviewer or admin on a document not assigned to them: the editor
        # is then read-only, and the server refuses to create a set for them anyway.
        "may_annotate": annotator_set_allowed(user=request.user, document=document),
        "risk": _risk_config(document.project, document),
        **vocabulary,
    }
    context = {
        "document": document,
        "role": role,
        "config": config,
        "identifier_types": vocabulary["identifier_types"],
        "keys": _key_help(vocabulary),
    }
    return render(request, "frontend/annotate.html", context)


@login_required
def document_review(request: HttpRequest, document_id: int) -> HttpResponse:
    document, role = _document(request.user, document_id, REVIEWER_ROLES)
    config = {
        "document_id": document.pk,
        "project_id": document.project_id,
        "role": role,
        **_vocabulary(),
    }
    context = {
        "document": document,
        "role": role,
        "config": config,
        "identifier_types": config["identifier_types"],
        "entity_types": config["entity_types"],
    }
    return render(request, "frontend/review.html", context)


@login_required
def project_agreement(request: HttpRequest, project_id: int) -> HttpResponse:
    project, role = _project(request.user, project_id, REVIEWER_ROLES)
    return render(
        request,
        "frontend/agreement.html",
        {"project": project, "role": role, "config": {"project_id": project.pk}},
    )


@login_required
def project_admin(request: HttpRequest, project_id: int) -> HttpResponse:
    project, role = _project(request.user, project_id, (Role.ADMIN,))
    documents = project_document_table(project=project)
    config = {
        "project_id": project.pk,
        "roles": Role.values,
        "documents": documents,
        # Registry choices: a newly registered strategy or function appears here unedited.
        "masking_strategies": strategy_registry.names(),
        "selection_functions": selection_functions.names(),
        "release_styles": list(REPLACEMENT_STYLES),
        "risk": _risk_config(project),
    }
    return render(
        request,
        "frontend/project_admin.html",
        {"project": project, "role": role, "config": config, "roles": Role.choices},
    )


@login_required
def erasure_admin(request: HttpRequest) -> HttpResponse:
    """Staff: erase a user's data (the accounts, searchable by username) and read the
    erasure audit records (loaded by erasure.js from /api/erasures/)."""
    if not permissions.is_staff(request.user):
        raise PermissionDenied("only staff may open the erasure page")
    search = request.GET.get("q", "").strip()
    users = erasable_users_page(search=search, page=request.GET.get("page", 1))
    links = {}
    for key, wanted, present in (
        ("previous", users.number - 1, users.has_previous()),
        ("next", users.number + 1, users.has_next()),
    ):
        if present:
            links[key] = f"?{urlencode({'q': search, 'page': wanted})}"
    context = {
        "users": users,
        "search": search,
        "links": links,
    }
    return render(request, "frontend/erasure.html", context)
