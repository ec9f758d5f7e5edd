"""The answer on the policy path: policies judge, the small model only words the reply.

The same events as the model-driven loop (`app.answer_loop`): any `InfoRound`s, the reply as an
`AnswerDelta`, then one `Answered`. What differs is who decides:

- whether to ask for more: when no recalled note answers a question about the person, one
  SEARCH_MEMORIES round searches again with the question's words and their generic synonyms at
  the lowest allowed threshold; when the best note names someone and leaves part of the question
  open ("my sister's dog": "My sister Ana…"), a second round searches for that name (two hops);
- which evidence answers, and how sure to be: `capabilities.evidence.choose`;
- what is said: a grounded question gets the chosen notes and the question in a two-line prompt;
  nothing relevant remembered → "I don't know" without asking the model; chit-chat and general
  questions get a short plain prompt. Every model reply passes `app.voice`'s guards, else the
  notes themselves answer.

The model's reply is buffered and checked before anything is shown, so a loop or a copied
prompt never reaches the person; a grounded reply is one short sentence, so little is lost.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import date

from pydantic_ai.messages import ModelMessage

from app.answer_loop import AnswerDelta, Answered, InfoRound, LoopStores
from app.llm import Backend
from app.voice import (
    CHAT_MAX_TOKENS,
    CHAT_SYSTEM,
    GROUNDED_MAX_TOKENS,
    GROUNDED_SYSTEM,
    clean,
    extractive,
    grounded_prompt,
    grounded_reply,
    say,
    second_person,
    system_text,
)
from capabilities.answer import MAX_CONTENT_CHARS, Answer, Source
from capabilities.context import ContextDelta, MemoryNote, TwoLevelContext
from capabilities.evidence import Evidence, Note, choose, covers, is_question
from capabilities.situation import Situation, is_first_person, names_in, related_words, stem, words
from memory.models import QueryRow
from memory.recall import MemoryHit

log = logging.getLogger(__name__)
# An info round ranks by relevance down to this floor: it is not the SIMILARITY_THRESHOLD request
# (whose range stays 0.5-0.9); the evidence policy, not the score, decides what answers. "What does
# my partner do?" scores 0.43 against "My partner Tom works as a nurse".
INFO_FLOOR = 0.3
GROUNDED_KINDS = frozenset({"personal", "relational", "document", "broad_recall"})
BROAD_MAX_NOTES = 6
FALLBACK = {"ack": "You're welcome!"}
ACK_MAX_CHARS = 160
# Sentence ends, but not after an initial or a title ("Dr. Brandt", "Ursula K. Le Guin", "St. Georg").
_SENTENCES = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)\s+")
DEFAULT_FALLBACK = "I'm not sure what to say to that — could you tell me more?"


@dataclass(frozen=True)
class Search:
    """How the policy may search again: the most memories per round and how many rounds."""

    limit: int
    max_rounds: int


@dataclass
class _Found:
    """The notes known so far, by ref, and the rounds spent."""

    notes: dict[str, Note] = field(default_factory=dict)
    rounds: int = 0

    def add(self, hits: Sequence[MemoryHit]) -> list[str]:
        new = []
        for h in hits:
            ref = f"m{h.memory.id}"
            if ref not in self.notes:
                self.notes[ref] = Note(ref, h.memory.content, h.memory.created_at, h.relevance)
                new.append(ref)
        return new


def widened_query(sit: Situation, question: str) -> str:
    """The question's words and their generic synonyms, for a second, wider search."""
    said = set(words(question))
    extra = [w for t in sit.key_terms for w in sorted(related_words(t)) if w not in said]
    return " ".join([question.strip(), *extra])[:200]


