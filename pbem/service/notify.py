"""systemd notifications without a dependency: one datagram to $NOTIFY_SOCKET
(READY=1, STOPPING=1, WATCHDOG=1, STATUS=...; see sd_notify(3))."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping


def sd_notify(state: str) -> bool:
    """Send e.g. "READY=1" or "STOPPING=1"; False when not run by systemd.

    A socket that has gone away (systemd restarted, a test's listener closed)
    is not the daemon's failure: it is reported as False, never raised."""
    path = os.environ.get("NOTIFY_SOCKET")
    if not path:
        return False
    if path.startswith("@"):  # abstract namespace socket
        path = "\0" + path[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(path)
            sock.sendall(state.encode())
    except OSError:
        return False
    return True


def watchdog_interval(environ: Mapping[str, str] | None = None) -> float | None:
    """The watchdog interval in seconds that systemd asks of this process
    ($WATCHDOG_USEC, from ``WatchdogSec=``), or None when no watchdog is on.

    $WATCHDOG_PID names the process meant; a child that inherited the variables
    (a worker process) is not it."""
    env = os.environ if environ is None else environ
    usec, pid = env.get("WATCHDOG_USEC", ""), env.get("WATCHDOG_PID", "")
    if pid and pid != str(os.getpid()):
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return value / 1_000_000 if value > 0 else None
