"""WSGI entry point (gunicorn sanitizer_app.wsgi).

Production settings unless ``DJANGO_SETTINGS_MODULE`` names others (the demo runs
it with ``local``). Refuses to serve without a ``SECRET_KEY`` from the environment
(sessions and CSRF tokens are signed with it), except in DEBUG or demo runs.
"""

import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sanitizer_app.settings.production")
application = get_wsgi_application()

from django.conf import settings  # noqa: E402  (configured by the line above)

from sanitizer_app.settings.base import check_secret_key  # noqa: E402

if not (settings.SECRET_KEY_FROM_ENV or settings.DEBUG or settings.DEMO):
    raise ImproperlyConfigured("SECRET_KEY must be set to serve the web app (see .env.example).")
if not (settings.DEBUG or settings.DEMO):
    # Too short, or the example's own value: refused like a missing key.
    check_secret_key(settings.SECRET_KEY)
