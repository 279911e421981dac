"""Hosts of their own for a test (issue 19): network namespaces it makes as root.

Each :class:`Host` is a network namespace whose only link is a veth pair to
this one, on a private /30 (``10.200.N.0/30``: this side ``.1``, the host
``.2``). The lab's servers listen on 127.0.0.1 only (PostgreSQL too), so
:class:`Network` puts a forwarder on this side of every link for each port it
is given: a process in the namespace reaches PostgreSQL at ``gateway:5432``, the
lab's IMAP at ``gateway:imap_port`` and so on, and the servers' own settings
stay as they are.

A partition is made inside the namespace, where the daemon runs: an nftables
table drops every packet to and from the cut ports (no RST, no FIN: the path
goes silent, as a broken network does), until :meth:`Host.restore`.
:meth:`Host.unplug` takes the whole link down instead.

Everything is torn down at the end, also after a failure: the processes in the
namespace, the namespace (with its veth pair and rules) and the forwarders.
Needs root, ``ip`` (iproute2) and ``nft`` (nftables); without them
:func:`require` fails with what to do, never skips.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.e2e.netcut import CuttableProxy

PREFIX = "pbem"  # namespaces pbem-N, veth pairs pbemNh / pbemNn
_LOCK = Path("/run/lock/pbem-netns.lock")  # two test runs never pick one subnet
_NFT_RULES = """\
table inet pbem {{
  set cut {{ type inet_service; }}
  chain out {{ type filter hook output priority 0; policy accept;
    ip daddr {gateway} tcp dport @cut drop; }}
  chain in {{ type filter hook input priority 0; policy accept;
    ip saddr {gateway} tcp sport @cut drop; }}
}}
"""


class NetnsError(RuntimeError):
    """Network namespaces cannot be made here (not root, a tool missing) or a command failed."""


def require() -> None:
    """Fail with what to do when this machine cannot make namespaces."""
    if os.geteuid() != 0:
        raise NetnsError("the partition tests make network namespaces: run them as root")
    for tool, package in (("ip", "iproute2"), ("nft", "nftables")):
        if shutil.which(tool) is None:
            raise NetnsError(f"'{tool}' is missing: apt-get install -y {package}")


def _run(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise NetnsError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


class Host:
    """One network namespace, joined to this host by a veth pair."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.name = f"{PREFIX}-{index}"
        self.gateway = f"10.200.{index}.1"  # this side: the forwarders listen here
        self.address = f"10.200.{index}.2"
        self._outside, self._inside = f"{PREFIX}{index}h", f"{PREFIX}{index}n"
        self._cut: set[int] = set()

    def create(self) -> None:
        _run("ip", "netns", "add", self.name)
        _run("ip", "link", "add", self._outside, "type", "veth", "peer", "name", self._inside)
        _run("ip", "link", "set", self._inside, "netns", self.name)
        _run("ip", "addr", "add", f"{self.gateway}/30", "dev", self._outside)
        _run("ip", "link", "set", self._outside, "up")
        _run("ip", "-n", self.name, "addr", "add", f"{self.address}/30", "dev", self._inside)
        _run("ip", "-n", self.name, "link", "set", self._inside, "up")
        _run("ip", "-n", self.name, "link", "set", "lo", "up")
        rules = _NFT_RULES.format(gateway=self.gateway)
        done = subprocess.run(
            ["ip", "netns", "exec", self.name, "nft", "-f", "-"],
            input=rules,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise NetnsError(f"nft in {self.name} failed: {done.stderr.strip()}")

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside this namespace (``ip netns exec`` execs it: same pid)."""
        return ["ip", "netns", "exec", self.name, *argv]

    def cut(self, *ports: int) -> None:
        """Drop every packet to and from these ports of the gateway, both ways."""
        self._nft_set("add", ports)
        self._cut.update(ports)

    def restore(self, *ports: int) -> None:
        """Let these ports through again (all cut ones if none are named)."""
        ports = ports or tuple(self._cut)
        self._nft_set("delete", ports)
        self._cut.difference_update(ports)

    def unplug(self) -> None:
        """The whole link goes down (routes with it: new connections fail at once)."""
        _run("ip", "-n", self.name, "link", "set", self._inside, "down")

    def plug(self) -> None:
        _run("ip", "-n", self.name, "link", "set", self._inside, "up")

    def _nft_set(self, verb: str, ports: Sequence[int]) -> None:
        if ports:
            elements = ", ".join(str(p) for p in ports)
            _run(
                *self.command(["nft", verb, "element", "inet", "pbem", "cut", f"{{ {elements} }}"])
            )

    def pids(self) -> list[int]:
        out = subprocess.run(
            ["ip", "netns", "pids", self.name], capture_output=True, text=True, check=False
        ).stdout
        return [int(p) for p in out.split()]

    def close(self) -> None:
        """Kill what still runs inside, then delete the namespace (its veth pair and
        rules go with it). Safe to call twice, and on a half-made host."""
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, check=False)
        subprocess.run(["ip", "link", "del", self._outside], capture_output=True, check=False)


class Network:
    """Hosts made on demand, each reaching ``ports`` of 127.0.0.1 through its gateway.

    Use as a context manager; :meth:`close` undoes everything."""

    def __init__(self, ports: Sequence[int]) -> None:
        require()
        self.ports = tuple(ports)
        self.hosts: list[Host] = []
        self._proxies: list[CuttableProxy] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def host(self) -> Host:
        """A new namespace with forwarders for every port on its gateway."""
        with _locked():
            host = Host(_free_index())
            self.hosts.append(host)  # closed at the end even if half made
            host.create()
        for port in self.ports:
            proxy = CuttableProxy(port, host=host.gateway, port=port)
            self._proxies.append(proxy)
            self._call(proxy.start())
        return host

    def _call(self, coroutine: object) -> None:
        asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=30)  # type: ignore[arg-type]

    def close(self) -> None:
        for host in self.hosts:
            host.close()
        for proxy in self._proxies:
            with contextlib.suppress(Exception):
                self._call(proxy.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def __enter__(self) -> Network:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    _LOCK.parent.mkdir(parents=True, exist_ok=True)
    with _LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _free_index() -> int:
    """A subnet 10.200.N.0/30 no namespace and no address of this host uses."""
    used = {int(n) for n in re.findall(rf"^{PREFIX}-(\d+)", _run("ip", "netns", "list"), re.M)}
    used |= {int(n) for n in re.findall(r"\b10\.200\.(\d+)\.", _run("ip", "-o", "-4", "addr"))}
    for index in range(1, 255):
        if index not in used:
            return index
    raise NetnsError("no free subnet in 10.200.0.0/16: remove old pbem-N namespaces")