async def answer_grounded(
    backend: Backend,
    stores: LoopStores,
    user_id: int,
    query: QueryRow,
    context: TwoLevelContext,
    hits: Sequence[MemoryHit],
    sit: Situation,
    question: str,
    history: Sequence[ModelMessage],
    search: Search,
    today: date,
) -> AsyncIterator[InfoRound | AnswerDelta | Answered]:
    """Answer on the policy path (events as in `app.answer_loop.answer_question`).

    Raises:
        Model and connection errors, after marking the query failed.
    """
    qid = query.id or 0
    stores.queries.start(user_id, qid)
    try:
        found = _Found()
        found.add(hits)
        if sit.kind in GROUNDED_KINDS:
            async for event in _more(stores, user_id, qid, context, sit, question, search, found):
                yield event
            answer = await _grounded(backend, sit, question, found, history, today)
        else:
            answer = await _chat(backend, sit, question, history, today)
        for piece in re.findall(r"\S+\s*", answer.content):  # checked already: now it may stream
            yield AnswerDelta(piece)
        stores.queries.complete(user_id, qid, answer.confidence, False)
        yield Answered(answer, found.rounds, False, context.stats())
    except BaseException as exc:
        stores.queries.fail(user_id, qid, f"{type(exc).__name__}: {exc}")
        raise


async def _more(
    stores: LoopStores,
    user_id: int,
    qid: int,
    context: TwoLevelContext,
    sit: Situation,
    question: str,
    search: Search,
    found: _Found,
) -> AsyncIterator[InfoRound]:
    """The policy's info rounds: a wider search when nothing answers, a hop through a name."""
    tried: set[str] = set()
    while found.rounds < search.max_rounds:
        evidence = choose(sit, list(found.notes.values()))
        ask = _next_search(sit, question, evidence, list(found.notes.values()), tried)
        if ask is None:
            return
        text, why = ask
        tried.add(text)
        found.rounds += 1
        stores.queries.count_info_request(user_id, qid)
        new = found.add(stores.memories.search(user_id, text, search.limit, INFO_FLOOR))
        context.merge(ContextDelta(memories=[MemoryNote(int(r[1:]), found.notes[r].text) for r in new]))
        summary = f"{len(new)} new note(s)" if new else "nothing new"
        args = {"query": text, "min_relevance": INFO_FLOOR, "limit": search.limit}
        yield InfoRound("SEARCH_MEMORIES", args, summary, found.rounds, True, why, tuple(new))


def _next_search(
    sit: Situation, question: str, evidence: Evidence, notes: Sequence[Note], tried: set[str]
) -> tuple[str, str] | None:
    """The policy's next search, or None when the evidence is enough or nothing else can help."""
    if sit.kind == "broad_recall" or (evidence.verdict == "answer" and not evidence.missing):
        return None
    wide = widened_query(sit, question)
    if evidence.verdict == "unknown" and wide not in tried:
        return wide, "no recalled note answered: searching wider"
    # Two hops: a note that covers part of the question and names someone ("Ana adopted a dog"
    # for "my sister's dog") is joined to what is remembered about that name.
    terms = [*sit.heads, *sit.key_terms]
    for note in sorted(notes, key=lambda n: -sum(covers(n.stems, t) for t in terms)):
        missing = [t for t in terms if not covers(note.stems, t)]
        names = [n for n in names_in(note.text) if n not in sit.names]
        if missing and names and len(missing) < len(terms):
            wanted = [w for w in words(sit.text) if stem(w) in missing]
            hop = f"{names[0]} {' '.join(dict.fromkeys(wanted))}"[:200]
            if hop not in tried:
                return hop, f"the answer may go through {names[0]}: a second hop"
    return None


