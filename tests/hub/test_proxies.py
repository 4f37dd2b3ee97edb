"""Forwarding headers are believed from `--trusted-proxies` only (hub/edge/proxies.py): from anyone else
they change nothing and are counted; from a trusted proxy they name the client, and its
`X-Client-RTT` becomes the connection's kernel round trip (the fairness it buys is measured through
real proxies and a real delay line in test_deployments.py)."""
from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from websockets.asyncio.client import connect

from hub.edge.proxies import TrustedProxies, client_rtt_ms, networks
from hub.metrics import Metrics
from tests.conftest import ROOT, HubProcess
from tests.hub.wsclient import http, new_room


def metric(base: str, outcome: str) -> float:
    status, text = http(base, "GET", "/metrics")
    assert status == 200
    prefix = f'hub_proxy_headers_total{{outcome="{outcome}"}} '
    return sum(float(row[len(prefix):]) for row in str(text).splitlines() if row.startswith(prefix))


def join_from(base: str, room: str, seat: int, forwarded_for: str) -> int:
    status, _ = http(base, "POST", f"/api/rooms/{room}/join", {"name": f"p{seat}", "seat": seat},
                     headers={"X-Forwarded-For": forwarded_for})
    return status


def test_rtt_values_and_trust() -> None:
    assert client_rtt_ms(b"120500") == 120.5
    for bad in (b"", b"0", b"-5", b"12.5", b"abc", b"1e6", b"99999999999", b" 7 7"):
        assert client_rtt_ms(bad) is None, bad
    proxies = TrustedProxies(lambda *a: None, "127.0.0.1/32, 10.0.0.0/8,::1", Metrics())  # type: ignore[arg-type]
    assert proxies.trusts("10.3.4.5") and proxies.trusts("::ffff:127.0.0.1") and proxies.trusts("::1")
    assert not proxies.trusts("192.0.2.1") and not proxies.trusts("not-an-address")
    # the rightmost address that is not one of ours; what the client wrote to the left proves nothing
    assert proxies.client_of("6.6.6.6, 203.0.113.7, 10.1.1.1") == "203.0.113.7"
    assert proxies.client_of("10.9.9.9, 10.1.1.1") == "10.9.9.9"
    with pytest.raises(ValueError):
        networks("10.0.0.0/8,nonsense")


def test_bad_settings_stop_the_hub_at_start() -> None:
    for args in (["--trusted-proxies", "10.0.0.0/33"], ["--tls-cert", "/nonexistent.pem"],
                 ["--tls-cert", __file__, "--tls-key", "/nonexistent.pem"], ["--redirect-port", "8080"]):
        out = subprocess.run([sys.executable, "-m", "hub", "serve", "--store", "memory", "--port", "1", *args],
                             cwd=ROOT, capture_output=True, timeout=30)
        assert out.returncode == 2, (args, out.stderr)
        assert b"hub: " in out.stderr, out.stderr


def test_forwarding_headers_from_anyone_else_change_nothing_and_are_counted() -> None:
    h = HubProcess("--store", "memory", "--joins-per-ip-per-min", "2").start()
    try:
        room = new_room(h.url, "symbiose", 4)
        assert join_from(h.url, room, 0, "203.0.113.1") == 200
        assert join_from(h.url, room, 1, "203.0.113.2") == 200
        # a third address in the header is still the same sender: its limit holds
        assert join_from(h.url, room, 2, "203.0.113.3") == 429
        assert metric(h.url, "untrusted") >= 3
    finally:
        h.stop()


async def test_a_trusted_proxy_names_the_client_and_its_round_trip() -> None:
    h = HubProcess("--store", "memory", "--joins-per-ip-per-min", "2", "--trusted-proxies", "127.0.0.0/8").start()
    try:
        room = new_room(h.url, "symbiose", 4)
        assert join_from(h.url, room, 0, "203.0.113.1") == 200
        assert join_from(h.url, room, 1, "203.0.113.1") == 200
        assert join_from(h.url, room, 2, "203.0.113.1") == 429  # that client's own limit
        assert join_from(h.url, room, 2, "6.6.6.6, 203.0.113.2") == 200  # another client, by the rightmost
        ws_url = h.url.replace("http://", "ws://") + "/ws"
        for value in ("150000", "nonsense", None):
            headers = {"X-Forwarded-For": "203.0.113.9"} | ({"X-Client-RTT": value} if value else {})
            async with connect(ws_url, subprotocols=["msgpack"], additional_headers=headers,  # type: ignore[list-item]
                               open_timeout=10) as ws:
                await ws.ping()
        for outcome, count in (("rtt", 1), ("malformed", 1), ("no_rtt", 1)):
            for _ in range(50):
                if metric(h.url, outcome) >= count:
                    break
                await asyncio.sleep(0.05)
            assert metric(h.url, outcome) == count, outcome
        assert metric(h.url, "untrusted") == 0
    finally:
        h.stop()


async def test_a_trusted_proxy_without_headers_is_still_not_the_client() -> None:
    """The connection is the proxy's: its kernel must not bound the client's contests (the round
    trip would be the last hop's), so a trusted address's WebSocket with no `X-Client-RTT` is one
    without a round trip, whatever headers it lacks."""
    h = HubProcess("--store", "memory", "--trusted-proxies", "127.0.0.1").start()
    try:
        ws_url = h.url.replace("http://", "ws://") + "/ws"
        async with connect(ws_url, subprotocols=["msgpack"], open_timeout=10) as ws:  # type: ignore[list-item]
            await ws.ping()
        for _ in range(50):
            if metric(h.url, "no_rtt") >= 1:
                break
            await asyncio.sleep(0.05)
        assert metric(h.url, "no_rtt") == 1
        assert metric(h.url, "untrusted") == 0
    finally:
        h.stop()
