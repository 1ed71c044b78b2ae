"""DRF's old plain-text tokens (``rest_framework.authtoken``): the app is gone, a key
left in an old install's ``authtoken_token`` table is refused, and migration
accounts 0002 drops that table."""

from __future__ import annotations

import secrets
from importlib import import_module

import pytest
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone
from rest_framework.test import APIClient

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
LEGACY_TABLE = "authtoken_token"


def _create_legacy_table_with_key(user_id: int) -> str:
    """The table and a row as rest_framework.authtoken's migrations made them."""
    key = secrets.token_hex(20)  # authtoken's keys: 40 hex characters
    with connection.cursor() as cursor:
        cursor.execute(
            f'CREATE TABLE "{LEGACY_TABLE}" ("key" varchar(40) NOT NULL PRIMARY KEY, '
            '"created" timestamp with time zone NOT NULL, "user_id" integer NOT NULL UNIQUE)'
        )
        cursor.execute(
            f'INSERT INTO "{LEGACY_TABLE}" ("key", "created", "user_id") VALUES (%s, %s, %s)',
            [key, timezone.now(), user_id],
        )
    return key


def _legacy_table_exists() -> bool:
    with connection.cursor() as cursor:
        return LEGACY_TABLE in connection.introspection.table_names(cursor)


def test_the_plain_text_token_app_is_not_installed():
    assert "rest_framework.authtoken" not in settings.INSTALLED_APPS
    auth_classes = repr(settings.REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"])
    assert "accounts.authentication.HashedTokenAuthentication" in auth_classes
    assert "rest_framework.authentication.TokenAuthentication" not in auth_classes


def test_a_legacy_token_is_refused_and_the_migration_drops_its_table():
    user = UserFactory.create(username="olduser")
    key = _create_legacy_table_with_key(user.pk)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = client.get("/api/me/")
    # 403 rather than 401: the first authentication class (sessions) names no scheme.
    assert response.status_code in (401, 403), response.content
    assert response.json()["detail"] == "Invalid, expired or revoked token."

    migration = import_module("accounts.migrations.0002_drop_legacy_authtoken").Migration
    state = MigrationExecutor(connection).loader.project_state(("accounts", "0001_initial"))
    with connection.schema_editor() as editor:
        for operation in migration.operations:
            operation.database_forwards("accounts", editor, state, state)

    assert not _legacy_table_exists()
    # Run again (a database that never had the table): nothing to do, no error.
    with connection.schema_editor() as editor:
        for operation in migration.operations:
            operation.database_forwards("accounts", editor, state, state)
    assert not _legacy_table_exists()
