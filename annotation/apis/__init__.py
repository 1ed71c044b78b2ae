"""REST API of the annotation app (mounted under /api/): one view per operation,
one module per resource.

Views parse input with a nested ``InputSerializer`` (or ``FilterSerializer`` for
query strings), resolve objects through ``annotation.permissions`` (404 outside
the user's projects, 403 for a role that may not act), call a service or selector
and render with a nested ``OutputSerializer``. Views run no ORM queries.
"""
