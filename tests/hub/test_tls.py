"""https and wss from the hub's own process (hub/edge/tls.py): a game over wss, a renewed certificate
taken for new connections without a restart (by the file check and by SIGHUP) while open ones play
on, a half-written renewal refused, and the plain-http port's redirect and ACME challenges."""
from __future__ import annotations

import asyncio
import os
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import HubProcess, free_port
from tests.hub.wsclient import Client, http, join, new_room


def make_cert(folder: Path, name: str, ip: str = "127.0.0.1") -> tuple[Path, Path]:
    """A self-signed certificate named `name` for address `ip`: its chain and its key."""
    cert, key = folder / f"{name}.crt", folder / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", f"/CN={name}",
                    "-addext", f"subjectAltName=IP:{ip}"], check=True, capture_output=True, timeout=30)
    return cert, key


def install(src: tuple[Path, Path], dst: tuple[Path, Path]) -> None:
    """Renew as certbot does: new files, then moved into place (a reader never sees half a file)."""
    for s, d in zip(src, dst, strict=True):
        tmp = d.with_suffix(".new")
        tmp.write_bytes(s.read_bytes())
        os.replace(tmp, d)


def served(port: int) -> str:
    """The subject's common name of the certificate a new connection is given."""
    pem = ssl.get_server_certificate(("127.0.0.1", port), timeout=5)
    der = ssl.PEM_cert_to_DER_cert(pem)
    for name in ("first", "second", "third"):
        if name.encode() in der:
            return name
    return "?"


def wait_for(port: int, name: str, seconds: float = 10) -> str:
    deadline = time.monotonic() + seconds
    seen = served(port)
    while seen != name and time.monotonic() < deadline:
        time.sleep(0.1)
        seen = served(port)
    return seen


def reloads(base: str, outcome: str) -> float:
    status, text = http(base, "GET", "/metrics")
    assert status == 200
    prefix = f'hub_tls_reloads_total{{outcome="{outcome}"}} '
    return sum(float(row[len(prefix):]) for row in str(text).splitlines() if row.startswith(prefix))


@pytest.fixture
def certs(tmp_path: Path) -> dict[str, tuple[Path, Path]]:
    live = (tmp_path / "live.crt", tmp_path / "live.key")
    made = {name: make_cert(tmp_path, name) for name in ("first", "second", "third")}
    install(made["first"], live)
    return {"live": live, **made}


async def test_a_game_over_wss_and_a_renewed_certificate_without_a_restart(certs: dict[str, tuple[Path, Path]]) -> None:
    cert, key = certs["live"]
    h = HubProcess("--store", "memory", "--tls-cert", str(cert), "--tls-key", str(key), "--tls-check-s", "0.2").start()
    try:
        assert h.url.startswith("https://")
        room = new_room(h.url, "symbiose", 2)
        seats = [join(h.url, room, f"p{s}", s) for s in range(2)]
        clients = [await Client(h.url, room, token).open() for _, token in seats]
        assert clients[0].ws_url.startswith("wss://") and clients[0].view is not None
        assert served(h.port) == "first"

        install(certs["second"], certs["live"])
        assert wait_for(h.port, "second") == "second"  # new connections, no restart
        # the connections opened under the first certificate play on
        for c in clients:
            if c.legal:
                answer = await c.act(c.legal[0])
                assert answer["t"] in ("ack", "error"), answer
                break
        else:
            pytest.fail("no seat had a legal action")
        assert reloads(h.url, "ok") >= 1

        # a renewal caught half written (the third's certificate beside the second's key) is refused,
        # and the second serves on
        (cert.parent / "half.crt").write_bytes(certs["third"][0].read_bytes())
        os.replace(cert.parent / "half.crt", cert)
        deadline = time.monotonic() + 10
        while reloads(h.url, "failed") < 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert reloads(h.url, "failed") >= 1
        assert served(h.port) == "second"
        install(certs["third"], certs["live"])  # the key arrives: whole again
        assert wait_for(h.port, "third") == "third"
        for c in clients:
            await c.close()
    finally:
        h.stop()


def test_sighup_takes_a_renewed_certificate_at_once(certs: dict[str, tuple[Path, Path]]) -> None:
    cert, key = certs["live"]
    h = HubProcess("--store", "memory", "--tls-cert", str(cert), "--tls-key", str(key), "--tls-check-s", "3600").start()
    try:
        assert served(h.port) == "first"
        install(certs["second"], certs["live"])
        time.sleep(0.5)
        assert served(h.port) == "first"  # not looked at for an hour
        assert h.proc is not None
        h.proc.send_signal(signal.SIGHUP)
        assert wait_for(h.port, "second", 5) == "second"
        assert h.proc.poll() is None
    finally:
        h.stop()


def test_the_plain_port_redirects_and_serves_acme_challenges(certs: dict[str, tuple[Path, Path]],
                                                             tmp_path: Path) -> None:
    cert, key = certs["live"]
    webroot = tmp_path / "acme"
    (webroot / ".well-known" / "acme-challenge").mkdir(parents=True)
    (webroot / ".well-known" / "acme-challenge" / "tok_EN-1").write_text("tok_EN-1.thumbprint")
    (tmp_path / "secret.txt").write_text("not for anyone")
    plain = free_port()
    h = HubProcess("--store", "memory", "--tls-cert", str(cert), "--tls-key", str(key),
                   "--redirect-port", str(plain), "--acme-webroot", str(webroot)).start()

    class NoFollow(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kw: object) -> None:
            return None

    opener = urllib.request.build_opener(NoFollow)

    def get(path: str) -> tuple[int, str, str]:
        try:
            with opener.open(f"http://127.0.0.1:{plain}{path}", timeout=5) as r:
                return r.status, r.headers.get("Location", ""), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Location", ""), e.read().decode()

    try:
        assert get("/r/abc?x=1") == (308, f"https://127.0.0.1:{h.port}/r/abc?x=1", "")
        assert get("/.well-known/acme-challenge/tok_EN-1") == (200, "", "tok_EN-1.thumbprint")
        assert get("/.well-known/acme-challenge/..%2F..%2Fsecret.txt")[0] == 404
        assert get("/.well-known/acme-challenge/../../secret.txt")[0] in (308, 404)
        # a silent connection is closed within the deadline, and the port serves on
        with socket.create_connection(("127.0.0.1", plain), timeout=15) as s:
            s.sendall(b"GET / HT")
            assert s.recv(100) == b""
        assert get("/")[0] == 308
    finally:
        h.stop()
