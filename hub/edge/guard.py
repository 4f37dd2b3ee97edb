"""What a request must be to reach the app: from an allowed page, in JSON, within the limits.

- Cross-site requests. A web page any player opens can send a POST to the hub from the player's
  browser, and from the player's address; a `text/plain` body needs no preflight, so the browser
  sends it without asking. Every `POST /api/...` must therefore say `Content-Type:
  application/json` (415 otherwise), which a cross-site page can only send after a CORS preflight
  the hub never grants, and a request whose `Origin` is foreign is refused (403), as is a
  WebSocket handshake (403 before it opens: browsers send `Origin` on every WebSocket). The hub's
  own pages are same-origin: their `Origin` names the host and port the request's `Host` names.
  `--allowed-origins` adds others. A request with no `Origin` (bots, scripts, curl) is not a
  browser's cross-site request and goes through.
- A connection over a limit of the gate (hub/edge/gate.py) may still ask for `/healthz`,
  `/readyz` or `/metrics`; anything else gets 429 `too_many_connections` (its address holds its
  share) or 503 `busy` (the process holds all it may), and a WebSocket is closed at once.

A WebSocket it lets through to a path of `websockets` (the hub's `/ws`) goes straight to that
endpoint, not through Starlette's exception middleware and router: those add nothing to a WebSocket
whose endpoint handles its own errors (no exception handler is registered for one), and their
coroutines, closures and second `WebSocket` were 2.3 KiB held by every idle connection for its
whole life (bench/memory.py). The route stays in the router, which still serves the path under a
`root_path`.
"""
from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from hub.edge.direct import SCOPE_KEY
from hub.edge.gate import ADDRESS, SCOPE_OVER, Gate
from hub.metrics import Metrics
from hub.settings import Settings

#: What a connection over a limit may still ask.
MONITORING = frozenset({"/healthz", "/readyz", "/metrics"})
#: WebSocket close codes for a connection over a limit: its address's share (as --conns-per-ip), or the process's.
CLOSE_ADDRESS, CLOSE_FULL = 4008, 1013


def origins(raw: str) -> frozenset[str]:
    return frozenset(o.strip().lower().rstrip("/") for o in raw.split(",") if o.strip())


def origin_allowed(origin: str | None, host: str | None, allowed: frozenset[str]) -> bool:
    """No Origin (not a browser's cross-site request), the request's own host and port, or one listed."""
    if origin is None or "*" in allowed:
        return True
    o = origin.strip().lower().rstrip("/")
    if o in allowed:
        return True
    try:
        parts = urlsplit(o)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc == (host or "").strip().lower()


def is_json(content_type: str | None) -> bool:
    return (content_type or "").split(";", 1)[0].strip().lower() == "application/json"


def refusal(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status, headers={"Connection": "close"})


class Guard:
    """ASGI middleware before the routes."""

    def __init__(self, app: ASGIApp, settings: Settings, metrics: Metrics, gate: Gate,
                 websockets: Mapping[str, ASGIApp] | None = None) -> None:
        self.app = app
        self.websockets = dict(websockets or {})
        self.allowed = origins(settings.allowed_origins)
        self.metrics = metrics
        self.gate = gate

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """The app's own coroutine where the request passes (not awaited here): a WebSocket's call
        lasts as long as the connection, and a frame of this middleware's would be held by each
        one for all that time (0.9 KiB per idle connection in bench/memory.py)."""
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            return self.app(scope, receive, send)
        over = scope.get(SCOPE_OVER)  # set by the gate's protocols (hub/edge/gate.py)
        headers = Headers(scope=scope)
        if kind == "websocket":
            if not origin_allowed(headers.get("origin"), headers.get("host"), self.allowed):
                self.metrics.refused.labels("origin").inc()
                return WebSocket(scope, receive, send).close(1008, "foreign origin")  # before accept: HTTP 403
            # the server's own send (hub/edge/direct.py) is bound to the connection's protocol
            server_send = scope.get(SCOPE_KEY, send)
            over = self.gate.reason(getattr(getattr(server_send, "__self__", None), "transport", None))
            if over is not None:
                return self.turn_away(WebSocket(scope, receive, send), over)
            endpoint = None if scope.get("root_path") else self.websockets.get(scope.get("path", ""))
            passed: Awaitable[None] = (endpoint or self.app)(scope, receive, send)
            return passed
        path: str = scope.get("path", "")
        answer: Any = None
        if over is not None and path not in MONITORING:
            answer = (refusal("too_many_connections", "too many connections from this address", 429)
                      if over == ADDRESS else
                      refusal("busy", "the hub holds all the connections it may; try again shortly", 503))
        elif scope.get("method") == "POST" and path.startswith("/api/"):
            if not origin_allowed(headers.get("origin"), headers.get("host"), self.allowed):
                self.metrics.refused.labels("origin").inc()
                answer = refusal("forbidden_origin", "requests from another site's pages are refused", 403)
            elif not is_json(headers.get("content-type")):
                self.metrics.refused.labels("media_type").inc()
                answer = refusal("unsupported_media_type", "the body must be sent as application/json", 415)
        if answer is not None:
            result: Awaitable[None] = answer(scope, receive, send)
            return result
        return self.app(scope, receive, send)

    async def turn_away(self, ws: WebSocket, over: str) -> None:
        """Accepted, then closed, so that the client sees a close code rather than a refused handshake."""
        await ws.accept()
        self.metrics.closes.labels(str(CLOSE_ADDRESS if over == ADDRESS else CLOSE_FULL)).inc()
        if over == ADDRESS:
            await ws.close(CLOSE_ADDRESS, "too many connections from this address")
        else:
            await ws.close(CLOSE_FULL, "the hub holds all the connections it may; try again shortly")
