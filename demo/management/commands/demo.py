"""Run the whole demo: migrate, load demo data, start a Celery worker (with beat, for
the jobs janitor) and the web server.

With no ``CELERY_BROKER_URL`` the worker uses Kombu's file-system transport under
``var/broker``; with no ``DATABASE_URL`` the database is ``var/db.sqlite3``. The
command stays in the foreground and stops both children on Ctrl-C / SIGTERM.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from demo.loading import demo_load, demo_queue_reid_curve, demo_queue_risk
from demo.processes import demo_worker_command


class Command(BaseCommand):
    help = "Migrate, load demo data, then serve the app with a Celery worker."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--web-workers", type=int, default=2)
        parser.add_argument("--no-worker", action="store_true", help="do not start a Celery worker")

    def handle(self, *args: Any, **options: Any) -> None:
        for folder in (
            settings.VAR_DIR,
            settings.MEDIA_ROOT,
            settings.UPLOAD_DIR,
            settings.MODEL_DIR,
        ):
            os.makedirs(folder, exist_ok=True)
        if settings.CELERY_BROKER_URL.startswith("filesystem://"):
            for key in ("data_folder_in", "data_folder_out", "processed_folder"):
                os.makedirs(str(settings.CELERY_BROKER_TRANSPORT_OPTIONS[key]), exist_ok=True)
        call_command("migrate", interactive=False, verbosity=0)
        logins = demo_load()
        call_command("collectstatic", interactive=False, verbosity=0)
        # Without a worker the job would wait in the broker for one that never comes.
        if not options["no_worker"]:
            demo_queue_risk()
            demo_queue_reid_curve()

        env = {**os.environ, "SANITIZER_DEMO": "1"}
        children: list[subprocess.Popen[bytes]] = []
        if not options["no_worker"]:
            children.append(
                subprocess.Popen(
                    # With beat embedded: the jobs janitor runs in the demo too.
                    demo_worker_command(
                        hostname=f"demo-{os.getpid()}@%h", var_dir=Path(settings.VAR_DIR)
                    ),
                    env=env,
                    cwd=settings.BASE_DIR,
                )
            )
        bind = f"{options['host']}:{options['port']}"
        children.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "sanitizer_app.wsgi",
                    "--bind",
                    bind,
                    "--workers",
                    str(options["web_workers"]),
                    "--timeout",
                    "120",
                    "--access-logfile",
                    "-",
                ],
                env=env,
                cwd=settings.BASE_DIR,
            )
        )
        shown_host = "localhost" if options["host"] in ("127.0.0.1", "0.0.0.0") else options["host"]
        url = f"http://{shown_host}:{options['port']}/"
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(f"Sanitizer workbench running at {url}"))
        self.stdout.write(
            f"Database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, "
            f"broker: {settings.CELERY_BROKER_URL.split('://', 1)[0]}"
        )
        self.stdout.write("Demo logins (username / password):")
        for login in logins:
            self.stdout.write(f"  {login.role:10} {login.username} / {login.password}")
        self.stdout.write("API schema: " + url + "api/docs/   Stop with Ctrl-C.")
        self.stdout.flush()

        def stop(signum: int, frame: Any, code: int = 0) -> None:
            for child in children:
                if child.poll() is None:
                    child.terminate()
            deadline = time.monotonic() + 10
            for child in children:
                try:
                    child.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    child.kill()
            sys.exit(code)

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
        # A child died on its own: take the other one down too and report failure.
        stop(signal.SIGTERM, None, code=1)
