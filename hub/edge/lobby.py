"""The lobby's HTTP API (PROTOCOL.md section 1): games, rooms, seats and their tokens."""
from __future__ import annotations

import asyncio
import json
import unicodedata
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hub.stores.base import Store
from hub.stores.quota import Reservation, SeatQuota
from hub.tables.catalogues import catalogue
from hub.tables.seat import RoomError

MAX_BODY = 16 * 1024
NAME_MAX = 24


def error(code: str, message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def clean_name(raw: Any, longest: int = NAME_MAX) -> str:
    """Names are short and printable: no control or formatting characters, no lookalike tricks."""
    if not isinstance(raw, str):
        raise RoomError("bad_name", "name must be a string")
    if len(raw) > 4 * longest:  # refuse a huge string before normalising it
        raise RoomError("bad_name", f"name must have 1 to {longest} characters")
    name = unicodedata.normalize("NFC", raw).strip()
    if not 1 <= len(name) <= longest:
        raise RoomError("bad_name", f"name must have 1 to {longest} characters")
    if any(unicodedata.category(ch)[0] in ("C", "Z") and ch != " " for ch in name):
        raise RoomError("bad_name", "name may not contain control, formatting or separator characters")
    return name


async def body(request: Request) -> Any:
    """The request's JSON, bounded in size and in time: the gate (hub/edge/gate.py) times the head
    only, and a body trickled a byte a second would hold its connection for as long as it is long."""
    settings = getattr(request.app.state, "settings", None)
    limit = getattr(settings, "max_body_bytes", MAX_BODY)
    raw = b""
    try:
        async with asyncio.timeout(getattr(settings, "http_timeout_s", 10.0)):
            async for chunk in request.stream():
                raw += chunk
                if len(raw) > limit:
                    raise RoomError("too_large", "request body too large", 413)
    except TimeoutError:
        raise RoomError("too_slow", "the request body came too slowly", 408) from None
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise RoomError("bad_json", "the body is not JSON") from None


def store_of(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


async def list_games(request: Request) -> Response:
    return JSONResponse(store_of(request).games())


async def game_catalogue(request: Request) -> Response:
    """A game's catalogue (hub/tables/catalogues.py): cached by the client for a day and revalidated
    by its ETag, so a page fetches it once however many tables it opens."""
    found = catalogue(str(request.path_params["game"]))
    if found is None:
        return error("no_game", "no such game", 404)
    body, etag = found
    headers = {"ETag": etag, "Cache-Control": "public, max-age=86400"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


async def create_room(request: Request) -> Response:
    try:
        data = await body(request)
        if not isinstance(data, dict):
            raise RoomError("bad_request", "the body must be a JSON object")
        ip = request.client.host if request.client else ""
        made = await store_of(request).create(data.get("game"), data.get("seats"), data.get("options"),
                                               data.get("bots"), ip)
    except RoomError as e:
        return error(e.code, e.message, e.status)
    return JSONResponse(made, status_code=201)


async def list_rooms(request: Request) -> Response:
    try:
        return JSONResponse(await store_of(request).listing())
    except RoomError as e:
        return error(e.code, e.message, e.status)


async def room_info(request: Request) -> Response:
    try:
        info = await store_of(request).info(request.path_params["rid"])
    except RoomError as e:
        return error(e.code, e.message, e.status)
    if info is None:
        return error("no_room", "no such room", 404)
    return JSONResponse(info)


async def exists(store: Store, rid: str) -> bool | None:
    """Whether the room exists; None when the backend cannot say."""
    try:
        return await store.info(rid) is not None
    except RoomError:
        return None


async def history(request: Request) -> Response:
    """Finished public games, newest first, page by page: `?limit=20&before=<a page's next>`."""
    q = request.query_params
    try:
        limit = int(q.get("limit", "20"))
        before = int(q["before"]) if "before" in q else None
    except ValueError:
        return error("bad_request", "limit and before are integers")
    if not 1 <= limit <= 100:
        return error("bad_request", "limit is 1 to 100")
    try:
        return JSONResponse(await store_of(request).history(before, limit))
    except RoomError as e:
        return error(e.code, e.message, e.status)


async def room_replay(request: Request) -> Response:
    try:
        built = await store_of(request).replay(request.path_params["rid"])
    except RoomError as e:
        return error(e.code, e.message, e.status)
    if built is None:
        return error("no_room", "no such room", 404)
    return JSONResponse(built)


async def join_room(request: Request) -> Response:
    store = store_of(request)
    rid = request.path_params["rid"]
    try:
        data = await body(request)
        if not isinstance(data, dict):
            raise RoomError("bad_request", "the body must be a JSON object")
        name = clean_name(data.get("name"), request.app.state.settings.name_max)
        seat = data.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise RoomError("bad_seat", "seat must be an integer")
    except RoomError as e:
        if await exists(store, rid) is False:  # an unknown room is 404 before a bad body
            return error("no_room", "no such room", 404)
        return error(e.code, e.message, e.status)
    got = await seated(request, store, rid, lambda: store.join(rid, name, seat))
    if isinstance(got, Response):
        return got
    (index, token), _ = got
    return JSONResponse({"seat": index, "token": token})


async def seated(request: Request, store: Store, rid: str,
                 take: Callable[[], Awaitable[Any]]) -> tuple[Any, Reservation] | Response:
    """Take a seat under the address's quota: counted first (a refusal is counted in the metrics), and
    given back when the store refuses the seat; the store's answer with the quota's reservation."""
    quota: SeatQuota = request.app.state.seat_quota
    ip = request.client.host if request.client else ""
    try:
        held = await quota.reserve(ip, rid, store)
    except RoomError as e:
        request.app.state.metrics.refused.labels("seats" if e.code == "too_many_seats" else "joins").inc()
        return error(e.code, e.message, e.status)
    try:
        return await take(), held
    except RoomError as e:
        await quota.cancel(held)
        return error(e.code, e.message, e.status)
    except BaseException:
        await asyncio.shield(quota.cancel(held))
        raise


async def play_again(request: Request) -> Response:
    """A seated player of a finished room asks for the next game: the first ask makes the room (same
    game, seats, options and bots) with every player in their own seat under the token they hold."""
    store = store_of(request)
    try:
        data = await body(request)
        if not isinstance(data, dict):
            raise RoomError("bad_request", "the body must be a JSON object")
    except RoomError as e:
        return error(e.code, e.message, e.status)
    # a seat in a room not yet known: a join like any other
    got = await seated(request, store, "", lambda: store.again(request.path_params["rid"], data.get("token")))
    if isinstance(got, Response):
        return got
    answer, held = got
    await request.app.state.seat_quota.assign(held, str(answer["room"]))
    return JSONResponse(answer)
