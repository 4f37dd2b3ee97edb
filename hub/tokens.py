"""Seat tokens: the only credential of a seat, so they are random, hashed at rest and never logged."""
from __future__ import annotations

import hashlib
import hmac
import secrets

TOKEN_BYTES = 24  # 192 random bits


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def matches(token: str, stored_hash: str) -> bool:
    """Constant-time comparison of a presented token with a stored hash."""
    return hmac.compare_digest(hash_token(token), stored_hash)


def new_room_id() -> str:
    """96 random bits: room ids of private rooms must not be guessable either."""
    return secrets.token_urlsafe(12)
