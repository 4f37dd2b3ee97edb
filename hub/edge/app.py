"""The Starlette app: routes, the static client, and the lifespan that owns the rooms."""
from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from hub.edge import lobby
from hub.edge.admission import Admission
from hub.edge.connection import Endpoint
from hub.edge.direct import KeepSend
from hub.edge.gate import Gate
from hub.edge.guard import Guard
from hub.edge.proxies import TrustedProxies
from hub.edge.tls import Certificates, Redirect
from hub.metrics import Metrics
from hub.run.fds import budget, fitted, soft_limit
from hub.run.gcpolicy import GcPolicy
from hub.settings import Settings
from hub.stores import make_store

WEB = Path(__file__).resolve().parents[2] / "web"


def create_app(settings: Settings | None = None) -> Starlette:
    # the connection limits derived from, or brought under, the open-file limit (hub/run/fds.py)
    settings = fitted(settings or Settings.from_env())
    metrics = Metrics()
    gate = Gate(settings, budget(soft_limit()).spare, metrics)
    store = make_store(settings, metrics)
    gc_policy = GcPolicy(settings.gc_full_every_s, metrics.gc_pauses)

    # https and wss from this process (hub/edge/tls.py); unusable files stop the hub here, at start
    certs = Certificates(settings.tls_cert, settings.tls_key, metrics) if settings.tls_cert else None

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await store.start()
        gc_policy.install()
        tasks: list[asyncio.Task[None]] = []
        redirect: asyncio.Server | None = None
        if certs is not None:
            tasks.append(asyncio.create_task(certs.watch(settings.tls_check_s)))
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread
                asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, certs.check)
            if settings.redirect_port:
                redirect = await Redirect(settings.port, settings.acme_webroot).start(
                    settings.host, settings.redirect_port, settings.reuse_port)
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            if redirect is not None:
                redirect.close()
            gc_policy.uninstall()
            await store.stop()

    def health() -> dict[str, Any]:
        return {"ok": True, "backend": store.kind, "broker": "up" if store.up else "down",
                "rooms": len(store.rooms.rooms), "connections": len(store.conns),
                "pid": os.getpid()}  # which of several --workers answered

    async def healthz(request: Request) -> Response:
        """Liveness: 200 while this process serves, even when Redis is away (it keeps its sockets)."""
        return JSONResponse(health())

    async def readyz(request: Request) -> Response:
        """Readiness: 503 while the store is down, so a balancer sends new players elsewhere."""
        return JSONResponse(health(), status_code=200 if store.up else 503)

    async def prometheus(request: Request) -> Response:
        return Response(metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    ws_endpoint = Endpoint()
    routes: list[Route | WebSocketRoute | Mount] = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/metrics", prometheus),
        Route("/api/games", lobby.list_games),
        Route("/api/games/{game}/catalogue", lobby.game_catalogue, methods=["GET"]),
        Route("/api/rooms", lobby.list_rooms, methods=["GET"]),
        Route("/api/history", lobby.history, methods=["GET"]),
        Route("/api/rooms", lobby.create_room, methods=["POST"]),
        Route("/api/rooms/{rid}", lobby.room_info, methods=["GET"]),
        Route("/api/rooms/{rid}/join", lobby.join_room, methods=["POST"]),
        Route("/api/rooms/{rid}/again", lobby.play_again, methods=["POST"]),
        Route("/api/rooms/{rid}/replay", lobby.room_replay, methods=["GET"]),
        WebSocketRoute("/ws", ws_endpoint),
    ]
    if settings.debug_hooks:
        async def deaf(request: Request) -> Response:
            """Lose pub/sub messages for `ms` milliseconds, so tests can see a lost publish healed."""
            store.go_deaf(float(request.query_params.get("ms", "500")) / 1000)
            return JSONResponse({"ok": True})

        async def whole_walk(request: Request) -> Response:
            """Run the collector's whole walk now, so a benchmark can say how long it stops the loop."""
            if not gc_policy.active:
                return JSONResponse({"ms": None})
            gc_policy.last_full = float("-inf")
            return JSONResponse({"ms": gc_policy.walk() * 1000})

        routes.append(Route("/debug/deaf", deaf, methods=["POST"]))
        routes.append(Route("/debug/gc-whole", whole_walk, methods=["POST"]))
    if (WEB / "node_modules").is_dir():
        routes.append(Mount("/vendor", StaticFiles(directory=WEB / "node_modules"), name="vendor"))
    if WEB.is_dir():
        routes.append(Mount("/", StaticFiles(directory=WEB, html=True), name="web"))
    guard = Middleware(Guard, settings=settings, metrics=metrics, gate=gate, websockets={"/ws": ws_endpoint})
    proxies = Middleware(TrustedProxies, trusted=settings.trusted_proxies, metrics=metrics)
    app = Starlette(routes=routes, lifespan=lifespan, middleware=[proxies, Middleware(KeepSend), guard])
    app.state.settings = settings
    app.state.tls = certs  # the context the server listens with (hub/run/cli.py)
    app.state.gate = gate  # counts connections where the server runs the gate's protocols (hub/run/cli.py)
    app.state.seat_quota = store.seat_quota(settings.joins_per_ip_per_min, settings.seats_per_ip)
    app.state.store = store
    app.state.admission = Admission(settings)  # WebSockets per address (hub/edge/admission.py)
    app.state.metrics = metrics
    return app