async def _grounded(
    backend: Backend, sit: Situation, question: str, found: _Found, history: Sequence[ModelMessage], today: date
) -> Answer:
    notes = list(found.notes.values())
    if sit.kind == "broad_recall":
        return _broad(notes)
    evidence = choose(sit, notes)
    if evidence.verdict == "unknown" and not sit.about_me and sit.kind != "document":
        return await _chat(backend, sit, question, history, today)  # "the capital of France?": not a memory
    if evidence.verdict == "unknown":
        return Answer(content=_dont_know(sit), confidence="low")
    raw, _, _ = await say(
        backend, system_text(GROUNDED_SYSTEM, today), grounded_prompt(evidence.notes, question), GROUNDED_MAX_TOKENS
    )
    text, problem = grounded_reply(raw, evidence.notes, question)
    confidence = evidence.confidence
    if problem:  # the notes speak for themselves; the model's words were not usable
        log.info("grounded reply replaced by the notes (%s): %r", problem, raw[:200])
        text = extractive(evidence.notes)
        confidence = "medium" if confidence == "high" else confidence
    return Answer(
        content=_fit(text),
        confidence=confidence,
        sources=[Source(ref=n.ref, contribution="says so", relevance=round(n.relevance, 2)) for n in evidence.notes],
        follow_ups=_follow_ups(evidence.notes, sit),
    )


def _broad(notes: Sequence[Note]) -> Answer:
    """A broad recall: what the person said about themselves, most relevant first."""
    mine = [n for n in sorted(notes, key=lambda n: -n.relevance) if is_first_person(n.text) and not is_question(n.text)]
    if not mine:
        return Answer(content="I don't know yet — you haven't told me much about that.", confidence="low")
    picked = mine[:BROAD_MAX_NOTES]
    lines = "\n".join(f"- {second_person(n.text.strip())}" for n in picked)
    return Answer(
        content=_fit("Here is what you've told me:\n" + lines),
        confidence="medium",
        sources=[Source(ref=n.ref, contribution="says so", relevance=round(n.relevance, 2)) for n in picked],
    )


def _dont_know(sit: Situation) -> str:
    if sit.heads:
        return f"I don't know — you haven't told me about your {' '.join(sit.head_words())} yet."
    return "I don't know — I don't remember you telling me that."


def _follow_ups(notes: Sequence[Note], sit: Situation) -> list[str]:
    names = [n for note in notes for n in names_in(note.text) if n not in sit.names]
    return [f"What else do you know about {name}?" for name in dict.fromkeys(names)][:2]


async def _chat(
    backend: Backend, sit: Situation, message: str, history: Sequence[ModelMessage], today: date
) -> Answer:
    """Chit-chat, a statement or a general question.

    A statement is acknowledged with what was heard, in the second person: the 135M model,
    asked to react, wrote "I'm glad to have you as a guest in my blog." to "I'm Maya and I live
    in Lisbon". Only a continuation sees the thread's history (with it, the model answered a
    "thanks" as if continuing an older turn); the model's words pass `clean`.
    """
    if sit.kind == "statement":
        return Answer(content=_fit(acknowledgement(message)), confidence="high")
    recent = history if sit.kind in ("continuation", "summary") else ()
    raw, _, _ = await say(backend, system_text(CHAT_SYSTEM, today), message, CHAT_MAX_TOKENS, recent)
    text, problem = clean(raw, message)
    if problem:
        text = FALLBACK.get(sit.kind, DEFAULT_FALLBACK)
    # A 135M model's general knowledge is unchecked: low. Chat and acknowledgements: medium.
    return Answer(content=_fit(text), confidence="low" if sit.kind == "general" else "medium")


def acknowledgement(message: str) -> str:
    """"Got it" and the first thing the person said about themselves, addressed to them."""
    sentences = [t.strip() for t in _SENTENCES.split(message.strip()) if t.strip()]
    own = next((t for t in sentences if is_first_person(t)), sentences[0] if sentences else "")
    if not own or len(own) > ACK_MAX_CHARS:
        return "Got it — I'll remember that."
    said = second_person(own.rstrip(".!")).removeprefix("Actually, ").removeprefix("Actually ")
    if said.split(" ", 1)[0] in ("You", "Your", "You're", "You've", "You'd", "You'll"):
        said = said[:1].lower() + said[1:]
    return f"Got it — {said}. I'll remember that."


def _fit(text: str) -> str:
    return text if len(text) <= MAX_CONTENT_CHARS else text[: MAX_CONTENT_CHARS - 1] + "…"
