"""Safe by default: loopback only, authentication required, secrets generated and never committed.

One real `reverie run` (subprocess, fresh data dir, free loopback port) serves every check.
"""

from __future__ import annotations

import json
import stat
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from app.settings import Settings
from tests.e2e.server import free_port, running_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("srv") / "data"
    with running_server(data, free_port(), data.parent / "server.log") as url:
        yield url, data


def _status(url: str, method: str = "GET", body: dict[str, object] | None = None) -> int:
    payload = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=payload, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_server_defaults_bind_loopback() -> None:
    assert Settings(_env_file=None).host == "127.0.0.1"  # pyright: ignore[reportCallIssue]


def test_server_defaults_listens_only_on_loopback(server: tuple[str, Path]) -> None:
    url, _ = server
    port = int(url.rsplit(":", 1)[1])
    listening = [
        c.laddr
        for c in psutil.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port
    ]
    assert listening and all(addr.ip in ("127.0.0.1", "::1") for addr in listening), listening


def test_server_defaults_api_refuses_anonymous_requests(server: tuple[str, Path]) -> None:
    url, _ = server
    assert _status(f"{url}/user") in (401, 403)
    assert _status(f"{url}/project/threads", "POST", {"pagination": {"first": 20}, "filter": {}}) in (401, 403)
    assert _status(f"{url}/project/thread/00000000-0000-0000-0000-000000000000") in (401, 403, 404)
    assert _status(f"{url}/auth/header", "POST", {}) in (400, 401, 403, 404, 405, 422)  # no header auth is configured
    login = urllib.parse.urlencode({"username": "admin", "password": "wrong-password"}).encode()
    request = urllib.request.Request(f"{url}/login", data=login, method="POST")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=10)
    assert err.value.code in (401, 403)


def test_server_defaults_secrets_are_private_files(server: tuple[str, Path]) -> None:
    _, data = server
    for name in (".auth_secret", "first-run-password.txt"):
        path = data / name
        assert path.is_file(), name
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, name
    assert len((data / ".auth_secret").read_text().strip()) >= 32


def test_server_defaults_no_data_or_secret_is_committed() -> None:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert files, "not a git checkout"
    forbidden = [
        f
        for f in files
        if f.startswith("data/")
        or Path(f).name in (".auth_secret", "first-run-password.txt", ".env", "reverie.db")
        or f.endswith((".db", ".db-wal", ".kuzu"))
    ]
    assert forbidden == []
