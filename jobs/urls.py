"""URL routes of the jobs app."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
