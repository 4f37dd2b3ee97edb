"""The Starlette app: routes, the static client, and the lifespan that owns the rooms."""
from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from hub import lobby
from hub.connection import Endpoint
from hub.metrics import Metrics
from hub.rooms import Rooms
from hub.settings import Settings

WEB = Path(__file__).resolve().parent.parent / "web"


def create_app(settings: Settings | None = None) -> Starlette:
    settings = settings or Settings.from_env()
    metrics = Metrics()
    rooms = Rooms(settings, metrics)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await rooms.start()
        try:
            yield
        finally:
            await rooms.stop()

    async def healthz(request: Request) -> Response:
        ok = metrics.broker_up._value.get() >= 1  # noqa: SLF001
        return JSONResponse({"ok": True, "broker": "up" if ok else "down", "rooms": len(rooms.rooms),
                             "connections": len(rooms.conns)})

    async def prometheus(request: Request) -> Response:
        return Response(metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    routes: list[Route | WebSocketRoute | Mount] = [
        Route("/healthz", healthz),
        Route("/metrics", prometheus),
        Route("/api/games", lobby.list_games),
        Route("/api/rooms", lobby.list_rooms, methods=["GET"]),
        Route("/api/rooms", lobby.create_room, methods=["POST"]),
        Route("/api/rooms/{rid}", lobby.room_info, methods=["GET"]),
        Route("/api/rooms/{rid}/join", lobby.join_room, methods=["POST"]),
        Route("/api/rooms/{rid}/replay", lobby.room_replay, methods=["GET"]),
        WebSocketRoute("/ws", Endpoint()),
    ]
    if (WEB / "node_modules").is_dir():
        routes.append(Mount("/vendor", StaticFiles(directory=WEB / "node_modules"), name="vendor"))
    if WEB.is_dir():
        routes.append(Mount("/", StaticFiles(directory=WEB, html=True), name="web"))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.settings = settings
    app.state.rooms = rooms
    app.state.metrics = metrics
    return app
