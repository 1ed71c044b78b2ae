"""Drop DRF's plain-text token table, left by installs older than the hashed ApiToken.

``rest_framework.authtoken`` is no longer installed, so nothing reads its table, but
existing databases still hold every old key in clear: anyone with read access to the
database (a backup, a dump) could log in with them until the table is gone. Dropping
it (rather than emptying it) also removes the foreign key to the user table. The
migration records of ``authtoken`` go too, so that installing that app again would
create a fresh, empty table instead of trusting records of one that no longer exists.

``IF EXISTS`` makes this a no-op on databases that never had the app (new installs,
tests); both PostgreSQL and SQLite (the demo) accept the statements as written. The
reverse is a no-op: the old keys are not coming back.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.RunSQL(
            sql=[
                'DROP TABLE IF EXISTS "authtoken_token"',
                "DELETE FROM django_migrations WHERE app = 'authtoken'",
            ],
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]
