from django.apps import AppConfig


class WorkersConfig(AppConfig):
    name = "workers"
    verbose_name = "Job runner"

    def ready(self) -> None:
        # The jobs app queues only registered kinds: hand it the table at start-up.
        from jobs.kinds import register_job_kind
        from workers.kinds import JOB_KINDS

        for entry in JOB_KINDS:
            register_job_kind(entry)
