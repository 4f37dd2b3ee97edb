"""Every tunable of the hub in one place: each has a flag, an environment variable and a sane default."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class Settings:
    host: str = field(default="127.0.0.1", metadata={"help": "address to bind"})
    port: int = field(default=8000, metadata={"help": "port to bind"})
    store: str = field(default="sqlite", metadata={
        "help": "where rooms live: sqlite (a database file, nothing lost across a restart) or memory "
                "(nothing kept; for tests); --redis chooses Redis"})
    db: str = field(default="data/hub.sqlite3", metadata={"help": "the SQLite store's database file"})
    db_sync: str = field(default="normal", metadata={
        "help": "normal: every commit survives the process's crash; full: an fsync per commit, so it "
                "survives the machine's too"})
    retention_days: float = field(default=90.0, metadata={"help": "finished games kept in the database this long"})
    redis: str = field(default="", metadata={"help": "Redis URL: many processes share rooms; empty = --store",
                                             "env": "HUB_REDIS_URL"})
    redis_prefix: str = field(default="hub", metadata={"help": "first part of every Redis key and channel"})
    lease_ms: int = field(default=3000, metadata={"help": "a room's owner lease in Redis; renewed every third"})
    snapshot_every: int = field(default=64, metadata={"help": "log entries between a room's snapshots"})
    debug_hooks: bool = field(default=False, metadata={"help": "test-only routes under /debug (never in production)"})
    log_level: str = field(default="info", metadata={"help": "debug, info, warning, error"})
    bot_delay_ms: int = field(default=900, metadata={"help": "default pause before a bot moves (room option)"})
    bot_think_ms: int = field(default=300, metadata={
        "help": "a strong bot's thinking budget per decision, cut to what its seat's clock leaves"})
    finished_ttl_s: int = field(default=900, metadata={"help": "how long finished rooms stay readable"})
    waiting_ttl_s: int = field(default=3600, metadata={"help": "how long a room may wait for players"})
    max_frame_bytes: int = field(default=64 * 1024, metadata={"help": "larger frames are closed with 1009"})
    send_queue: int = field(default=256, metadata={"help": "frames a connection may have queued"})
    sndbuf_kib: int = field(default=256, metadata={
        "help": "kernel send buffer of each WebSocket (KiB): bounds what a reader that stopped reading holds "
                "before its send queue fills; 0 = the kernel's own tuning (up to megabytes each)"})
    frames_per_s: float = field(default=30.0, metadata={"help": "sustained frames per second per connection"})
    frame_burst: int = field(default=60, metadata={"help": "burst of frames above the sustained rate"})
    hello_timeout_s: float = field(default=10.0, metadata={"help": "time to send hello after connecting"})
    ping_interval_s: float = field(default=5.0, metadata={"help": "server pings for round trips"})
    idle_timeout_s: float = field(default=60.0, metadata={"help": "close connections silent this long"})
    delta_history: int = field(default=256, metadata={"help": "deltas kept per audience for resume"})
    max_rooms: int = field(default=20000, metadata={"help": "rooms one process holds at most"})
    rooms_per_ip_per_min: int = field(default=60, metadata={"help": "room creations per address per minute"})
    joins_per_ip_per_min: int = field(default=60, metadata={
        "help": "seats joined per address per minute (429 rate_limited past it); 0 = no limit"})
    seats_per_ip: int = field(default=32, metadata={
        "help": "seats one address holds at once in rooms not finished (429 too_many_seats); 0 = no limit"})
    allowed_origins: str = field(default="", metadata={
        "help": "comma-separated origins (scheme://host:port) whose pages may POST to /api and open /ws "
                "besides the hub's own (an Origin whose host:port is the request's Host); * = any"})
    conns_per_ip: int = field(default=-1, metadata={
        "help": "open WebSockets per address; -1 = derived from the open-file limit (at most 4000), 0 = no limit"})
    max_conns: int = field(default=-1, metadata={
        "help": "open connections of this process (HTTP and WebSocket); -1 = the open-file limit less a "
                "reserve, 0 = no limit"})
    http_conns_per_ip: int = field(default=64, metadata={
        "help": "open HTTP connections (not WebSockets) per address; 0 = no limit"})
    pending_ws_per_ip: int = field(default=32, metadata={
        "help": "WebSockets per address that have not said hello yet; 0 = no limit"})
    http_timeout_s: float = field(default=10.0, metadata={
        "help": "a connection must send a request's whole head this soon after it opens or after its "
                "last answer, or it is closed"})
    name_max: int = field(default=24, metadata={"help": "longest player name, in characters after NFC"})
    max_body_bytes: int = field(default=16 * 1024, metadata={"help": "larger lobby request bodies get 413"})
    chat_history: int = field(default=100, metadata={
        "help": "chat lines a room keeps: shown to whoever comes, reloads or watches, and in its replay"})
    chat_max_chars: int = field(default=280, metadata={"help": "longest chat line, in characters after NFC"})
    chat_per_min: float = field(default=20.0, metadata={"help": "sustained chat lines per minute per connection"})
    chat_burst: int = field(default=5, metadata={"help": "chat lines a connection may say at once"})
    grab_window_ms: int = field(default=1500, metadata={"help": "default longest grab contest (room option)"})
    grace_s: float = field(default=20.0, metadata={"help": "a dropped seat waits this long before a bot plays it"})
    abandon_s: float = field(default=180.0, metadata={
        "help": "a playing room whose humans have all been away this long ends as abandoned, scored as it "
                "stands (its bots wait meanwhile, however many watch); a waiting room "
                "whose people have all gone expires after it"})
    verify_deltas: bool = field(default=False, metadata={"help": "check every diff by applying it (testing)"})
    kernel_bound: bool = field(default=True, metadata={
        "help": "bound a contest's network allowance by the kernel's TCP round trip of the client's "
                "connection, where the hub holds it (not behind a proxy: docs/arbitration.md)"})
    trusted_proxies: str = field(default="", metadata={
        "help": "comma-separated addresses or CIDRs of proxies in front (nginx, HAProxy): only from these is "
                "a forwarding header believed (X-Forwarded-For, X-Forwarded-Proto) and the client's round trip "
                "taken from X-Client-RTT (microseconds, the proxy kernel's); empty = no one"})
    tls_cert: str = field(default="", metadata={
        "help": "certificate chain (PEM) to serve https and wss from this process; a renewed file is taken "
                "for new connections without a restart"})
    tls_key: str = field(default="", metadata={"help": "the certificate's private key (PEM)"})
    tls_check_s: float = field(default=60.0, metadata={
        "help": "how often the certificate's files are looked at for a renewal (SIGHUP looks at once)"})
    redirect_port: int = field(default=0, metadata={
        "help": "with TLS, also answer plain http on this port (80) with a redirect to https, and the "
                "ACME client's challenges from --acme-webroot; 0 = none"})
    acme_webroot: str = field(default="", metadata={
        "help": "folder whose .well-known/acme-challenge/ files the redirect port serves (certbot --webroot)"})
    ws: str = field(default="websockets-sansio", metadata={"help": "uvicorn WebSocket implementation"})
    direct_send: bool = field(default=True, metadata={
        "help": "write a frame at once when its connection has nothing queued (websockets-sansio only)"})
    loop: str = field(default="auto", metadata={"help": "uvicorn event loop: auto, asyncio, uvloop"})
    gc_full_every_s: float = field(default=3600.0, metadata={
        "help": "walk what is new every 50 ms and freeze it; walk everything once this often (s); 0 = Python's way"})
    instance: str = field(default="", metadata={"help": "name of this process in logs and Redis"})
    workers: int = field(default=1, metadata={
        "help": "processes serving one port (each its own event loop and core); more than one needs --redis"})
    reuse_port: bool = field(default=False, metadata={
        "help": "bind with SO_REUSEPORT so that several processes share the port (set for each of --workers)"})

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: Any) -> Settings:
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(env_name(f.name, f.metadata))
            if raw is not None:
                values[f.name] = parse(f.type, raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def env_name(name: str, metadata: Any) -> str:
    """HUB_<NAME>, unless the setting names its own variable (HUB_REDIS_URL for --redis)."""
    return str(metadata.get("env") or f"HUB_{name.upper()}")


def parse(kind: Any, raw: str) -> Any:
    kind = kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))
    if kind == "int":
        return int(raw)
    if kind == "float":
        return float(raw)
    if kind == "bool":
        return raw.strip().lower() in ("1", "true", "yes", "on")
    return raw
