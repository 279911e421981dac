"""systemd readiness (Type=notify) without a dependency: one datagram to $NOTIFY_SOCKET."""

from __future__ import annotations

import os
import socket


def sd_notify(state: str) -> bool:
    """Send e.g. "READY=1" or "STOPPING=1"; False when not run by systemd."""
    path = os.environ.get("NOTIFY_SOCKET")
    if not path:
        return False
    if path.startswith("@"):  # abstract namespace socket
        path = "\0" + path[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.connect(path)
        sock.sendall(state.encode())
    return True
