"""https and wss from the hub's own process, with a certificate renewed on disk taken without a restart.

A page served over https may open only `wss://`. Terminating TLS in a proxy in front would hide the
client's TCP connection from this process's kernel, and with it the kernel bound of every contest
(docs/arbitration.md); terminating it here keeps the bound as it is on plain http. The certificate's
files are looked at every `--tls-check-s` and at once on SIGHUP: a change is loaded into the context
the listening socket already uses, so new connections get the new certificate and open ones keep
theirs. A file caught half written (a certificate beside the old key) is refused by a trial load
first, and the previous certificate serves on.

The redirect port (`--redirect-port`, 80) answers plain http with a permanent redirect to https and
serves an ACME client's HTTP-01 challenges from `--acme-webroot`, so one process holds both ports
and certbot's `--webroot` renews without stopping anything. Requests there are parsed by h11 (the
HTTP/1.1 library uvicorn's own protocol uses), one request a connection, within a deadline.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import ssl
from pathlib import Path

import h11

from hub.logs import log
from hub.metrics import Metrics

logger = logging.getLogger("hub.edge.tls")

#: An ACME HTTP-01 token: base64url characters only (RFC 8555, 8.3), so never a path out of the folder.
TOKEN = re.compile(r"[A-Za-z0-9_-]{1,256}")
CHALLENGES = "/.well-known/acme-challenge/"
REDIRECT_DEADLINE_S = 10.0
MAX_HEAD = 8 * 1024

REASONS = {200: b"OK", 308: b"Permanent Redirect", 400: b"Bad Request", 404: b"Not Found"}

Stamp = tuple[tuple[int, int, int], ...]


def context(cert: str, key: str) -> ssl.SSLContext:
    """A server context with the standard library's defaults for servers (TLS 1.2 and later, no
    compression), HTTP/1.1 the one protocol offered (WebSockets upgrade from it)."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


class Certificates:
    """The listening socket's context, and the files it was loaded from."""

    def __init__(self, cert: str, key: str, metrics: Metrics) -> None:
        self.cert, self.key = cert, key
        self.metrics = metrics
        self.context = context(cert, key)  # unusable files stop the hub at start, with the reason
        self.stamp = self._stamp()

    def _stamp(self) -> Stamp:
        """What changes when a file is renewed: an ACME client writes new files and moves links
        (certbot's live/ points into archive/), so the followed file's inode, size and time."""
        out = []
        for path in (self.cert, self.key):
            try:
                st = os.stat(path)
                out.append((st.st_ino, st.st_size, st.st_mtime_ns))
            except OSError:
                out.append((0, 0, 0))
        return tuple(out)

    def check(self) -> bool:
        """Take the files again if they changed; True if a new certificate now serves."""
        stamp = self._stamp()
        if stamp == self.stamp:
            return False
        self.stamp = stamp  # a failed load is not retried until the files change again
        try:
            context(self.cert, self.key)  # a trial: the live context is touched only with good files
            self.context.load_cert_chain(self.cert, self.key)
        except (OSError, ssl.SSLError, ValueError) as e:
            self.metrics.tls_reloads.labels("failed").inc()
            log(logger, logging.WARNING, "certificate not taken; the previous one serves on",
                cert=self.cert, error=str(e))
            return False
        self.metrics.tls_reloads.labels("ok").inc()
        log(logger, logging.INFO, "certificate taken", cert=self.cert)
        return True

    async def watch(self, every_s: float) -> None:
        while True:
            await asyncio.sleep(every_s)
            self.check()


class Redirect:
    """Plain http on the redirect port: ACME challenges from the webroot, everything else to https."""

    def __init__(self, https_port: int, webroot: str) -> None:
        self.https_port = https_port
        self.webroot = Path(webroot) if webroot else None

    def answer(self, target: str, host: str) -> tuple[int, list[tuple[str, str]], bytes]:
        path = target.split("?", 1)[0]
        if path.startswith(CHALLENGES):
            token = path[len(CHALLENGES):]
            file = self.webroot / ".well-known" / "acme-challenge" / token if self.webroot else None
            if file is not None and TOKEN.fullmatch(token) and file.is_file():
                return 200, [("content-type", "text/plain")], file.read_bytes()
            return 404, [("content-type", "text/plain")], b"no such challenge\n"
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if not name or not re.fullmatch(r"[A-Za-z0-9.\-\[\]:]+", name):
            return 400, [("content-type", "text/plain")], b"a Host header is needed\n"
        port = "" if self.https_port == 443 else f":{self.https_port}"
        return 308, [("location", f"https://{name}{port}{target if target.startswith('/') else '/'}")], b""

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        try:
            async with asyncio.timeout(REDIRECT_DEADLINE_S):
                event: object = h11.NEED_DATA
                while event is h11.NEED_DATA:
                    conn.receive_data(await reader.read(4096))
                    event = conn.next_event()
                if isinstance(event, h11.Request):
                    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in event.headers}
                    status, extra, body = self.answer(event.target.decode("latin-1"), headers.get("host", ""))
                else:
                    status, extra, body = 400, [("content-type", "text/plain")], b"bad request\n"
                writer.write(conn.send(h11.Response(status_code=status, reason=REASONS.get(status, b""), headers=[
                    *extra, ("content-length", str(len(body))), ("connection", "close")])) or b"")
                writer.write(conn.send(h11.Data(data=body)) or b"")
                writer.write(conn.send(h11.EndOfMessage()) or b"")
                await writer.drain()
        except (h11.ProtocolError, TimeoutError, OSError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def start(self, host: str, port: int, reuse_port: bool) -> asyncio.Server:
        return await asyncio.start_server(self.serve, host, port, reuse_port=reuse_port or None)
