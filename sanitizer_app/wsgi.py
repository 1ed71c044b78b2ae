"""WSGI entry point (gunicorn sanitizer_app.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sanitizer_app.settings")
application = get_wsgi_application()
