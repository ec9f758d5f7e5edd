"""One recall path (issue 14): the chat, SEARCH_MEMORIES and the LoCoMo server rank alike, and dates count."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime

import pytest
from sqlalchemy import Engine, text

from bench.locomo_server import USER, Server, request
from capabilities.answer import NeedsMoreInfo
from capabilities.context import TwoLevelContext
from capabilities.info import InfoStores, fulfil
from capabilities.request_policy import kind_of, plan_request, room_for_more
from capabilities.resources import Limits, clamp
from memory.assembly import ContextRequest
from memory.recall.embedder import Embedder
from memory.recall.vectors import MemoryIndex, NewMemory

SESSIONS = {
    1: ("1:56 pm on 8 May, 2023", [
        ("Ann", "I painted a sunset over the lake."),
        ("Bob", "Lovely! I went hiking with my dog."),
        ("Ann", "My sister visited and we baked bread together."),
    ]),
    2: ("3:10 pm on 20 June, 2023", [
        ("Bob", "I painted my kitchen a bright yellow."),
        ("Ann", "I ran my first half marathon yesterday!"),
        ("Bob", "Congratulations, that is a big deal."),
    ]),
}  # fmt: skip


def _turns() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for session, (when, said) in SESSIONS.items():
        day = datetime.strptime(when, "%I:%M %p on %d %B, %Y").strftime("%Y-%m-%d")
        for i, (speaker, words) in enumerate(said, 1):
            out.append({"dia_id": f"D{session}:{i}", "session": session, "index": i, "date_time": when,
                        "date": day, "speaker": speaker, "text": words, "caption": None})  # fmt: skip
    return out


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    srv = Server()
    srv.reset()
    srv.pending = _turns()
    srv.flush()
    yield srv
    assert srv.store is not None
    srv.store.close()
    srv.tmp.cleanup()


@pytest.mark.parametrize(
    "question",
    ["What did Ann paint over the lake?", "Who baked bread with her sister?", "Did Bob go hiking with his dog?"],
)
def test_one_recall_chat_and_benchmark_server_rank_alike(server: Server, question: str) -> None:
    assert server.store is not None
    ranked = server.query(question, None, 25)  # the benchmark's ranked list
    answered = server.query(question, 1024, None)  # the benchmark's answer: what the chat would pack
    # The chat: its policy's request for the question on the same store, assembled as app/chat.py does.
    limits = Limits.from_values()
    wanted = plan_request(question, [], limits)
    fields = clamp(wanted, limits).fields()
    more = room_for_more(kind_of(wanted.reason), fields["vector_limit"], limits)  # the room, as the chat asks
    asked = ContextRequest(**fields, budget_tokens=1024, more_memories=more)
    assert asked == request(question, 1024)
    chat = server.store.assembler.assemble(USER, "a-thread", question, asked, now=server.now)
    by_id = {m: t["dia_id"] for m, t in server.turns.items()}
    loaded = [by_id[int(i.ref[1:])] for i in chat.loaded]
    around = [by_id[m] for i in chat.loaded for m in i.around]  # the turns shown beside them, after them
    assert loaded and loaded + around == answered
    assert loaded == [d for d in ranked if d in loaded]  # in the ranked order
    # SEARCH_MEMORIES: the same ranking, above its own floor.
    found = fulfil(
        NeedsMoreInfo(capability="SEARCH_MEMORIES", args={"query": question}),
        InfoStores(server.store.entities, server.store.memories),
        USER,
        TwoLevelContext(),
    )
    searched = [by_id[n.id] for n in found.delta.memories if n.id in by_id]
    assert searched and searched == [d for d in ranked if d in searched]
    assert searched[0] == ranked[0]


def test_one_recall_the_speaker_prior_yields_when_the_content_is_someone_elses(server: Server) -> None:
    # Ann ran the half marathon and baked with her sister; a question that pins either on Bob (as
    # LoCoMo's adversarial questions do) gets Ann's turn first, not Bob's own turns lifted above it.
    assert server.query("What did Bob run yesterday?", None, 25)[0] == "D2:2"
    assert server.query("Who did Bob bake bread with?", None, 25)[0] == "D1:3"
    # When the named speaker's turns carry the content, the prior still decides.
    assert server.query("What did Bob paint?", None, 25)[0] == "D2:1"
    assert server.query("Did Bob go hiking with his dog?", None, 25)[0] == "D1:2"


def test_one_recall_dated_question_finds_the_right_session(server: Server) -> None:
    # Both sessions hold painting; the question's date picks the first one's.
    assert server.query("What did Ann paint on 8 May 2023?", None, 25)[0] == "D1:1"
    assert server.query("What did Bob paint in June 2023?", None, 25)[0] == "D2:1"


def test_one_recall_relative_dates_are_resolved_when_written(server: Server) -> None:
    assert server.store is not None
    with server.store.engine.connect() as conn:
        rows = conn.execute(text("SELECT json_extract(meta, '$.dia'), json_extract(meta, '$.dates') FROM memories"))
        dates = {dia: json.loads(d) for dia, d in rows if d}
    assert dates == {"D2:2": ["2023-06-19/2023-06-19"]}  # "yesterday", said on 20 June
    # "What happened on 19 June?" finds it though no turn was said that day.
    assert server.query("What did Ann do on June 19, 2023?", None, 25)[0] == "D2:2"


def test_one_recall_a_relative_question_is_read_against_its_day(engine: Engine, embedder: Embedder) -> None:
    index = MemoryIndex(engine, embedder)
    old, new = index.add_many(
        1,
        [
            NewMemory(
                "turn", "We had dinner at the harbour.", datetime(2024, 3, 4, tzinfo=UTC), "a", meta={"role": "user"}
            ),
            NewMemory(
                "turn", "We had dinner at the harbour.", datetime(2024, 5, 6, tzinfo=UTC), "b", meta={"role": "user"}
            ),
        ],
    )
    asked = index.search(1, "Where did I have dinner last March?", 2, 0.0, today=date(2024, 5, 10))
    assert [h.memory.id for h in asked] == [old.id, new.id]
