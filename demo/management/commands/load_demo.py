from django.core.management.base import BaseCommand

from demo.loading import demo_load


class Command(BaseCommand):
    help = "Load the demo project, documents and users (idempotent)."

    def handle(self, *args: object, **options: object) -> None:
        for login in demo_load():
            self.stdout.write(f"{login.role:10} {login.username} / {login.password}")
