"""Frames from the wire: msgpack (binary, the default) or JSON (text, for debugging).

What the hub sends is encoded by the tables once per audience (hub/tables/frames.py); this module
decodes what each client sends, which must never take a connection down.
"""
from __future__ import annotations

import json
from typing import Any

import msgpack

from hub.tables.frames import CODECS, Codec, encode

__all__ = ["CODECS", "BadFrame", "Codec", "decode", "encode"]


class BadFrame(Exception):
    """The bytes could not be decoded into a map with a string `t`."""


def decode(data: bytes | str, codec: Codec) -> Any:
    """Decode one client frame; anything malformed is a BadFrame, never another exception."""
    try:
        if isinstance(data, bytes):
            if codec != "msgpack":
                raise BadFrame("binary frame on a json connection")
            return msgpack.unpackb(data, raw=False, strict_map_key=False)
        if codec != "json":
            raise BadFrame("text frame on a msgpack connection")
        return json.loads(data)
    except BadFrame:
        raise
    except (ValueError, TypeError, RecursionError, msgpack.ExtraData, msgpack.FormatError,
            msgpack.StackError, OverflowError, UnicodeDecodeError) as e:
        raise BadFrame(f"undecodable frame: {type(e).__name__}") from None
    except Exception as e:  # noqa: BLE001 - a decoder must never take the connection down
        raise BadFrame(f"undecodable frame: {type(e).__name__}") from None
