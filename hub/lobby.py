"""The lobby's HTTP API (PROTOCOL.md section 1): games, rooms, seats and their tokens."""
from __future__ import annotations

import json
import unicodedata
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hub.broker import Broker
from hub.room import RoomError

MAX_BODY = 16 * 1024
NAME_MAX = 24


def error(code: str, message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def clean_name(raw: Any) -> str:
    """Names are short and printable: no control or formatting characters, no lookalike tricks."""
    if not isinstance(raw, str):
        raise RoomError("bad_name", "name must be a string")
    name = unicodedata.normalize("NFC", raw).strip()
    if not 1 <= len(name) <= NAME_MAX:
        raise RoomError("bad_name", f"name must have 1 to {NAME_MAX} characters")
    if any(unicodedata.category(ch)[0] in ("C", "Z") and ch != " " for ch in name):
        raise RoomError("bad_name", "name may not contain control, formatting or separator characters")
    return name


async def body(request: Request) -> Any:
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise RoomError("too_large", "request body too large", 413)
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise RoomError("bad_json", "the body is not JSON") from None


def broker_of(request: Request) -> Broker:
    broker: Broker = request.app.state.broker
    return broker


async def list_games(request: Request) -> Response:
    return JSONResponse(broker_of(request).games())


async def create_room(request: Request) -> Response:
    try:
        data = await body(request)
        if not isinstance(data, dict):
            raise RoomError("bad_request", "the body must be a JSON object")
        ip = request.client.host if request.client else ""
        made = await broker_of(request).create(data.get("game"), data.get("seats"), data.get("options"),
                                               data.get("bots"), ip)
    except RoomError as e:
        return error(e.code, e.message, e.status)
    return JSONResponse(made, status_code=201)


async def list_rooms(request: Request) -> Response:
    try:
        return JSONResponse(await broker_of(request).listing())
    except RoomError as e:
        return error(e.code, e.message, e.status)


async def room_info(request: Request) -> Response:
    try:
        info = await broker_of(request).info(request.path_params["rid"])
    except RoomError as e:
        return error(e.code, e.message, e.status)
    if info is None:
        return error("no_room", "no such room", 404)
    return JSONResponse(info)


async def exists(broker: Broker, rid: str) -> bool | None:
    """Whether the room exists; None when the backend cannot say."""
    try:
        return await broker.info(rid) is not None
    except RoomError:
        return None


async def room_replay(request: Request) -> Response:
    try:
        built = await broker_of(request).replay(request.path_params["rid"])
    except RoomError as e:
        return error(e.code, e.message, e.status)
    if built is None:
        return error("no_room", "no such room", 404)
    return JSONResponse(built)


async def join_room(request: Request) -> Response:
    broker = broker_of(request)
    rid = request.path_params["rid"]
    try:
        data = await body(request)
        if not isinstance(data, dict):
            raise RoomError("bad_request", "the body must be a JSON object")
        name = clean_name(data.get("name"))
        seat = data.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise RoomError("bad_seat", "seat must be an integer")
    except RoomError as e:
        if await exists(broker, rid) is False:  # an unknown room is 404 before a bad body
            return error("no_room", "no such room", 404)
        return error(e.code, e.message, e.status)
    try:
        index, token = await broker.join(rid, name, seat)
    except RoomError as e:
        return error(e.code, e.message, e.status)
    return JSONResponse({"seat": index, "token": token})
