"""Import this first in a process to make any non-loopback network access fail loudly.

Every attempt is recorded in ``ATTEMPTS`` and raises ``NetworkBlocked``; loopback
and Unix sockets (PostgreSQL, Redis on this machine) stay allowed.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

ATTEMPTS: list[str] = []
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}


class NetworkBlocked(OSError):
    pass


def _is_local(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    host = str(host).strip("[]")
    if host in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check(address: Any, what: str) -> None:
    if isinstance(address, tuple) and address and not _is_local(address[0]):
        ATTEMPTS.append(f"{what} {address!r}")
        raise NetworkBlocked(f"network access blocked: {what} {address!r}")


_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    _check(address, "connect")
    return _connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    _check(address, "connect_ex")
    return _connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if not _is_local(host):
        ATTEMPTS.append(f"getaddrinfo {host!r}")
        raise NetworkBlocked(f"name lookup blocked: {host!r}")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign, assignment]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign, assignment]
socket.getaddrinfo = _guarded_getaddrinfo
