"""What runs jobs: the Celery tasks, the job runner and the job-kind table.

The NLP, ML and optimisation code they call lives in the plain-Python
``sanitizer`` library; the database writes in the apps' services.
"""
