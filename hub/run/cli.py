"""`python -m hub serve`: every setting a flag, each flag also an environment variable HUB_<NAME>."""
from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from dataclasses import MISSING, fields
from typing import Any

from hub import logs
from hub.settings import Settings, env_name, parse


def parse_bool(raw: str) -> bool:
    return bool(parse("bool", raw))


def parser_of(kind: str) -> Any:
    return lambda raw: parse(kind, raw)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m hub", description="The game hub")
    sub = ap.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the lobby, the WebSocket endpoint and the web client")
    env_defaults = Settings.from_env()
    for f in fields(Settings):
        flag = "--" + f.name.replace("_", "-")
        kind = f.type if isinstance(f.type, str) else f.type.__name__
        default = getattr(env_defaults, f.name)
        helptext = f"{f.metadata.get('help', '')} (env {env_name(f.name, f.metadata)}; default {default!r})"
        if kind == "bool":
            serve.add_argument(flag, dest=f.name, default=None, nargs="?", const=True,
                               type=parse_bool, help=helptext)
        else:
            serve.add_argument(flag, dest=f.name, default=None, type=parser_of(kind), help=helptext)
        assert f.default is not MISSING
    sub.add_parser("health", help="exit 0 if the hub these settings (HUB_*) describe answers /healthz "
                                  "(a container's HEALTHCHECK)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        overrides: dict[str, Any] = {f.name: getattr(args, f.name) for f in fields(Settings)}
        settings = Settings.from_env(**overrides)
        return serve(settings)
    if args.command == "health":
        return health(Settings.from_env())
    return 2


def health(settings: Settings) -> int:
    """Ask this machine's hub for /healthz, over https when it serves TLS: its certificate names the
    public host, not the loopback address asked here, so it is not checked (nothing is sent)."""
    import json
    import ssl
    import urllib.request

    host = settings.host if settings.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    scheme = "https" if settings.tls_cert else "http"
    tls = ssl._create_unverified_context() if settings.tls_cert else None
    try:
        with urllib.request.urlopen(f"{scheme}://{host}:{settings.port}/healthz", timeout=3, context=tls) as r:
            ok = r.status == 200 and json.loads(r.read()).get("ok") is True
    except (OSError, ValueError) as e:
        print(f"hub: unhealthy: {e}", file=sys.stderr)
        return 1
    return 0 if ok else 1


def transport_limit(max_frame: int) -> int:
    """The WebSocket transport itself refuses a frame over the limit, from its header, before reading
    its payload: it closes with 1009 and drops whatever else comes. Reading such frames whole first
    and refusing them in the app let 12 connections streaming unfinished 15 MiB frames take the
    process from 38 to 218 MiB, which it never gave back. A client still sending such a frame reads
    the 1009 too: the refusal half-closes (hub/edge/refusal.py) rather than resetting."""
    return max_frame


def serve(settings: Settings) -> int:
    import uvicorn

    from hub.edge.app import create_app
    from hub.edge.gate import protocols
    from hub.run import fds

    logs.setup(settings.log_level)
    from hub.run import workers

    refused = workers.refusal(settings)
    if refused:
        print(f"hub: {refused}", file=sys.stderr)
        return 2
    if settings.workers > 1:
        return workers.Supervisor(settings).run()
    backend = "redis" if settings.redis else settings.store
    if backend == "sqlite":
        from pathlib import Path

        from hub.stores.sqlite import lock

        try:
            lock.hold(Path(settings.db))
        except lock.Locked as e:
            print(f"hub: {e}", file=sys.stderr)
            return 1
    wrong = misconfigured(settings)
    if wrong:
        print(f"hub: {wrong}", file=sys.stderr)
        return 2
    before, nofile, hard = fds.raise_nofile()
    app = create_app(settings)
    fitted: Settings = app.state.settings
    logging.getLogger("hub").info("open-file limit", extra={"fields": {
        "nofile": nofile, "was": before, "hard": hard, "max_conns": fitted.max_conns,
        "conns_per_ip": fitted.conns_per_ip, "http_conns_per_ip": fitted.http_conns_per_ip,
        "pending_ws_per_ip": fitted.pending_ws_per_ip}})
    logging.getLogger("hub").info("serving", extra={"fields": {"host": settings.host, "port": settings.port,
                                                               "backend": backend}})
    loop = settings.loop
    if loop == "auto":
        try:
            import uvloop  # noqa: F401

            loop = "uvloop"
        except ImportError:
            loop = "asyncio"
    http_protocol = protocols(app.state.gate)
    ws: Any = settings.ws
    if ws == "websockets-sansio":
        from hub.edge.refusal import RefusingProtocol

        ws = RefusingProtocol
    config = uvicorn.Config(
        app, host=settings.host, port=settings.port, http=http_protocol, ws=ws,
        ws_max_size=transport_limit(settings.max_frame_bytes), ws_per_message_deflate=False, ws_ping_interval=None,
        loop=loop, log_config=None, access_log=False, lifespan="on", timeout_graceful_shutdown=3,
        timeout_keep_alive=max(1, min(5, int(settings.http_timeout_s))),
        # forwarding headers are read by the app, from --trusted-proxies only (hub/edge/proxies.py)
        proxy_headers=False,
        ssl_context_factory=(lambda config, default: app.state.tls.context) if app.state.tls else None,
    )
    uvicorn.Server(config).run(sockets=[shared_socket(settings.host, settings.port)] if settings.reuse_port else None)
    return 0


def misconfigured(settings: Settings) -> str | None:
    """Settings that cannot serve, said at start rather than found by the first player."""
    from hub.edge.proxies import networks

    try:
        networks(settings.trusted_proxies)
    except ValueError as e:
        return str(e)
    if bool(settings.tls_cert) != bool(settings.tls_key):
        return "--tls-cert and --tls-key go together"
    for path in (settings.tls_cert, settings.tls_key):
        if path and not os.access(path, os.R_OK):
            return f"cannot read {path}"
    if settings.redirect_port and not settings.tls_cert:
        return "--redirect-port redirects to https: it needs --tls-cert and --tls-key"
    return None


def shared_socket(host: str, port: int) -> socket.socket:
    """A listening socket that other processes bind too (SO_REUSEPORT): the kernel spreads new
    connections over them by the hash of their addresses."""
    family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(addr)
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock
