"""JSON with limits: nesting depth and size checked before anything deep is built.

Every JSON input of the workbench (TAB files, JSONL lines, API request bodies) goes
through here, because the plain parsers trust their input: ijson's ``items`` keeps a
prefix string per nesting level for every event, so its memory grows with the square
of the depth (a 200 KB file of brackets took a web worker to 18 GB), and values
PostgreSQL cannot store (NUL characters, lone surrogates, NaN and infinities) crashed
the request that wrote them instead of being refused.

Values are refused with :class:`JsonLimitError`, which names where the problem is as a
path (``meta.place[2]``), so the caller can turn it into an answer naming the field.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any

import ijson

# Real documents nest five or six levels (TAB: list > document > annotations >
# annotator > entity_mentions > mention > attrs); 64 leaves room for rich metadata.
MAX_DEPTH = 64

# A JSON string (escapes included) or a bracket.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_OPEN = frozenset("[{")
_PLAIN_KEY = re.compile(r"[\w\- ]+")
_MAX_PATH_CHARS = 80
_NOT_FINITE = "is not a finite number (NaN, Infinity or out of range)"


class JsonLimitError(ValueError):
    """Input outside the limits or holding a value that cannot be stored."""

    def __init__(self, problem: str, *, path: str = "") -> None:
        self.problem = problem
        # The top-level element built so far, when iter_items refused part of it: a
        # reader can name the document by the id it already read.
        self.partial: Any = None
        # A path 10,000 levels deep says nothing more than its start.
        self.path = path if len(path) <= _MAX_PATH_CHARS else f"{path[:_MAX_PATH_CHARS]}..."
        super().__init__(f"{self.path}: {problem}" if path else problem)

    @property
    def field(self) -> str:
        """The top-level key the problem is under ("" for the document itself)."""
        return re.split(r"[.\[]", self.path, maxsplit=1)[0] if self.path else ""


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if not _PLAIN_KEY.fullmatch(key):
        return f"{path}[{key[:80]!r}]"
    return f"{path}.{key}" if path else key


def _string_problem(value: str) -> str | None:
    """Why PostgreSQL cannot store ``value`` (a NUL character, a lone surrogate), or None.

    The one test behind :func:`check_string` and the readers' fast checks: they build
    the path of a value only when this names a problem.
    """
    if "\x00" in value:
        return "contains a NUL character"
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"contains a lone surrogate at character {exc.start}"
    return None


def check_string(value: str, path: str) -> None:
    """Refuse a string PostgreSQL cannot store: a NUL character or a lone surrogate."""
    problem = _string_problem(value)
    if problem is not None:
        raise JsonLimitError(problem, path=path)


def _extend(path: str, keys: Iterable[str | int]) -> str:
    for key in keys:
        path = _join(path, key)
    return path


def check_value(value: Any, path: str = "", *, max_depth: int = MAX_DEPTH, _depth: int = 0) -> None:
    """Check an already built value: depth, strings (keys too) and numbers.

    For values that did not come through :func:`loads` (form fields, Python callers).
    """
    _check_tree(value, path, [], max_depth, _depth)


def _check_tree(value: Any, path: str, keys: list[str | int], max_depth: int, depth: int) -> None:
    """:func:`check_value` below ``path`` + ``keys``: the keys down to ``value``, turned
    into a path only for an error (joining them for every value cost more than the
    checks). ``keys`` is one list for the whole walk: each level appends its key and
    takes it off again; an error leaves it as it was where it was raised.
    """
    if isinstance(value, str):
        problem = _string_problem(value)
        if problem is not None:
            raise JsonLimitError(problem, path=_extend(path, keys))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise JsonLimitError(_NOT_FINITE, path=_extend(path, keys))
    elif isinstance(value, dict | list | tuple):
        if depth >= max_depth:
            raise JsonLimitError(f"nested deeper than {max_depth} levels", path=_extend(path, keys))
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            keys.append(key if isinstance(key, int | str) else str(key))
            if isinstance(key, str):
                problem = _string_problem(key)
                if problem is not None:
                    raise JsonLimitError(problem, path=_extend(path, keys) or "(key)")
            _check_tree(item, path, keys, max_depth, depth + 1)
            keys.pop()


def check_depth(text: str, *, max_depth: int = MAX_DEPTH) -> None:
    """Refuse ``text`` if its brackets nest deeper than ``max_depth``, without parsing it.

    One pass over strings and brackets (a bracket inside a string does not count):
    linear time, no structure built. The error names the top-level key the deep value
    is under: the last string met at depth 1 before it is that key.
    """
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    key = ""
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            if depth == 1:
                key = token
        elif token in _OPEN:
            depth += 1
            if depth > max_depth:
                path = ""
                if text.lstrip().startswith("{") and key:
                    try:
                        path = _join("", json.loads(key))
                    except ValueError:
                        path = ""
                raise JsonLimitError(f"nested deeper than {max_depth} levels", path=path)
        else:
            depth -= 1


def loads(data: str | bytes, *, max_depth: int = MAX_DEPTH, max_bytes: int | None = None) -> Any:
    """Parse one JSON value within the limits; raises :class:`JsonLimitError`."""
    if max_bytes is not None and len(data) > max_bytes:
        raise JsonLimitError(f"larger than {max_bytes} bytes")
    if isinstance(data, bytes):
        try:
            text = codecs.decode(data, "utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JsonLimitError(f"not valid UTF-8 (byte {exc.start})") from None
    else:
        text = data
    check_depth(text, max_depth=max_depth)
    try:
        # NaN, Infinity and 1e400 are built as floats and refused by check_value,
        # which knows their path.
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonLimitError(f"invalid JSON: {exc}") from None
    except (ValueError, RecursionError) as exc:  # an integer of thousands of digits
        raise JsonLimitError(f"invalid JSON: {exc}") from None
    check_value(value, max_depth=max_depth)
    return value


class _SurrogateGuard:
    r"""A byte stream that refuses ``\uD800``-``\uDBFF`` escapes not followed by a low half.

    yajl (ijson's C backend) quietly turns such a lone high surrogate into "?", which
    would change the data without a word; a lone low surrogate it passes on as bytes
    that fail to decode (caught in :func:`iter_items`). Escaped backslashes are
    consumed as pairs, so ``\\ud800`` (a backslash, then text) is not mistaken for one.
    """

    _TOKEN = re.compile(rb"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})")
    _KEEP = 12  # an escape and its low half: \uD83D\uDE00

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._carry = b""

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        buffer = self._carry + data
        at_end = not data and size != 0
        limit = len(buffer) if at_end else max(len(buffer) - self._KEEP, 0)
        resume = 0
        for match in self._TOKEN.finditer(buffer):
            if match.start() >= limit:
                break
            if match.group() != b"\\\\":
                raise JsonLimitError("contains a lone surrogate escape")
            resume = match.end()
        # Rescan the last bytes with the next chunk; step back over a backslash so an
        # escape is never cut in two (no escaped pairs remain after ``resume``).
        cut = max(limit, resume)
        if cut > resume and buffer[cut - 1 : cut] == b"\\":
            cut -= 1
        self._carry = buffer[cut:]
        return data


def _path_of(stack: list[Any], keys: list[Any]) -> str:
    path = ""
    for container, key in zip(stack, keys, strict=True):
        if isinstance(container, list):
            path = _join(path, len(container))
        elif key is not None:
            path = _join(path, key)
    return path


def _build(events: Iterable[tuple[str, Any]], max_depth: int, stack: list[Any]) -> Iterator[Any]:
    """Turn ijson's basic events into values; yields each element of a top-level list
    (or the top-level value itself), refusing a level past ``max_depth`` before it is built.

    A refused value does not stop the element at once: the rest of it is read so that
    the error can carry the element (``partial``) and the reader name the document by
    its id, which TAB puts after the text. Nesting past the limit stops at once: the
    input is hostile, and skipping 100,000 levels would cost time for a nicer message.
    """
    # ``stack``: the open containers of the value being built (the top-level list is
    # not one of them: its elements are yielded, so a long file is never held whole).
    keys: list[Any] = []
    in_list = False
    index = 0
    error: JsonLimitError | None = None

    def where() -> str:
        inner = _path_of(stack, keys)
        if not in_list:
            return inner
        return f"[{index}]{'.' if inner and not inner.startswith('[') else ''}{inner}"

    for event, value in events:
        if (event == "start_map" or event == "start_array") and len(stack) >= max_depth:
            deep = JsonLimitError(f"nested deeper than {max_depth} levels", path=where())
            deep.partial = stack[0]
            raise error or deep
        try:
            # A string needs _string_problem only if it holds a NUL or is not ASCII (its
            # own first tests), and a path only when refused: where() joins every level.
            if event == "map_key":
                keys[-1] = value
                if ("\x00" in value or not value.isascii()) and (problem := _string_problem(value)):
                    raise JsonLimitError(problem, path=where())
                continue
            if event == "start_map" or event == "start_array":
                if not stack and not in_list and event == "start_array":
                    in_list = True
                    continue
                stack.append({} if event == "start_map" else [])
                keys.append(None)
                continue
            if event == "end_map" or event == "end_array":
                if not stack:  # the end of the top-level list
                    return
                value = stack.pop()
                keys.pop()
            elif event == "string":
                if ("\x00" in value or not value.isascii()) and (problem := _string_problem(value)):
                    raise JsonLimitError(problem, path=where())
            elif event == "number" and isinstance(value, float) and not math.isfinite(value):
                raise JsonLimitError(_NOT_FINITE, path=where())
        except JsonLimitError as exc:
            error = error or exc
            if event == "map_key":
                continue
            value = None
        if not stack:
            if error is not None:
                error.partial = value
                raise error
            yield value
            if not in_list:
                return
            index += 1
        elif isinstance(stack[-1], list):
            stack[-1].append(value)
        else:
            stack[-1][keys[-1]] = value


def iter_items(stream: IO[bytes], *, max_depth: int = MAX_DEPTH) -> Iterator[Any]:
    """Stream the elements of a top-level JSON list (or a single top-level value).

    Memory holds one element at a time; a level deeper than ``max_depth`` is refused
    before it is built. Errors (:class:`JsonLimitError`) name the element (``[3]``) and
    the path inside it; invalid JSON raises ``ijson.JSONError``.
    """
    events = ijson.basic_parse(_SurrogateGuard(stream), use_float=True)
    stack: list[Any] = []
    try:
        yield from _build(events, max_depth, stack)
        # Read to the end: trailing garbage, and the guard's look at the last bytes.
        # (The guard sees a chunk just after the parser; callers that write what they
        # get do it in one transaction, which this error rolls back.)
        for _ in events:
            raise JsonLimitError("data after the end of the JSON value")
    except UnicodeDecodeError as exc:
        error = JsonLimitError(f"not valid UTF-8 or a lone surrogate (byte {exc.start})")
        error.partial = stack[0] if stack else None
        raise error from None
