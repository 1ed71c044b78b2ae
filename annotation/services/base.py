"""What every service module shares: who is acting, and how progress is reported."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

UserLike = AbstractBaseUser | AnonymousUser | None
ProgressCallback = Callable[[int, int, str], None]


def actor(user: UserLike) -> Any:
    """The user to record as author: anonymous callers (scripts, tasks) record none."""
    return user if user is not None and user.is_authenticated else None
