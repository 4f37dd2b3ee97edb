"""`python -m hub serve`: every setting a flag, each flag also an environment variable HUB_<NAME>."""
from __future__ import annotations

import argparse
import logging
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
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        overrides: dict[str, Any] = {f.name: getattr(args, f.name) for f in fields(Settings)}
        settings = Settings.from_env(**overrides)
        return serve(settings)
    return 2


def transport_limit(max_frame: int) -> int:
    """The socket layer reads frames up to a larger hard cap, so the app itself refuses an oversized
    frame with 1009 after reading it whole: refusing mid-frame would reset the TCP connection under a
    client still sending, and it would never see the close code."""
    return max(16 << 20, 4 * max_frame)


def serve(settings: Settings) -> int:
    import uvicorn

    from hub.edge.app import create_app

    logs.setup(settings.log_level)
    backend = "redis" if settings.redis else settings.store
    if backend == "sqlite":
        from pathlib import Path

        from hub.stores.sqlite import lock

        try:
            lock.hold(Path(settings.db))
        except lock.Locked as e:
            print(f"hub: {e}", file=sys.stderr)
            return 1
    logging.getLogger("hub").info("serving", extra={"fields": {"host": settings.host, "port": settings.port,
                                                               "backend": backend}})
    loop = settings.loop
    if loop == "auto":
        try:
            import uvloop  # noqa: F401

            loop = "uvloop"
        except ImportError:
            loop = "asyncio"
    config = uvicorn.Config(
        create_app(settings), host=settings.host, port=settings.port, ws=settings.ws,
        ws_max_size=transport_limit(settings.max_frame_bytes), ws_per_message_deflate=False, ws_ping_interval=None,
        loop=loop, log_config=None, access_log=False, lifespan="on", timeout_graceful_shutdown=3,
    )
    uvicorn.Server(config).run()
    return 0
