"""The fair hand on the deployments people make: TLS in a proxy in front (nginx, HAProxy) that passes
on its kernel's round trip of the client's connection, and TLS in the hub itself. Each is served
through a real nginx, a real HAProxy (Debian's packages, their configuration the documented files
in docs/deploy/) and a real delay line below TCP (tests/hub/netdelay.py), with the campaign of
test_kernel_bound.py: honest seats at 5, 60 and 150 ms one way, and a liar that holds its pongs
300 ms and its `seen` back.

One campaign plays every deployment at once (two hubs: one on loopback behind both proxies, which
it trusts, one serving TLS on the delay line's address) and the tests read its results.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, HubProcess, free_port, need
from tests.hub.netdelay import HUB_ADDR, DelayLine, available
from tests.hub.test_kernel_bound import DELAYS_MS, Behaviour, Reach, Table, merged, off_by, run_campaign, shares
from tests.hub.test_tls import make_cert
from tests.hub.wsclient import http

pytestmark = pytest.mark.serial  # shares of wins over real delays: nothing else may take the cores

CAMPAIGN_S = float(os.environ.get("HUB_TEST_CAMPAIGN_S", "70"))  # every table plays this long
DEPLOY = ROOT / "docs" / "deploy"
LIAR = Behaviour("liar", 300.0, True)  # pongs 300 ms late, its seen held back as long as it can
HONEST = Behaviour()


def tool(name: str) -> str | None:
    """A program of Debian's packages, found where PATH lacks /usr/sbin too."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def swap(text: str, old: str, new: str) -> str:
    """One line of the documented file replaced for this machine; the file must still hold it."""
    assert old in text, f"the documented configuration no longer has {old!r}"
    return text.replace(old, new)


def wait_port(addr: str, port: int, proc: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}: {proc.stderr.read() if proc.stderr else ''!r}")
        with contextlib.suppress(OSError), socket.create_connection((addr, port), timeout=1):
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on {addr}:{port}")


def nginx(folder: Path, addr: str, tls_port: int, plain_port: int, hub_port: int,
          cert: Path, key: Path) -> subprocess.Popen[bytes]:
    """docs/deploy/nginx.conf as documented, with this machine's ports and files, in an http block."""
    site = (DEPLOY / "nginx.conf").read_text()
    site = swap(site, "listen 80;", f"listen {addr}:{plain_port};")
    site = swap(site, "listen 443 ssl;", f"listen {addr}:{tls_port} ssl;")
    site = swap(site, "server 127.0.0.1:8000;", f"server 127.0.0.1:{hub_port};")
    site = swap(site, "/etc/letsencrypt/live/play.example.org/fullchain.pem", str(cert))
    site = swap(site, "/etc/letsencrypt/live/play.example.org/privkey.pem", str(key))
    site = swap(site, "root /var/www/acme;", f"root {folder};")
    (folder / "site.conf").write_text(site)
    (folder / "nginx.conf").write_text(
        f"pid {folder}/nginx.pid;\nerror_log {folder}/error.log warn;\nworker_processes 1;\n"
        "events { worker_connections 4096; }\n"
        f"http {{\n access_log off;\n client_body_temp_path {folder}/body;\n proxy_temp_path {folder}/proxy;\n"
        f" fastcgi_temp_path {folder}/fastcgi;\n uwsgi_temp_path {folder}/uwsgi;\n scgi_temp_path {folder}/scgi;\n"
        f" include {folder}/site.conf;\n}}\n")
    proc = subprocess.Popen([tool("nginx") or "nginx", "-p", str(folder), "-c", str(folder / "nginx.conf"),
                             "-g", "daemon off;"], stderr=subprocess.PIPE)
    wait_port(addr, tls_port, proc, "nginx")
    return proc


def haproxy(folder: Path, addr: str, tls_port: int, plain_port: int, hub_port: int,
            cert: Path, key: Path) -> subprocess.Popen[bytes]:
    """docs/deploy/haproxy.cfg as documented, with this machine's ports and files."""
    pem = folder / "haproxy.pem"
    pem.write_bytes(cert.read_bytes() + key.read_bytes())
    cfg = (DEPLOY / "haproxy.cfg").read_text()
    cfg = swap(cfg, "bind :80\n", f"bind {addr}:{plain_port}\n")
    cfg = swap(cfg, "bind :443 ssl crt /etc/haproxy/certs/play.example.org.pem",
               f"bind {addr}:{tls_port} ssl crt {pem}")
    cfg = swap(cfg, "server hub1 127.0.0.1:8000", f"server hub1 127.0.0.1:{hub_port}")
    (folder / "haproxy.cfg").write_text(cfg)
    proc = subprocess.Popen([tool("haproxy") or "haproxy", "-db", "-f", str(folder / "haproxy.cfg")],
                            stderr=subprocess.PIPE)
    wait_port(addr, tls_port, proc, "haproxy")
    return proc


