"""The container as shipped: the Dockerfile's command, run as the image would run it, keeps its games.

No container engine runs here, so the test does what the image does with the Dockerfile's own words:
the files it copies into a root-owned application folder (read-only to the hub), the volume it
makes and gives to its unprivileged user, its environment, its user, its command and its health
check, each read from the Dockerfile. The hub's port is a free one instead of the image's (a
container has a network of its own), and `python` is this machine's own interpreter with the
packages the tests run with (what the image's `pip install` puts in its site-packages).
"""
from __future__ import annotations

import asyncio
import json
import os
import pwd
import shlex
import shutil
import site
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, free_port, need, stop_process
from tests.hub.test_tls import make_cert
from tests.hub.wsclient import Client, http, join, new_room

SYSTEM_PYTHON = Path("/usr/bin/python3")


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (instruction, arguments), continuation lines joined."""
    out: list[tuple[str, str]] = []
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


class Image:
    """What the Dockerfile says the image is."""

    def __init__(self) -> None:
        self.copies: list[str] = []
        self.env: dict[str, str] = {}
        self.runs: list[str] = []
        self.user = self.workdir = ""
        self.volumes: list[str] = []
        self.cmd: list[str] = []
        self.health: list[str] = []
        for word, rest in instructions():
            if word == "COPY":
                self.copies.append(shlex.split(rest)[0])
            elif word == "ENV":
                self.env.update(dict(part.split("=", 1) for part in shlex.split(rest)))
            elif word == "RUN":
                self.runs.append(rest)
            elif word == "USER":
                self.user = rest
            elif word == "WORKDIR":
                self.workdir = rest
            elif word == "VOLUME":
                self.volumes += json.loads(rest) if rest.startswith("[") else rest.split()
            elif word == "CMD":
                self.cmd = json.loads(rest)
            elif word == "HEALTHCHECK":
                self.health = json.loads(rest[rest.index("CMD") + 3:].strip())


class Container:
    """The image's command on this machine: its user, its folders, its environment."""

    def __init__(self, image: Image, app: Path, volume: Path, port: int, extra: dict[str, str]) -> None:
        self.image, self.app, self.volume = image, app, volume
        self.port = port
        env = {k: v.replace(image.volumes[0], str(volume)) for k, v in image.env.items()}
        env.update({"HUB_HOST": "127.0.0.1", "HUB_PORT": str(port), "PATH": "/usr/bin:/bin", "HOME": "/nonexistent",
                    "PYTHONPATH": site.getsitepackages()[0]})
        env.update(extra)
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = volume.parent / f"hub-{port}.log"

    def as_user(self, argv: list[str]) -> list[str]:
        user = pwd.getpwnam(self.image.user)
        cmd = [str(SYSTEM_PYTHON) if argv[0] == "python" else argv[0], *argv[1:]]
        return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--", *cmd]

    def start(self) -> Container:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(self.as_user(self.image.cmd), cwd=self.app, env=self.env,
                                         stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"the image's command exited: {self.log.read_text()[-3000:]}"
            if self.healthy():
                return self
            time.sleep(0.2)
        raise AssertionError(f"the image's command never became healthy: {self.log.read_text()[-3000:]}")

    def healthy(self) -> bool:
        """The image's own HEALTHCHECK, run as the image runs it."""
        out = subprocess.run(self.as_user(self.image.health), cwd=self.app, env=self.env, capture_output=True,
                             timeout=30)
        return out.returncode == 0

    def stop(self) -> None:
        """As `docker stop`: SIGTERM, then SIGKILL after ten seconds."""
        stop_process(self.proc)


def build(image: Image, root: Path) -> tuple[Path, Path]:
    """The image's folders: what it copies, owned by root; the volume, owned by its user."""
    app = root / "app"
    app.mkdir()
    for src in image.copies:
        path = ROOT / src
        if path.is_dir():
            shutil.copytree(path, app / src, symlinks=False,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, app / src)
    volume = root / "data"
    volume.mkdir()
    user = pwd.getpwnam(image.user)
    os.chown(volume, user.pw_uid, user.pw_gid)
    for folder in (root, app):
        folder.chmod(0o755)
    return app, volume


@pytest.fixture
def image() -> Image:
    return Image()


def test_the_dockerfile_says_what_the_image_needs(image: Image) -> None:
    assert image.user and image.user != "root", "the hub runs as an unprivileged user"
    assert image.volumes, "the games live on a volume"
    volume = image.volumes[0]
    assert any(f"chown {image.user}" in run and volume in run for run in image.runs), \
        "the volume is given to the image's user"
    assert image.env.get("HUB_DB", "").startswith(volume + "/"), "the database is on the volume"
    assert image.health[:3] == ["python", "-m", "hub"], image.health
    assert image.cmd == ["python", "-m", "hub", "serve"]


async def test_the_image_keeps_its_games_across_a_restart(image: Image) -> None:
    need(os.geteuid() == 0 and shutil.which("setpriv") is not None, "running as another user needs root and setpriv")
    need(SYSTEM_PYTHON.exists(), f"{SYSTEM_PYTHON} (an interpreter every user may run) is missing")
    # a folder of its own in /tmp: pytest's own are its user's alone, and the image's user must reach this one
    root = Path(tempfile.mkdtemp(prefix="hub-image-"))
    try:
        await play_restart_and_find(image, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def play_restart_and_find(image: Image, root: Path) -> None:
    app, volume = build(image, root)
    port = free_port()
    box = Container(image, app, volume, port, {})
    probe = subprocess.run(box.as_user([str(SYSTEM_PYTHON), "-c", "import uvicorn, hub"]), cwd=app, env=box.env,
                           capture_output=True, timeout=30)
    need(probe.returncode == 0, f"the image's user cannot run the hub here: {probe.stderr.decode()[-500:]}")
    # the application folder is the image's: its user can write nothing there
    assert subprocess.run(box.as_user(["test", "-w", str(app)]), timeout=10).returncode != 0
    assert not box.healthy()  # nothing serves yet: the health check can fail

    base = f"http://127.0.0.1:{port}"
    box.start()
    try:
        room = new_room(base, "symbiose", 2, bots=[1])
        seat, token = join(base, room, "Ann", 0)
        c = await Client(base, room, token).open()
        moves = 0
        for _ in range(200):
            if moves >= 3 or (isinstance(c.view, dict) and c.view.get("result") is not None):
                break
            if c.legal:
                answer = await c.act(c.legal[0])
                moves += answer["t"] == "ack"
            else:
                await asyncio.sleep(0.05)
        assert moves >= 1
        seq = c.seq
        await c.close()
    finally:
        box.stop()
    assert list(volume.iterdir()), "the database is on the volume"
    assert all(p.stat().st_uid == pwd.getpwnam(image.user).pw_uid for p in volume.iterdir())

    # again, with TLS from certificates mounted read-only (root's, readable by the image's user)
    certs = root / "certs"
    certs.mkdir()
    cert, key = make_cert(certs, "first")
    certs.chmod(0o755)
    cert.chmod(0o644)
    key.chmod(0o640)
    os.chown(key, 0, pwd.getpwnam(image.user).pw_gid)
    box = Container(image, app, volume, port, {"HUB_TLS_CERT": str(cert), "HUB_TLS_KEY": str(key)})
    base = f"https://127.0.0.1:{port}"
    box.start()  # healthy by the image's own check, now over https
    try:
        status, info = http(base, "GET", f"/api/rooms/{room}")
        assert status == 200, info
        back = await Client(base, room, token).open()
        assert back.seat == seat and back.seq is not None and seq is not None and back.seq >= seq
        await back.close()
    finally:
        box.stop()
