"""Settings modules: ``local`` (default of manage.py and the Celery app), ``production``
(default of the WSGI entry point), ``test`` (the suite). ``base`` holds what they share."""
