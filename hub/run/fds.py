"""File descriptors: the limit the process runs under, and the connection limits kept below it.

Every socket is a file descriptor. A process that runs out of them cannot accept a connection at
all: asyncio logs the failed `accept()` and stops listening for a second, the kernel's backlog
fills, and `/healthz` gets a connection reset like everyone else. With `nofile=1024` (a common
service default) a single address did that with 1,100 idle sockets while `--conns-per-ip` allowed
4,000. So at start the soft limit is raised to the hard one, and the total and per-address limits
are derived from it with a reserve: the process's own files (its database, Redis, the listening
socket) and a few spare connections over the limits that may still ask for `/healthz` or
`/metrics` (hub/edge/gate.py) always find a descriptor.
"""
from __future__ import annotations

import logging
import resource
from dataclasses import dataclass, replace

from hub.logs import log
from hub.settings import Settings

logger = logging.getLogger("hub.fds")

#: A limit set to this is derived from the open-file limit.
DERIVED = -1
#: WebSockets per address never default above this, however high the open-file limit.
CONNS_PER_IP_CEILING = 4000
#: Past this, a higher open-file limit buys nothing the hub would use (and RLIM_INFINITY is no number).
NOFILE_CEILING = 1 << 20


@dataclass(frozen=True)
class Budget:
    """What the open-file limit leaves for connections."""

    nofile: int
    reserve: int      # descriptors never given to connections counted by the limits
    total: int        # connections the limits allow at most (max_conns)
    spare: int        # connections over a limit held at once, each only for a moment (hub/edge/gate.py)


def budget(nofile: int) -> Budget:
    reserve = max(64, nofile // 8)
    total = max(16, nofile - reserve)
    return Budget(nofile, reserve, total, max(4, reserve // 4))


def soft_limit() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return NOFILE_CEILING if soft == resource.RLIM_INFINITY else min(soft, NOFILE_CEILING)


def raise_nofile() -> tuple[int, int, int]:
    """Raise the soft open-file limit to the hard one; (soft before, soft now, hard), logged."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = NOFILE_CEILING if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as e:
            log(logger, logging.WARNING, "could not raise the open-file limit", soft=soft, hard=hard, error=str(e))
    now = soft_limit()
    return soft, now, hard


def fitted(settings: Settings, nofile: int | None = None) -> Settings:
    """The settings with every derived limit filled in from the open-file limit, and every limit set
    above what the descriptors allow brought down to it (with a warning: it could not hold)."""
    b = budget(nofile if nofile is not None else soft_limit())
    total = settings.max_conns
    if total == DERIVED:
        total = b.total
    elif total > b.total:
        log(logger, logging.WARNING, "max_conns lowered to fit the open-file limit", asked=total, kept=b.total,
            nofile=b.nofile)
        total = b.total
    share = max(1, (total or b.total) // 2)  # no one address may hold more than half of it
    per_ip = settings.conns_per_ip
    if per_ip == DERIVED:
        per_ip = min(CONNS_PER_IP_CEILING, share)
    elif per_ip > share:
        log(logger, logging.WARNING, "conns_per_ip lowered to fit the open-file limit", asked=per_ip, kept=share,
            nofile=b.nofile)
        per_ip = share
    http = settings.http_conns_per_ip
    if http > share:
        http = share
    pending = settings.pending_ws_per_ip
    if pending > share:
        pending = share
    return replace(settings, max_conns=total, conns_per_ip=per_ip, http_conns_per_ip=http,
                   pending_ws_per_ip=pending)
