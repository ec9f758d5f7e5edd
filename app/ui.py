"""Chainlit handlers: render what app/chat.py does; no business logic here.

Chainlit imports this module itself (`reverie run` points it here), so the runtime is the one
module-level global: opened at app start-up, closed at shutdown.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack
from pathlib import Path

import chainlit as cl
import chainlit.server
from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from chainlit.types import CommandDict, ThreadDict

from app.answer_loop import InfoRound
from app.chat import (
    UNANSWERED,
    ContextPlanned,
    Failed,
    Finished,
    Rejected,
    Token,
    TurnEvent,
    chat_turn,
    reply_to,
    unanswered_turn,
)
from app.runtime import open_runtime
from app.settings import Settings
from app.turn_view import plan_markdown, report_markdown, sources_markdown
from app.ui_common import COMMANDS, HOLDER, account_id, data_layer, mark_panel, runtime
from app.ui_documents import ingest_uploads
from app.ui_dreams import morning_summary
from app.ui_memories import import_files  # (and registers /memories and its actions)
from app.ui_reminders import reminders_command  # noqa: F401 - registers /reminders and its Cancel action

_settings = Settings()
_stack = AsyncExitStack()

WELCOME = (
    "Hi, I'm **Reverie**. Everything stays on this machine. Tell me about your life as we chat "
    "and I'll remember it: ask me later and I answer from what you said, with the sources. "
    'Correct me any time ("actually, it\'s…") and I keep the new value. Type **/memories** to see, '
    "edit or forget what I remember, attach a file to add a document, and open the **Context** "
    "step under an answer to see what I looked at."
)
"""The first-run welcome: shown while a person has no memories yet."""

_OFF_MACHINE = re.compile(r"<link\b[^>]*\bhref=\"https?://[^\"]*\"[^>]*>", re.DOTALL)
_chainlit_page = chainlit.server.get_html_template


def _offline_page(root_path: str) -> str:
    """Chainlit's page without the links it hard-codes to Google Fonts and KaTeX's CDN.

    Reverie's page needs nothing off the machine: public/theme.json sets system fonts (and empties
    Chainlit's font block) and LaTeX is off in .chainlit/config.toml. Chainlit 2.12 has no setting
    for the preconnect and KaTeX links, so its page template is filtered where it is looked up.
    """
    return _OFF_MACHINE.sub("", _chainlit_page(root_path))


chainlit.server.get_html_template = _offline_page


@cl.on_app_startup
async def _startup() -> None:
    HOLDER.runtime = await _stack.enter_async_context(open_runtime(_settings))


@cl.on_app_shutdown
async def _shutdown() -> None:
    HOLDER.runtime = None
    await _stack.aclose()


@cl.data_layer
def _data_layer() -> SQLAlchemyDataLayer:
    return data_layer(_settings.db_path, _settings.database_url)


@cl.password_auth_callback
async def _login(username: str, password: str) -> cl.User | None:
    account = await asyncio.to_thread(runtime().store.accounts.authenticate, username, password)
    if account is None:
        return None
    return cl.User(identifier=account.name, metadata={"account_id": account.id})


async def _publish_commands() -> None:
    commands: list[CommandDict] = [
        CommandDict(id=c.id, icon=c.icon, description=c.description, button=False, persistent=False, selected=False)
        for c in COMMANDS.values()
    ]
    await cl.context.emitter.set_commands(commands)


@cl.on_chat_start
async def _chat_start() -> None:
    # No per-session state: every turn reads its history from episodic memory by thread id.
    rt, user_id = runtime(), account_id()
    summary = await morning_summary(rt, user_id)
    if summary:
        await cl.Message(content=summary, author="Dream").send()
    elif not await asyncio.to_thread(rt.store.memories.list, user_id, None, "active", 1):
        await cl.Message(content=WELCOME).send()
    await _publish_commands()  # last: once the commands show, the chat has started (tests wait for it)


@cl.on_chat_resume
async def _chat_resume(thread: ThreadDict) -> None:
    # The thread's turns are already in episodic memory; the next message continues it.
    await _publish_commands()
    await _restore_actions(thread)
    pending = await asyncio.to_thread(unanswered_turn, runtime(), account_id(), thread["id"])
    if pending is not None:
        retry = cl.Action(name="retry", payload={"user_turn_id": pending}, label="Retry")
        notice = cl.Message(content=UNANSWERED, actions=[retry])
        await notice.send()
        # Chainlit replaces the browser's messages with `thread` right after this hook returns, so
        # a message sent here vanishes (Chainlit issue #2611) unless it is in `thread` too.
        thread["steps"].append(notice.to_dict())


@cl.on_message
async def _on_message(message: cl.Message) -> None:
    rt = runtime()
    files = [e for e in message.elements or [] if getattr(e, "path", None)]
    if files and message.command == "memories":  # "/memories import" with the export attached
        await import_files(rt, account_id(), [(e.name, Path(str(e.path))) for e in files])
        return
    if files:
        await ingest_uploads(rt, account_id(), files)
        if not message.content.strip():
            return
    thread_id = cl.context.session.thread_id
    if message.command and message.command in COMMANDS:
        if not await asyncio.to_thread(rt.store.turns.recent, account_id(), thread_id, 1):  # not yet a chat
            await mark_panel(thread_id, True)
        await COMMANDS[message.command].handler(rt, account_id(), thread_id, message.content)
        return
    await mark_panel(thread_id, False)
    await _render(chat_turn(rt, account_id(), thread_id, message.content))


@cl.action_callback("follow_up")
async def _on_follow_up(action: cl.Action) -> None:
    rt = runtime()
    question = str(action.payload["question"])
    user = cl.user_session.get("user")
    author = user.identifier if user is not None else "You"
    await cl.Message(content=question, author=author, type="user_message").send()
    await _render(chat_turn(rt, account_id(), cl.context.session.thread_id, question))


@cl.action_callback("retry")
async def _on_retry(action: cl.Action) -> None:
    rt = runtime()
    turn_id = int(action.payload["user_turn_id"])
    await action.remove()
    await _render(reply_to(rt, account_id(), cl.context.session.thread_id, turn_id))


async def _render(events: AsyncIterator[TurnEvent]) -> None:
    # The step is created first so that it sorts above the reply it explains.
    step = cl.Step(name="Context", type="retrieval", default_open=False)
    reply = cl.Message(content="")
    async for event in events:
        await _render_event(event, reply, step)


async def _render_event(event: TurnEvent, reply: cl.Message, step: cl.Step) -> None:
    match event:
        case Rejected(message=text):
            await cl.ErrorMessage(content=text).send()
        case ContextPlanned():
            step.output = plan_markdown(event.provision, event.notes, event.telemetry, event.request_ms)
            if event.told:  # in plain words; the agent's own lines (LIMITS_CHANGED…) stay in its context
                step.output += f"\n\n**Changed since your last message**: {event.told}"
            await step.send()
        case InfoRound():
            async with cl.Step(name=f"Looked further in memory ({event.capability})", type="tool") as info:
                info.input = str(event.args)
                info.output = ("" if event.accepted else "⚠ ") + event.result_summary
        case Token(text=text):
            await reply.stream_token(text)
        case Finished():
            await _finish(event, reply)
            if event.report:
                step.output += report_markdown(event.report)
                await step.update()
        case Failed(message=text, user_turn_id=turn_id):
            if reply.content:
                reply.content += "\n\n*(interrupted)*"
                await reply.update()
            retry = cl.Action(name="retry", payload={"user_turn_id": turn_id}, label="Retry")
            await cl.Message(content=text, actions=[retry]).send()


async def _finish(event: Finished, reply: cl.Message) -> None:
    """The authoritative answer text with its sources, follow-ups as buttons."""
    reply.content = event.reply + sources_markdown(event.sources)
    reply.content += f"\n\n*Confidence: {event.confidence}*" + (" · *forced answer*" if event.forced else "")
    if event.told:  # once, with the first reply after the change (never stored in the turn itself)
        reply.content += f"\n\n*Changed since your last message: {event.told}*"
    reply.actions = _follow_up_actions(event.follow_ups)
    reply.metadata = {"follow_ups": list(event.follow_ups)}  # kept with the step: buttons again on resume
    await reply.send()


def _follow_up_actions(questions: Sequence[str]) -> list[cl.Action]:
    return [
        cl.Action(name="follow_up", payload={"question": q}, label=q[:60], icon="message-circle") for q in questions
    ]


async def _restore_actions(thread: ThreadDict) -> None:
    """A resumed thread's follow-up buttons, as they were live: Chainlit keeps a message's text and
    metadata but not its actions. Sent before the thread is shown, they attach to their replies."""
    for step in thread["steps"]:
        meta = step.get("metadata") or {}
        meta = json.loads(meta) if isinstance(meta, str) else meta  # the SQL data layer gives it back as JSON text
        questions = meta.get("follow_ups") or []
        for action in _follow_up_actions([str(q) for q in questions]) if step.get("id") else []:
            await action.send(for_id=str(step.get("id")))
