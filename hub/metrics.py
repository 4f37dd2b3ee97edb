"""Prometheus figures of one hub process, on a registry of its own so tests can run several apps."""
from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest


class Metrics:
    def __init__(self) -> None:
        r = self.registry = CollectorRegistry()
        self.rooms = Gauge("hub_rooms", "Rooms held by this process, by status", ["status"], registry=r)
        self.connections = Gauge("hub_connections", "Open WebSocket connections", ["role"], registry=r)
        self.frames_in = Counter("hub_frames_in_total", "Frames received", registry=r)
        self.frames_out = Counter("hub_frames_out_total", "Frames sent", registry=r)
        self.bytes_in = Counter("hub_bytes_in_total", "Bytes received in frames", registry=r)
        self.bytes_out = Counter("hub_bytes_out_total", "Bytes sent in frames", registry=r)
        self.actions = Counter("hub_actions_total", "Actions applied", ["game", "by"], registry=r)
        self.errors = Counter("hub_errors_total", "Error frames sent", ["code"], registry=r)
        self.chat_lines = Counter("hub_chat_lines_total", "Chat lines said at tables", registry=r)
        self.closes = Counter("hub_closes_total", "Connections closed by the hub", ["code"], registry=r)
        self.refused = Counter(
            "hub_refused_total", "Connections and requests refused at the door, by reason: address, full "
            "(over a connection limit), slow (no request head in time), origin, media_type, joins, seats",
            ["reason"], registry=r)
        self.deltas = Counter("hub_deltas_total", "Deltas produced (once per audience)", registry=r)
        self.delta_bytes = Counter("hub_delta_bytes_total", "Bytes of deltas, msgpack, once per audience",
                                   registry=r)
        self.apply_seconds = Histogram(
            "hub_apply_seconds", "Time to apply an action and produce every audience's delta",
            buckets=(0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0), registry=r)
        self.contests = Counter("hub_contests_total", "Timed contests settled", ["outcome"], registry=r)
        self.contest_tries = Counter(
            "hub_contest_tries_total", "Grabs judged, by whether a kernel bound held their network allowance "
            "(kernel: this process's kernel or a trusted proxy's measured the client's own TCP connection) or "
            "not (none: an untrusted proxy's loopback, a trusted proxy that sent no X-Client-RTT, or off)",
            ["bound"], registry=r)
        self.proxy_headers = Counter(
            "hub_proxy_headers_total", "Requests and WebSockets with forwarding headers, by what became of them: "
            "rtt (a trusted proxy's X-Client-RTT taken as the connection's kernel round trip), no_rtt (a trusted "
            "proxy's WebSocket without one: judged unbounded), untrusted (from an address not in "
            "--trusted-proxies: ignored), malformed (ignored)", ["outcome"], registry=r)
        self.tls_reloads = Counter("hub_tls_reloads_total", "Certificate files taken again after a change "
                                   "(ok) or refused as unusable (failed: the previous one serves on)",
                                   ["outcome"], registry=r)
        self.false_starts = Counter("hub_false_starts_total", "Grabs under the human floor", registry=r)
        self.broker_up = Gauge("hub_broker_up", "1 while the store (Redis) answers", registry=r)
        self.broker_up.set(1)
        self.broker_errors = Counter("hub_broker_errors_total", "Redis calls that failed (down or timed out)",
                                     registry=r)
        self.redis_up = Gauge("hub_redis_up", "1 while Redis answers and takes writes (0 while it is "
                              "unreachable or refuses them: out of memory, a failed save, loading)", registry=r)
        self.redis_up.set(1)  # as hub_broker_up: the Redis store sets it to 0 until Redis serves
        self.redis_outages = Counter("hub_redis_outages_total", "Redis outages seen by this process (unreachable "
                                     "or refusing writes), each counted once however long it lasts", registry=r)
        self.relayed = Gauge("hub_relayed_rooms", "Rooms whose deltas this process relays to its connections",
                             registry=r)
        self.log_appends = Counter("hub_log_appends_total", "Entries this process appended to room logs",
                                   registry=r)
        self.commit_seconds = Histogram(
            "hub_commit_seconds", "From a change to its log entry being in Redis (owner side)",
            buckets=(0.0002, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1,
                     0.3, 1.0, 3.0), registry=r)
        self.forwarded = Counter("hub_forwarded_total", "Commands sent to a room's owner on another process",
                                 ["kind"], registry=r)
        self.pending = Gauge("hub_pending_actions", "Forwarded actions not yet answered by the owner", registry=r)
        self.db_errors = Counter("hub_db_errors_total", "SQLite commits that failed (retried until they pass)",
                                 registry=r)
        self.db_commit_seconds = Histogram("hub_db_commit_seconds", "One SQLite transaction of the writer",
                                           buckets=(.0001, .00025, .0005, .001, .002, .004, .008, .016, .032,
                                                    .064, .128, .256, 1.0), registry=r)
        self.db_batch_steps = Histogram("hub_db_batch_steps", "Changes committed together in one transaction",
                                        buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 1024), registry=r)
        self.snapshots_refused = Counter("hub_snapshots_refused_total",
                                         "Snapshots that could not be read; the room was rebuilt from its log",
                                         registry=r)
        self.takeovers = Counter("hub_takeovers_total", "Rooms this process took over (lease claimed, rebuilt)",
                                 registry=r)
        self.leases_lost = Counter("hub_leases_lost_total", "Rooms this process stopped owning unasked",
                                   registry=r)
        self.gap_heals = Counter("hub_gap_heals_total", "Times a relay re-read the log for entries it missed",
                                 registry=r)
        self.gc_pauses = Histogram(
            "hub_gc_pause_seconds", "Collector walks the hub runs on its clock (hub/run/gcpolicy.py): of what is "
            "new since the last walk, or of the whole heap", ["kind"],
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.3, 1.0), registry=r)

        self.frames_direct = Counter("hub_frames_direct_total", "Frames written at once, not through the "
                                     "connection's writer task (hub/edge/direct.py)", registry=r)
        self.frames_behind = Counter("hub_frames_direct_behind_total", "Of the frames written at once, those "
                                     "that met a transport still holding bytes, sent together with them by the "
                                     "event loop (hub/edge/direct.py)", registry=r)

        self._frames_out = 0
        self._bytes_out = 0
        self.direct = 0
        self.behind = 0

    def sent(self, nbytes: int) -> None:
        """Count one frame out. Plain integers, added to the counters when read: a counter takes a
        lock per call, and frames out are counted once per connection per frame."""
        self._frames_out += 1
        self._bytes_out += nbytes

    def flush(self) -> None:
        if self.direct:
            self.frames_direct.inc(self.direct)
            self.direct = 0
        if self.behind:
            self.frames_behind.inc(self.behind)
            self.behind = 0
        if self._frames_out:
            self.frames_out.inc(self._frames_out)
            self.bytes_out.inc(self._bytes_out)
            self._frames_out = self._bytes_out = 0

    def render(self) -> bytes:
        self.flush()
        return generate_latest(self.registry)
