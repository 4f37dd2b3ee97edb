"""hub/edge/tcpinfo.py: the kernel's round trip of a TCP socket, read at Linux's `struct tcp_info` offsets."""
from __future__ import annotations

import socket
import struct
import sys

import pytest

from hub.edge import tcpinfo
from hub.tables.arbitration import KernelRtt


def test_parse_reads_rtt_rttvar_and_min_rtt_at_their_offsets() -> None:
    raw = bytearray(tcpinfo.BUFFER)
    struct.pack_into("=II", raw, 68, 120_500, 3_250)
    struct.pack_into("=I", raw, 148, 118_000)
    assert tcpinfo.parse(bytes(raw)) == KernelRtt(120.5, 3.25, 118.0)
    assert tcpinfo.parse(bytes(raw[:151])) is None  # too short to hold tcpi_min_rtt (an old kernel)
    struct.pack_into("=I", raw, 148, 0xFFFFFFFF)
    assert tcpinfo.parse(bytes(raw)) is None  # no sample yet
    assert tcpinfo.read(None) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="TCP_INFO's layout is Linux's")
def test_a_real_connection_has_a_measured_round_trip() -> None:
    with socket.create_server(("127.0.0.1", 0)) as srv:
        client = socket.create_connection(srv.getsockname())
        server, _ = srv.accept()
        with client, server:
            for _ in range(5):
                server.sendall(b"x")
                client.recv(1)
                client.sendall(b"y")
                server.recv(1)
            k = tcpinfo.read(server)
            assert k is not None
            assert 0 < k.min_rtt_ms < 50 and 0 < k.rtt_ms < 50  # loopback: well under a millisecond
