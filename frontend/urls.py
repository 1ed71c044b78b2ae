"""Browser pages; the API they call is the annotation app's, under /api/."""

from django.urls import path

from frontend import views

app_name = "frontend"
urlpatterns = [
    path("", views.home, name="home"),
    path("documents/<int:document_id>/annotate/", views.document_annotate, name="annotate"),
    path("documents/<int:document_id>/review/", views.document_review, name="review"),
    path("projects/<int:project_id>/agreement/", views.project_agreement, name="agreement"),
    path("projects/<int:project_id>/admin/", views.project_admin, name="project-admin"),
    path("erasure/", views.erasure_admin, name="erasure"),
]
