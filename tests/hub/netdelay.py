"""A delay line below TCP, for tests: seats in network namespaces, each packet held for a one-way delay.

Delays made inside a client (sleeping before it sends) are indistinguishable from lying about its
network, and this kernel has no `netem`. So the test makes them where the hub's kernel sees them:
one TUN device in the hub's namespace (the hub binds its address), one network namespace per seat
with a TUN device of its own, and a forwarder process that moves IP packets between them, holding
each for that seat's one-way delay in either direction (the same delay for every packet of a
direction, so packets stay in order). Everything is local: the addresses live only on these
devices, which vanish with the forwarder, and the namespaces are removed at the end.

Sockets of the test's clients are made inside a seat's namespace (`socket_in`, by switching the
calling thread's namespace for the moment of `socket()`; a socket stays in the namespace it was
made in), so one asyncio process drives every seat. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and
/dev/net/tun.

Run as `python -m tests.hub.netdelay TAG HUB_DEV DELAY_MS ...` it is the forwarder (started by
`DelayLine`); it prints "ready" once its devices exist.
"""
from __future__ import annotations

import collections
import contextlib
import ctypes
import fcntl
import os
import secrets
import select
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000
CLONE_NEWNET = 0x40000000
NET = "10.218"  # 10.218.0.1 the hub; 10.218.1.(i+1) seat namespace i
HUB_ADDR = f"{NET}.0.1"

_libc = ctypes.CDLL(None, use_errno=True)


def setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


@contextlib.contextmanager
def inside(ns: str) -> Iterator[None]:
    """The calling thread in namespace `ns` for the block, then back where it was."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/var/run/netns/{ns}", os.O_RDONLY)
    try:
        setns(target)
        try:
            yield
        finally:
            setns(own)
    finally:
        os.close(own)
        os.close(target)


def open_tun(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


def forward(tag: str, hub_dev: str, delays_ms: list[float]) -> None:
    """The forwarder: TUN devices up, then packets moved with their delay until killed."""
    with contextlib.suppress(OSError):
        os.nice(-10)  # a late forwarder is jitter on every seat's path: ahead of the test's other work
    hub_fd = open_tun(hub_dev)
    ip("addr", "add", f"{HUB_ADDR}/16", "dev", hub_dev)
    ip("link", "set", hub_dev, "up")
    seat_fds: list[int] = []
    by_addr: dict[bytes, int] = {}
    for i in range(len(delays_ms)):
        ns, dev = f"{tag}s{i}", f"{tag}c{i}"
        with inside(ns):
            seat_fds.append(open_tun(dev))
        ip("-n", ns, "link", "set", "lo", "up")
        ip("-n", ns, "addr", "add", f"{NET}.1.{i + 1}/16", "dev", dev)
        ip("-n", ns, "link", "set", dev, "up")
        by_addr[socket.inet_aton(f"{NET}.1.{i + 1}")] = i
    delays = [d / 1000 for d in delays_ms]
    # per seat and direction: (due, packet), in order of arrival; a constant delay keeps that order
    down: list[collections.deque[tuple[float, bytes]]] = [collections.deque() for _ in delays]
    up: list[collections.deque[tuple[float, bytes]]] = [collections.deque() for _ in delays]
    seat_of = {fd: i for i, fd in enumerate(seat_fds)}
    print("ready", flush=True)
    poller = select.epoll()
    for fd in [hub_fd, *seat_fds]:
        poller.register(fd, select.EPOLLIN)
    while True:
        now = time.monotonic()
        due = min((q[0][0] for q in (*down, *up) if q), default=now + 1.0)
        for fd, _ in poller.poll(max(0.0, due - now)):
            while True:
                try:
                    pkt = os.read(fd, 65536)
                except BlockingIOError:
                    break
                if len(pkt) < 20 or pkt[0] >> 4 != 4:
                    continue  # IPv4 only: nothing else is routed here
                at = time.monotonic()
                if fd == hub_fd:
                    i = by_addr.get(pkt[16:20], -1)
                    if i >= 0:
                        down[i].append((at + delays[i], pkt))
                else:
                    i = seat_of[fd]
                    up[i].append((at + delays[i], pkt))
        now = time.monotonic()
        for i in range(len(delays)):
            while down[i] and down[i][0][0] <= now:
                with contextlib.suppress(OSError):
                    os.write(seat_fds[i], down[i].popleft()[1])
            while up[i] and up[i][0][0] <= now:
                with contextlib.suppress(OSError):
                    os.write(hub_fd, up[i].popleft()[1])


def socket_in(ns: str) -> socket.socket:
    """A TCP socket in namespace `ns` (any process of root may make one), with TCP_NODELAY as
    browsers set it."""
    with inside(ns):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def available() -> str | None:
    """Why a delay line cannot be made here, or None."""
    if not sys.platform.startswith("linux"):
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "network namespaces and TUN devices need root"
    if not Path("/dev/net/tun").exists():
        return "no /dev/net/tun"
    try:
        subprocess.run(["ip", "-V"], check=True, capture_output=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return "no `ip` command"
    return None


class DelayLine:
    """Seat namespaces at the given one-way delays, and the forwarder; `close` removes them all."""

    def __init__(self, delays_ms: list[float]) -> None:
        self.tag = "nd" + secrets.token_hex(3)
        self.delays_ms = list(delays_ms)
        self.namespaces: list[str] = []
        self.proc: subprocess.Popen[bytes] | None = None
        self.hub_addr = HUB_ADDR

    def open(self) -> DelayLine:
        try:
            for i in range(len(self.delays_ms)):
                ns = f"{self.tag}s{i}"
                ip("netns", "add", ns)
                self.namespaces.append(ns)
            root = Path(__file__).resolve().parents[2]
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.hub.netdelay", self.tag, f"{self.tag}h",
                 *(str(d) for d in self.delays_ms)], cwd=root, stdout=subprocess.PIPE)
            assert self.proc.stdout is not None
            line = self.proc.stdout.readline()
            if line.strip() != b"ready":
                raise RuntimeError(f"the delay line's forwarder did not start (exit {self.proc.poll()})")
        except Exception:
            self.close()
            raise
        return self

    def socket_in(self, seat: int) -> socket.socket:
        return socket_in(self.namespaces[seat])

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for ns in self.namespaces:
            with contextlib.suppress(subprocess.SubprocessError):
                ip("netns", "del", ns)
        self.namespaces = []


if __name__ == "__main__":
    forward(sys.argv[1], sys.argv[2], [float(d) for d in sys.argv[3:]])
