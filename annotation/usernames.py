"""Usernames that cannot pass for one another.

Imports name annotators in the file; a name is normalised (NFKC, as Django does when a
user form is saved) and refused when it only looks like an existing account: ``аdmin``
with a Cyrillic ``а`` next to ``admin``. Two names look alike when their skeletons are
equal (Unicode TS #39): every character replaced by one representative of its
confusables group, from the table the ``confusable-homoglyphs`` package ships.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache

from confusable_homoglyphs.confusables import confusables_data
from django.contrib.auth.base_user import AbstractBaseUser

# An import-only annotator ("stand-in") is an inactive account named after the file's
# annotator and the project it was imported into: ``annotator1@import.12``. The name
# depends on nothing but the file and the project, never on which accounts exist.
IMPORTED_USER_SUFFIX = "@import"

# Bidirectional marks the table keeps around right-to-left homoglyphs.
_MARKS = "\u200e\u200f"


def username_normalised(name: str) -> str:
    """NFKC, as Django normalises the usernames it saves."""
    return AbstractBaseUser.normalize_username(name)


@cache
def _prototypes() -> dict[str, str]:
    """Character -> the representative of its group of look-alikes: the smallest code
    point of the group, the groups closed under "looks like" (union-find), so that the
    mapping is the same whichever member one starts from."""
    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.setdefault(char, char) != char:
            parent[char] = parent[parent[char]]
            char = parent[char]
        return char

    for char, homoglyphs in confusables_data.items():
        for homoglyph in homoglyphs:
            other = homoglyph["c"].strip(_MARKS)
            if len(char) == 1 and len(other) == 1:
                a, b = root(char), root(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {char: root(char) for char in parent if root(char) != char}


@lru_cache(maxsize=65536)
def username_skeleton(name: str) -> str:
    # Cached: a look-alike check compares one name against every member's skeleton.
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", username_normalised(name))
    mapped = "".join(prototypes.get(char, char) for char in decomposed)
    return unicodedata.normalize("NFD", mapped)


def username_look_alike(name: str, existing: Iterable[str]) -> str | None:
    """An existing username that ``name`` could be mistaken for (not ``name`` itself)."""
    skeleton = username_skeleton(name)
    for other in existing:
        if other != name and username_skeleton(other) == skeleton:
            return other
    return None


def import_stand_in_suffix(project_id: int) -> str:
    """What every stand-in username of a project ends with (``@import.12``)."""
    return f"{IMPORTED_USER_SUFFIX}.{project_id}"


def import_stand_in_username(name: str, project_id: int) -> str:
    """The username of the stand-in for annotator ``name`` (normalised) in a project."""
    return f"{name}{import_stand_in_suffix(project_id)}"


def import_stand_in_name(username: str, project_id: int) -> str | None:
    """The file's annotator name a stand-in of project ``project_id`` was made for, or
    None when ``username`` is not named as one."""
    suffix = import_stand_in_suffix(project_id)
    if username.endswith(suffix) and len(username) > len(suffix):
        return username[: -len(suffix)]
    return None