def counts(base: str, name: str, label: str) -> dict[str, float]:
    status, text = http(base, "GET", "/metrics")
    assert status == 200
    out: dict[str, float] = {}
    for row in str(text).splitlines():
        m = re.match(rf'{name}\{{{label}="([a-z_]+)"\}} (\S+)$', row)
        if m:
            out[m.group(1)] = out.get(m.group(1), 0.0) + float(m.group(2))
    return out


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    why = available()
    need(why is None, why or "")
    for name in ("nginx", "haproxy", "openssl"):
        need(tool(name) is not None, f"{name} is not installed (.ci/run installs it)")
    folder = tmp_path_factory.mktemp("deploy")
    cert, key = make_cert(folder, "hub", HUB_ADDR)
    line = DelayLine(DELAYS_MS)
    try:
        line.open()
    except Exception as e:  # noqa: BLE001
        need(False, f"the delay line cannot be made here: {e!r}")
    flags = ("--frames-per-s", "200", "--frame-burst", "400", "--rooms-per-ip-per-min", "2000")
    behind = HubProcess(*flags, "--trusted-proxies", "127.0.0.1")
    direct = HubProcess(*flags, "--tls-cert", str(cert), "--tls-key", str(key), host=line.hub_addr)
    procs: list[subprocess.Popen[bytes]] = []
    addr = line.hub_addr
    try:
        behind.launch()
        direct.launch()
        behind.wait_ready()
        direct.wait_ready()
        ng_port, hp_port = free_port(), free_port()
        (folder / "nginx").mkdir()
        procs.append(nginx(folder / "nginx", addr, ng_port, free_port(), behind.port, cert, key))
        procs.append(haproxy(folder, addr, hp_port, free_port(), behind.port, cert, key))
        ns = tuple(line.namespaces)
        through = {"nginx": Reach(ns, addr, f"https://{addr}:{ng_port}"),
                   "haproxy": Reach(ns, addr, f"https://{addr}:{hp_port}"),
                   "tls": Reach(ns, addr)}
        lobby = {"nginx": behind.url, "haproxy": behind.url, "tls": direct.url}
        plan = {"nginx": (6, 3), "haproxy": (2, 2), "tls": (2, 3)}  # honest tables, liar tables
        tables: list[tuple[str, Table]] = []
        for where, (honest, liars) in plan.items():
            tables += [(where, Table(f"{where}-honest{i}", [(0, HONEST), (1, HONEST), (2, HONEST)]))
                       for i in range(honest)]
            tables += [(where, Table(f"{where}-liar{i}", [(0, HONEST), (1, LIAR), (2, HONEST)]))
                       for i in range(liars)]
        # interleaved, so that every worker process drives some of each deployment
        played = run_campaign([(lobby[w], through[w], t) for w, t in tables], CAMPAIGN_S)
        metrics = {name: {"tries": counts(h.url, "hub_contest_tries_total", "bound"),
                          "headers": counts(h.url, "hub_proxy_headers_total", "outcome")}
                   for name, h in (("behind", behind), ("direct", direct))}
        print(metrics)
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    p.wait(10)
        behind.stop()
        direct.stop()
        line.close()
    return {"tables": {t.name: t for t in played}, "metrics": metrics}


def test_honest_seats_through_nginx_win_their_fair_share(campaign: dict[str, Any]) -> None:
    results = merged(campaign["tables"], "nginx-honest")
    assert len(results) >= 300, f"only {len(results)} contests"
    for seat, delay in enumerate(DELAYS_MS):
        n, share, fair, ideal = shares(results, seat, {0, 1, 2} - {seat})
        judged = [ev["judged"][str(seat)] for ev in results if str(seat) in ev["judged"]]
        print(f"through nginx, honest seat at {delay:.0f} ms one way: {n} contests, won {share:.1%} "
              f"(on its hands {ideal:.1%}, equal share {fair:.1%}), median judged {statistics.median(judged)} ms")
        assert n >= 300
        assert abs(share - ideal) <= 0.05, f"seat at {delay} ms off fair by {share - ideal:+.1%}"


@pytest.mark.parametrize(("where", "least"), [("nginx", 100), ("haproxy", 50), ("tls", 100)])
def test_a_liar_gains_nothing_worth_having(campaign: dict[str, Any], where: str, least: int) -> None:
    results = merged(campaign["tables"], f"{where}-liar")
    n, share, fair, ideal = shares(results, 1, {0, 2})
    tries = [ev for ev in results if "1" in ev["judged"]]
    marked = sum(1 for ev in tries if 1 in ev["bounded"])
    gain = statistics.mean(off_by(results, 0) + off_by(results, 2)) - statistics.mean(off_by(results, 1))
    print(f"{where}: liar holding pongs 300 ms and its seen: {n} shared contests, won {share:.1%} (on its hands "
          f"{ideal:.1%}, equal share {fair:.1%}), held to the bound {marked}/{len(tries)}, gain {gain:+.1f} ms")
    assert n >= least, f"only {n} shared contests"
    assert share <= ideal + 0.05
    assert marked >= 0.9 * len(tries), "the liar's tries are held to the measured bound"


def test_every_try_was_judged_with_a_measured_bound(campaign: dict[str, Any]) -> None:
    behind, direct = campaign["metrics"]["behind"], campaign["metrics"]["direct"]
    assert behind["tries"].get("kernel", 0) > 0 and direct["tries"].get("kernel", 0) > 0
    assert behind["tries"].get("none", 0) == 0, behind
    assert direct["tries"].get("none", 0) == 0, direct
    # every seat's WebSocket through a proxy came with the proxy's measurement, and none was refused
    assert behind["headers"].get("rtt", 0) > 0
    assert behind["headers"].get("malformed", 0) == 0 and behind["headers"].get("no_rtt", 0) == 0
    assert behind["headers"].get("untrusted", 0) == 0 and direct["headers"].get("untrusted", 0) == 0
