"""`reverie chat`: the browser's turn in a terminal, for a person and for benchmarks.

One message per stdin line (a prompt when stdin is a terminal); `/new` starts a fresh thread,
`/reminders` lists the pending reminders (`reverie reminders cancel ID` cancels one), `/quit`
ends. With `--json` each reply is one JSON object on stdout: thread, reply, sources, confidence,
the request (asked / provided per dimension), info rounds, timings, which path judged and `told`
(what changed in the limits or the request policy since the last message, in plain words). Every
turn is exactly `app.chat.chat_turn`, the browser's.

Before exiting, the memory formation of this session's turns is finished, so the next process
(or the browser) recalls them. It runs beside `reverie run`: the two take the knowledge graph in
turns (memory/graph/kuzu_graph.py), and the browser sees what this command stores and the other way round.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any, TextIO

from app.chat import ContextPlanned, Failed, Finished, InfoRound, Rejected, chat_turn
from app.extractor import drain_formation, formation_worker
from app.proactive import reminder_line
from app.runtime import Runtime, open_runtime
from app.settings import Settings
from memory.models import utcnow


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add `reverie chat`."""
    chat = sub.add_parser("chat", help="chat in the terminal (one message per line; /new starts a thread)")
    chat.add_argument("--user", help="whose memory (default: the only user)")
    chat.add_argument("--thread", default="new", help="'new' (default) or the id of a thread to continue")
    chat.add_argument("--json", action="store_true", help="one JSON object per reply on stdout")
    chat.set_defaults(func=cmd_chat)


def cmd_chat(settings: Settings, args: argparse.Namespace) -> int:
    """Run the chat until stdin ends."""
    try:
        return asyncio.run(_chat(settings, args))
    except KeyboardInterrupt:
        return 130


async def _chat(settings: Settings, args: argparse.Namespace) -> int:
    async with open_runtime(settings, schedule=False) as rt:
        try:
            user_id = rt.store.accounts.resolve(args.user)
        except LookupError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        interactive = sys.stdin.isatty() and not args.json
        if interactive:
            print(f"Reverie ({rt.backend.model_name}, {rt.path} path). /new starts a thread, Ctrl-D ends.")
        # Formation runs beside the chat, as in the app, so a fact told earlier in this session
        # is recalled later in it; what is still queued at the end is finished before exiting.
        worker = asyncio.create_task(formation_worker(rt, poll_s=0.5))
        try:
            await _talk(rt, user_id, args, interactive)
        finally:
            worker.cancel()
            await asyncio.gather(worker, return_exceptions=True)
        await drain_formation(rt)
    return 0


async def _talk(rt: Runtime, user_id: int, args: argparse.Namespace, interactive: bool) -> None:
    thread = _new_thread() if args.thread == "new" else args.thread
    async for line in _lines(sys.stdin, interactive):
        text = line.rstrip("\n")
        if text.strip() == "/quit":
            break
        if text.strip() == "/new":
            thread = _new_thread()
            continue
        if text.strip() == "/reminders":  # what the reply to "remind me …" says to type
            _reminders(rt, user_id, sys.stdout)
            continue
        await _turn(rt, user_id, thread, text, args.json, sys.stdout)


def _reminders(rt: Runtime, user_id: int, out: TextIO) -> None:
    """The person's pending reminders, as `reverie reminders list` prints them."""
    rows, now = rt.reminders.pending(user_id), utcnow()
    for row in rows:
        print(reminder_line(row, now, rt.settings.zone), file=out)
    print("cancel one with `reverie reminders cancel ID`" if rows else "no pending reminders", file=out, flush=True)


def _new_thread() -> str:
    return str(uuid.uuid4())


async def _lines(stream: TextIO, interactive: bool) -> AsyncIterator[str]:
    """Lines of stdin, read off the event loop so formation goes on while the person types."""
    while True:
        if interactive:
            print("> ", end="", flush=True)
        line = await asyncio.to_thread(stream.readline)
        if not line:
            return
        yield line


async def _turn(rt: Runtime, user_id: int, thread: str, text: str, as_json: bool, out: TextIO) -> None:
    started = time.perf_counter()
    planned: ContextPlanned | None = None
    rounds: list[dict[str, Any]] = []
    result: dict[str, Any] = {"thread": thread, "path": rt.path}
    async for event in chat_turn(rt, user_id, thread, text):
        if isinstance(event, ContextPlanned):
            planned = event
        elif isinstance(event, InfoRound):
            rounds.append({"capability": event.capability, "args": event.args, "result": event.result_summary})
        elif isinstance(event, Finished):
            result.update(_finished(event))
        elif isinstance(event, Rejected | Failed):
            result.update(reply="", error=event.message)
    if planned is not None:
        result["request"] = _request(planned)
    result["rounds"] = rounds
    result.setdefault("timings_ms", {"total": round((time.perf_counter() - started) * 1000, 1)})
    if as_json:
        print(json.dumps(result, ensure_ascii=False), file=out, flush=True)
        return
    if "error" in result:
        print(f"! {result['error']}", file=out, flush=True)
        return
    refs = ", ".join(s["ref"] for s in result["sources"]) or "none"
    seconds = result["timings_ms"]["total"] / 1000
    print(f"{result['reply']}\n  [confidence {result['confidence']} · sources {refs} · {seconds:.1f} s]", file=out)
    if result.get("told"):
        print(f"  (changed since your last message: {result['told']})", file=out)


def _finished(event: Finished) -> dict[str, Any]:
    return {
        "reply": event.reply,
        "confidence": event.confidence,
        "sources": [{"ref": s.ref, "text": s.text, "relevance": s.relevance} for s in event.sources],
        "follow_ups": list(event.follow_ups),
        "timings_ms": {k: round(v, 1) for k, v in event.timings_ms.items()},
        "told": event.told,
    }


def _request(planned: ContextPlanned) -> dict[str, Any]:
    out: dict[str, Any] = {"reason": planned.provision.request.reason}
    for grant in planned.provision.grants:
        out[grant.dimension.name] = {
            "asked": grant.requested,
            "provided": grant.provided,
            "status": grant.status.value,
        }
    return out
