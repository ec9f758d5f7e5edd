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
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

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
    said_tokens,
    say,
    second_person,
    system_text,
    told_when,
    without_opener,
)
from capabilities.answer import MAX_CONTENT_CHARS, Answer, Source
from capabilities.arithmetic import time_since, worked_out
from capabilities.change import change
from capabilities.context import ContextDelta, MemoryNote, TwoLevelContext
from capabilities.evidence import (
    HER_KIN,
    HIS_KIN,
    KIND,
    NAMING_STEMS,
    ROLE_STEMS,
    WHO_IS_NAMED,
    AnswerType,
    Ask,
    Evidence,
    Note,
    aliases,
    asks_a_name,
    asks_by_age,
    by_age,
    candidates,
    cased,
    cased_question,
    choose,
    corrects,
    covers,
    denied,
    described,
    is_calendar,
    is_question,
    kin_hops,
    kin_words,
    people_in,
    rank,
    read_ask,
    roles,
    superseded,
    who_assumed,
)
from capabilities.namesakes import Ambiguity, ambiguities
from capabilities.namesakes import reply as namesake_reply
from capabilities.situation import (
    DESCRIBERS,
    SOCIAL,
    STOP,
    Situation,
    introduced,
    is_first_person,
    is_request,
    names_in,
    read,
    related_stems,
    related_words,
    stem,
    word_set,
    words,
)
from memory.formation.patterns import sentences, without_filler
from memory.formation.plan import is_junk
from memory.graph.entities import Namesake
from memory.models import MemoryRow, QueryRow
from memory.recall.dates import next_day
from memory.recall.hybrid import MemoryHit

log = logging.getLogger(__name__)
# An info round ranks by relevance down to this floor: it is not the SIMILARITY_THRESHOLD request
# (whose range stays 0.5-0.9); the evidence policy, not the score, decides what answers. "What does
# my partner do?" scores 0.43 against "My partner Tom works as a nurse".
INFO_FLOOR = 0.3
QUESTION_TOP = 3  # the question's own best notes the first info round takes whatever their relevance
GROUNDED_KINDS = frozenset({"personal", "relational", "document", "broad_recall"})
_MAY_BE_KNOWN = frozenset({"general", "continuation"})  # grounded when memory knows what they ask about
BROAD_NEWEST = 30  # a broad recall also reads the person's newest messages, whatever it searched
ACK_MAX_CHARS = 160
LONG_NOTE_CHARS = 240  # longer memories (document chunks) are weighed sentence by sentence
SHORT_TURN_CHARS = 80  # a turn this short is often said on in the next one, which it brings along
HOP_NOTES = 3  # how many of the best-covering notes may lend a name to hop through
# How notes say an attribute without naming it: "called Miso", "works as a chef", "five years old".
_ATTRIBUTE_WORDS = {
    stem("name"): ("called", "name"),
    stem("work"): ("works", "job", "position", "promoted"),
    stem("old"): ("years", "old"),
}
DEFAULT_FALLBACK = "I'm not sure what to say to that — could you tell me more?"
GENERAL_FALLBACK = "I don't know that one — I can only answer reliably from what you've told me."


@dataclass(frozen=True)
class Search:
    """How the policy may search again: the most memories per round and how many rounds."""

    limit: int
    max_rounds: int


@dataclass
class _Found:
    """The notes known so far (long ones split into sentences) and the rounds spent.

    A turn that leans on the one before it ("We got her from a rescue in May 2021" after
    "Biscuit's our beagle") brings that turn along, linked (`Note.after`), and a turn brings the
    next one when that one leans on it: people tell their life in consecutive messages, and "her"
    is only Biscuit in the thread.
    """

    previous_turn: Callable[[MemoryRow], MemoryRow | None] = lambda _: None
    next_turn: Callable[[MemoryRow], MemoryRow | None] = lambda _: None
    title_of: Callable[[int], str] = lambda _: ""  # a document id → its title
    notes: list[Note] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # ref → the memory's whole text
    titles: dict[int, str] = field(default_factory=dict)  # document id → its title, read once
    rounds: int = 0

    def add(self, hits: Sequence[MemoryHit]) -> list[str]:
        new = []
        for h in hits:
            ref = f"m{h.memory.id}"
            if ref in self.texts:
                continue
            self._with_before(h.memory, h.relevance)
            following = self.next_turn(h.memory) if h.memory.kind == "turn" else None
            goes_on = following is not None and (
                _EARLY_PRONOUN.match(following.content) is not None or len(h.memory.content) <= SHORT_TURN_CHARS
                or _GOES_ON_FROM.match(following.content) is not None  # "Before that I was five years in…"
            )  # "Big news since we last talked: I've left the ambulance." then "…I'm now an instructor at NSCC."
            if following is not None and goes_on and f"m{following.id}" not in self.texts:
                self._keep(f"m{following.id}", following, h.relevance, ref)  # "We got her…" after "Biscuit's…"
            new.append(ref)
        return new

    def _with_before(self, memory: MemoryRow, relevance: float, depth: int = 2) -> str:
        """Keep a turn, and the turn it leans on (which may lean on its own: "My brother Gareth lives
        ten minutes from her" brings "She turns 70 on 2 January", which brings "…my mum Glenys…")."""
        ref = f"m{memory.id}"
        if ref in self.texts:
            return ref
        leans = depth > 0 and memory.kind == "turn" and _LEANS.search(memory.content) is not None
        previous = self.previous_turn(memory) if leans else None
        after = self._with_before(previous, relevance, depth - 1) if previous is not None else ""
        self._keep(ref, memory, relevance, after)  # `after`: the turn it leans on
        return ref

    def _keep(self, ref: str, memory: MemoryRow, relevance: float, after: str) -> None:
        self.texts[ref] = memory.content
        title = self._title(memory.document_id) if memory.kind == "chunk" and memory.document_id else ""
        for part in _parts(memory.content):
            self.notes.append(Note(ref, part, memory.created_at, relevance, memory.kind, after, title))

    def _title(self, document_id: int) -> str:
        if document_id not in self.titles:
            self.titles[document_id] = self.title_of(document_id)
        return self.titles[document_id]


# A message that leans on the one before it: a pronoun, or "before that" / "also" opening it.
_GOES_ON_FROM = re.compile(r"^\W*(?:also|and|but|so|then|before that|after that)\b", re.IGNORECASE)
_LEANS = re.compile(r"\b(?:he|she|him|his|her|hers|they|them|their|it|its|there)\b|" + _GOES_ON_FROM.pattern,
                    re.IGNORECASE)  # fmt: skip


# A next message that goes on about this one: a pronoun among its first words ("We got her from…",
# "teacher's Ines, she's…" after "I started pottery").
_EARLY_PRONOUN = re.compile(
    r"^\W*(?:[\w']+[,;:]?\s+){0,3}?(?:he|she|him|his|her|they|them|their|it|its|we|us|our)\b", re.IGNORECASE
)  # ("we've been going since 2018" after "I play bass in a band": the band)


def _parts(text: str) -> list[str]:
    """A long memory (a document chunk) as its sentences, so the evidence is the sentence that
    answers and the model reads two lines, not a page ("founded by Gisela Marr", not the byline)."""
    if len(text) <= LONG_NOTE_CHARS:
        return [text]
    parts: list[str] = []
    heading = ""
    for paragraph in (" ".join(p.split()) for p in re.split(r"\n\s*\n", text)):
        if paragraph.startswith("#"):  # a heading is a paragraph too, and a section's says what its sentences are
            # not the title ("# …"): everything is under it
            heading = paragraph.lstrip("# ").strip() if paragraph.startswith("##") else ""
            parts.append(paragraph.lstrip("# ").strip())
            continue
        said = [part for part in sentences(paragraph) if len(part) > 3]
        parts += [f"{heading}: {part}" if heading else part for part in said]  # "Date of surgery: Monday 10 March"
    return parts


# How a person wraps a question, which only dilutes the search: "What did I tell you about my sister?"
_WRAPPER = re.compile(
    r"^\W*(?:(?:hey|so|ok|okay|and)\W+)?(?:(?:can|could|would) you\s+)?(?:please\s+)?"
    r"(?:remind me(?: of| about)?|tell me(?: about)?|do you (?:remember|know|recall)(?: about)?|"
    r"what (?:did|have) i (?:tell|told|say|said) (?:to )?you about|what do you know about)\W+",
    re.IGNORECASE,
)


def _core(question: str) -> str:
    """The question without its conversational wrapper ("remind me, what can't I eat?")."""
    core = _WRAPPER.sub("", question.strip())
    return core if len(core) > 2 else question.strip()


def widened_query(sit: Situation, question: str) -> str:
    """The question's words and their generic synonyms, for a second, wider search."""
    ask = read_ask(sit)
    if ask.own_name:
        return "Hi, my name is"  # the person's own name is in a self-introduction ("I'm Lena, nice to meet you")
    said = set(words(question))
    # the most telling first: the query is cut at 200 characters ("sport" alone has twenty members)
    extra = [w for t in ask.hard for w in kin_words(t) if w not in said]  # "nephew": brother, sister, son
    extra += [w for a in ask.attributes for w in _ATTRIBUTE_WORDS.get(a, ()) if w not in said]
    extra += ["before that", "previously", "years"] if ask.earlier else []  # "Before that I spent three years at…"
    extra += [w for t in sit.key_terms for w in sorted(related_words(t)) if w not in said]
    return " ".join([question.strip(), *dict.fromkeys(extra)])[:200]


# A question in the present tense ("What car do we drive?"); "now", "at the moment" are `Ask.now`.
_PRESENT_TENSE = re.compile(r"\b(?:do|am|are)\s+(?:i|we)\b", re.IGNORECASE)


def change_query(sit: Situation) -> str:
    """The question's words as a change is told: "Who do I work for?" finds "After nine years on the
    road I'm now an instructor at NSCC" (0.66) that the question itself ranks at 0.12."""
    return " ".join(["Now I've started a new", *(w for w in words(sit.text) if w not in STOP)])[:200]


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
        found = _found(stores, user_id)
        found.add(hits)
        if sit.kind == "broad_recall":  # "what do you know about me?" is like no message: the newest are
            newest = stores.memories.list(user_id, ["turn"], "active", BROAD_NEWEST)
            found.add([MemoryHit(m, 0.0, 0.0, 0.0) for m in newest])
        said = _said_before(history, question) if _WHAT_I_SAID.search(question) else ""
        chat_sit = sit  # a continuation the memory cannot answer is still chat, with the thread
        if about := _WHAT_ABOUT.match(question):  # "what about my sister, when's her wedding?"
            question = _HE_SHE_HIS.sub(lambda m: f"{about[1]}'s" if m.group(3) else about[1], about[2])
            sit = read(question)
        if sit.kind == "continuation" and sit.question and not said:
            sit, question = followed_up(sit, question, history)
        if said:  # the thread says it, word for word: no memory search, no model
            answer = Answer(content=_fit(f"You said: “{said}”"), confidence="high")
        elif sit.kind in GROUNDED_KINDS or (sit.kind in _MAY_BE_KNOWN and sit.question and _known_after_a_look(
            stores, user_id, sit, question, found, search
        )):
            async for event in _more(stores, user_id, qid, context, sit, question, search, found):
                yield event
            asked = cased_question(sit, found.notes)  # "where does ana work?" names Ana too
            amb = [] if sit.kind == "broad_recall" else ambiguities(
                asked.names, asked.text, lambda name: stores.entities.namesakes(user_id, name)
            )  # fmt: skip
            answer = await _grounded_each(backend, sit, question, found, history, today, amb)
        else:
            answer = await _chat(backend, chat_sit, question, history, today)
        for piece in re.findall(r"\S+\s*", answer.content):  # checked already: now it may stream
            yield AnswerDelta(piece)
        stores.queries.complete(user_id, qid, answer.confidence, False)
        yield Answered(answer, found.rounds, False, context.stats())
    except BaseException as exc:
        stores.queries.fail(user_id, qid, f"{type(exc).__name__}: {exc}")
        raise


def _found(stores: LoopStores, user_id: int) -> _Found:
    return _Found(
        lambda memory: stores.memories.previous_turn(user_id, memory),
        lambda memory: stores.memories.next_turn(user_id, memory),
        lambda document_id: stores.memories.document_title(user_id, document_id),
    )


def first_evidence(stores: LoopStores, user_id: int, sit: Situation, hits: Sequence[MemoryHit]) -> Evidence | None:
    """The evidence policy's verdict on the notes a context recalled, before any info round (what
    the policy's second look weighs: `capabilities.request_policy.second_look`); None for a message
    the policy does not ground in memory this way (chat, a broad recall)."""
    if sit.kind not in GROUNDED_KINDS or sit.kind == "broad_recall":
        return None
    found = _found(stores, user_id)
    found.add(hits)
    return choose(sit, found.notes)


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
    """The policy's info rounds: a wider search when nothing answers (the question itself below the
    request's threshold, and with its related words), then hops through names."""
    tried: set[str] = set()
    while found.rounds < search.max_rounds:
        evidence = choose(sit, found.notes)
        ask = _next_search(sit, question, evidence, found.notes, tried)
        if ask is None:
            return
        text, why = ask
        tried.add(text)
        found.rounds += 1
        stores.queries.count_info_request(user_id, qid)
        new = found.add(stores.memories.search(user_id, text, search.limit, INFO_FLOOR))
        if found.rounds == 1:  # the question itself below the request's threshold, too: related words dilute it
            # (its best few whatever their relevance: in a young memory "live" is in every note, so BM25
            # gives "Where do I live?" 0.28 against "My name is Ana and I live in Porto.")
            alone = stores.memories.search(user_id, _core(question), search.limit, 0.0)  # best first
            new += found.add([h for i, h in enumerate(alone) if i < QUESTION_TOP or h.relevance >= INFO_FLOOR])
            why += "; also the question alone"
            ask = read_ask(sit)
            if (ask.now or _PRESENT_TENSE.search(question)) and not ask.own_name:  # and as a change is told
                change = change_query(sit)
                new += found.add(stores.memories.search(user_id, change, search.limit, INFO_FLOOR))
                why += f" and as a change would be told ({change!r})"
        context.merge(ContextDelta(memories=[MemoryNote(int(r[1:]), found.texts[r]) for r in new]))
        summary = f"{len(new)} new note(s)" if new else "nothing new"
        args = {"query": text, "min_relevance": INFO_FLOOR, "limit": search.limit}
        yield InfoRound("SEARCH_MEMORIES", args, summary, found.rounds, True, why, tuple(new))


def _next_search(
    sit: Situation, question: str, evidence: Evidence, notes: Sequence[Note], tried: set[str]
) -> tuple[str, str] | None:
    """The policy's next search, or None when the evidence is enough or nothing else can help.

    First a wider search (the question's words and their generic synonyms); then hops through the
    names in the notes that cover part of the question ("Ana adopted a dog" for "my sister's dog";
    "My colleague Priya… bakes sourdough" for "where is that colleague from?").
    """
    if sit.kind == "broad_recall":
        return None
    wide = widened_query(sit, question)
    if wide not in tried:  # always once: a correction is often said in other words ("We're moving! … Dartmouth")
        why = "searching wider for a later or differently worded note" if evidence.verdict == "answer" else (
            "no recalled note answered: searching wider"
        )
        return wide, why
    if asks_by_age(sit.text) and by_age(sit, notes) is sit and KIDS_QUERY not in tried:
        return KIDS_QUERY, "'my oldest' or 'my youngest' is known by the children's ages: searching for them"
    if evidence.verdict == "answer" and not evidence.missing:  # (answered of one assumed: who it is, below)
        return _what_changed(sit, evidence, tried)
    said = {w.casefold() for w in words(sit.text)}
    terms = [*sit.heads, *sit.key_terms]
    for t in read_ask(sit).hard:  # "my nephew": the son named after "my brother's wife Nia", or "Gareth son"
        for hop in kin_hops(t, notes):
            if hop not in tried:
                return hop, f"a {t} is said in two steps: searching {hop}"
    called = {name: word for word, name in aliases(notes).items()}  # ana → sister: "my sister moved…"
    for note in rank(sit, notes)[:HOP_NOTES]:
        missing = [t for t in terms if not covers(note.stems, t)]
        wanted = [w for w in words(sit.text) if stem(w) in missing]
        for name in _HP_people(note.text, said, notes):
            hop = " ".join(w for w in [name, called.get(name.casefold(), ""), *dict.fromkeys(wanted)] if w)[:200]
            if hop not in tried and len(missing) < len(terms):
                return hop, f"the answer may go through {name}: a second hop"
    return None


def _HP_people(text: str, said: set[str], notes: Sequence[Note]) -> list[str]:
    """The names in a note a hop may go through: people, not a place ("out in Bishopbriggs"), a month
    ("we plan to go in April") nor one the question says itself; those other notes say too first (a
    capitalised opening word said once is seldom anyone: "Happy birthday to…")."""
    named = [n for n in people_in(text) if not is_calendar(n) and n.casefold() not in said
             and not any(w.casefold() in said for w in n.split())]  # fmt: skip
    told = {n: sum(re.search(rf"\b{re.escape(n)}\b", note.text) is not None for note in notes) for n in named}
    named = [n for n in named if told[n] > 1 or not _HP_opens_only(n, text)]
    return sorted(named, key=lambda n: -told[n])


def _HP_opens_only(name: str, text: str) -> bool:
    """Whether a name is said only to open a sentence ("Big thanks to…", "Procedure: …")."""
    return not re.search(rf"(?<![.!?:]\s)(?<!^)\b{re.escape(name)}\b", text.strip())


KIDS_QUERY = "our kids, how old the children are: he is 9, she is 2"


def _what_changed(sit: Situation, evidence: Evidence, tried: set[str]) -> tuple[str, str] | None:
    """For what is so now, a search for what the answer names as a change to it would be told:
    "Who's my physio at the moment?" answered by "seeing Greta at Northside" also looks for "Greta",
    which finds "Greta's gone on mat leave so I'm seeing Ben at Northside now"."""
    if not read_ask(sit).now:
        return None
    said = {w.casefold() for w in words(sit.text)}
    named = [n for note in evidence.notes for n in names_in(note.text) if n.casefold() not in said]
    if not named:
        return None
    text = " ".join([*dict.fromkeys(named), "instead now"])[:200]
    return None if text in tried else (text, "what the answer names may have changed since: searching for it")


async def _grounded(
    backend: Backend,
    sit: Situation,
    question: str,
    found: _Found,
    history: Sequence[ModelMessage],
    today: date,
    amb: Sequence[Ambiguity] = (),
) -> Answer:
    # "my sister Ana": what is said of the colleague Ana is no evidence (capabilities/namesakes.py)
    notes = [n for n in found.notes if not any(a.elsewhere(n.text) for a in amb)]
    if sit.kind == "broad_recall":
        return _broad(found, sit)
    worked = worked_out(question, notes)  # "how much more … than …": two amounts, worked out, not guessed
    if worked:
        return Answer(content=worked.sentence, confidence="medium", sources=_sources(worked.notes),
                      follow_ups=_follow_ups(worked.notes, sit))  # fmt: skip
    evidence = choose(sit, notes)
    if evidence.verdict == "unknown" and not sit.about_me and sit.kind != "document" and not _known(sit, notes):
        return await _chat(backend, sit, question, history, today)  # "the capital of France?": not a memory
    if evidence.verdict == "unknown":
        return Answer(content=_dont_know(sit, notes), confidence="low")
    own = [name for n in evidence.notes if (name := introduced(n.text))]
    if read_ask(sit).own_name and own:  # nothing for a voice to add (it wrote "Sam, hello. You're Sam.")
        return Answer(content=f"Your name is {own[-1]}.", confidence=evidence.confidence,
                      sources=_sources(evidence.notes), follow_ups=_follow_ups(evidence.notes, sit))  # fmt: skip
    moved = change(question, evidence.notes, notes)  # "by how much did the rate go down?": worked out, not guessed
    if moved:
        return Answer(content=moved.sentence(), confidence=evidence.confidence, sources=_sources(evidence.notes),
                      follow_ups=_follow_ups(evidence.notes, sit))  # fmt: skip
    ask = read_ask(sit)
    # (the reply is held to the chosen notes about what is asked, not one joined through a name it shares: a
    # value that note gives was said as the answer, and its news was read out beside it; the model still reads
    # them all: given the one note, it worded "Cian, a renowned engineer…" where it had let the notes speak)
    chosen = evidence.notes
    evidence = replace(evidence, notes=tuple(_VV_on_topic(evidence.notes, sit, ask)))
    kind = ask.answer_type or ("person" if set(ask.attributes) & NAMING_STEMS else None)  # a name is asked
    # "what preventer am I on?": a name, perhaps changed since; "which contractor is doing…": Hanley &
    # Sons (not "what position do I play?": what "I play" is said of, below)
    if kind is None and (len(evidence.notes) > 1 or (asks_a_name(question) and not ask.verb)):
        kind = "thing"
    # (a change is read among the notes about what is asked: "the February trip's changed… Friday 26 February"
    # makes no date of "When is mama's party?" stale)
    about = _VC_about(evidence.notes, sit, ask)
    told = set().union(*(candidates(n.text, kind, question) for n in about))  # (what only the others say, as before)
    stale = superseded(about, kind, question) | (superseded(evidence.notes, kind, question) - told)
    new = set() if ask.earlier else _VO_changed_to(about, kind, question, ask)
    # asked what is so now, what the change's own sentences say is the new value, not a stale one ("my English
    # class change, now is online, saturday morning. tuesday and thursday night I am too tired")
    stale = (stale - new) if not _VO_now_elsewhere(about, kind, question) else set()
    offered = set().union(*(candidates(n.text, kind, question) for n in evidence.notes))
    named = offered - stale
    # of several notes' names, those said beside what is asked: "Dr. Anita Raman" beside "surgeon",
    # not the physio "Marcus" of a note joined for the knee; "my team", not the night out
    # (and none a note says is not so: "didn't go the Hilux in the end")
    # (nor, when a note corrects another, the one both say, which only links the change: "Greta's gone on
    # mat leave so I'm seeing Ben now")
    gone = stale | set().union(*(denied(n.text) for n in evidence.notes))
    gone |= set() if ask.earlier else set().union(*(_VO_old(n.text) for n in evidence.notes))  # "the old Fendt"
    links = _bridges(evidence.notes) if stale else set()
    beside = set().union(*(candidates(n.text, kind, question, near_only=True) for n in evidence.notes)) if (
        kind != "place") else set()  # (a place beside "works" may be a partner's: "bistro in Stockbridge")
    # (a note that drops every answer offered may give the new one bare: "so scrap Baguio… now he wants
    # Ilocos instead")
    instead = {m.casefold() for n in evidence.notes if corrects(n.text) for m in names_in(n.text)} - gone
    named = (beside - gone - links) or (named - gone) or (instead if named and named <= gone else set()) or named
    if kind == "person" and not ask.answer_type:  # a name asked: the one said as "called the Sally Ann"
        named = {m.casefold() for n in evidence.notes for m in _CALLED.findall(n.text)} or named
    jobs = [roles(n.text) - stale for n in evidence.notes] if not kind and set(ask.attributes) & ROLE_STEMS else []
    if jobs:  # a job asked: the reply says it ("instructor")
        named = set().union(*jobs)
    if not kind and not named and ask.verb:  # "what do I play in the band?": what "I play" is said of (bass)
        named = _done(evidence.notes, ask.verb) - stale
    they = _THEY_DO.match(question)  # "what does Gary build?": what he is said to build (cedar birdhouses)
    if not kind and not named and they and they.group(1).casefold() not in STOP:
        named = _done(evidence.notes, stem(they.group(1)), _ANYONE) - stale
    needed = (named - _bridges(evidence.notes)) or named  # when every note says it, the bridge is the answer
    lasting = _VV_durations(question, evidence.notes)  # "how long…": "six weeks of crutches", not "8 September"
    needed, stale, gone = (lasting, stale - lasting, gone - lasting) if lasting else (needed, stale, gone)
    called = _called_as(sit, evidence.notes) if kind == "person" else ""  # "what's my grandson's name?":
    needed = {called} if called else needed  # Ishaan, "our only grandchild", not Vasanthi of the same note
    needed = (needed - _on_the_way(sit, evidence.notes)) or needed  # "my sister's twins": not Miriam
    needed = _one_of_mine(question, evidence.notes) or needed  # "which of my neighbours…": the one said as such
    needed = (needed & new) or needed  # the value the change says, of those it could be
    needed = _VO_hop_places(sit, evidence.notes, needed) if kind == "place" else needed
    if not needed and KIND in ask.attributes:  # "what breed is Biscuit?": the description ("a basset hound"),
        needed = set().union(*(described(n.text) for n in evidence.notes))  # not "Biscuit is a breed of dog"
    # (nor a name a note says is not so: "not the Südvorstadt anymore")
    unsaid = _yes_or_no_unsaid(question, ask, evidence.notes)
    if unsaid:  # "is my sister married?": "No, your sister Ruth is not married." of a note about her baby
        log.info("yes/no answered from the notes, not the model (no note says %s)", ", ".join(unsaid))
        return Answer(content=_fit(f"I can't say for sure — what you told me: "
                                   f"{extractive(evidence.notes, question, needed, about)}"),
                      confidence="low", sources=_sources(evidence.notes),
                      follow_ups=_follow_ups(evidence.notes, sit))  # fmt: skip
    said_names = {m.casefold() for n in evidence.notes for m in names_in(n.text)}
    raw = await say(
        backend, system_text(GROUNDED_SYSTEM, today), grounded_prompt(chosen, question), GROUNDED_MAX_TOKENS
    )
    text, problem = grounded_reply(raw, evidence.notes, question, needed, stale | (gone & (offered | said_names)))
    if not problem and jobs and not any(job and job <= said_tokens(text) for job in jobs):
        problem = "the reply says only part of the job"  # "a UX researcher" for "a senior UX researcher"
    others = said_names - needed - {w.casefold() for w in words(question)}  # names asked: one not of them
    if not problem and kind == "person" and len(needed) > 1 and others & said_tokens(text):
        problem = "the reply names one not asked of beside those asked"  # "The twins' names are Miriam and Ida."
    confidence = evidence.confidence
    if problem:  # the notes speak for themselves; the model's words were not usable
        log.info("grounded reply replaced by the notes (%s): %r", problem, raw[:200])
        text = extractive(evidence.notes, question, needed, about)
        confidence = "medium" if confidence == "high" else confidence
    if ask.answer_type == "time":  # "last weekend", said weeks ago: the days it meant
        text = f"{_fit(text)} {told_when(text, evidence.notes)}".strip()
    since = time_since(question, evidence.notes, today)  # "how long have we been married?": counted, not guessed
    if since:
        text = f"{_fit(text)} {since}"
    if evidence.missing:  # answered though no note says who is asked of (see `_who_unsaid`): said so
        text = f"{_fit(text)} {who_assumed(question, evidence.missing)}"
    return Answer(
        content=_fit(text),
        confidence=confidence,
        sources=_sources(evidence.notes),
        follow_ups=_follow_ups(evidence.notes, sit),
    )


# Who someone is, what they do, where they live or how old they are, asked of a name: of a name memory
# does not know the 135M model wrote a life ("Rui is a brilliant and resourceful AI assistant…"), so
# the reply is that they were never told of (a famous name too: the model's biographies are unchecked).
_NAME = r"((?:[A-ZÀ-ÞĀ-Ž][\w'’-]*\s*){1,3}?)"  # (as `WHO_IS_NAMED` reads it)
_SOMEONE = re.compile(
    rf"{WHO_IS_NAMED.pattern}"
    rf"|^\W*(?i:what|where)\s+(?i:does|did|is)\s+{_NAME}\s+(?i:do|doing|live|work)\b"
    rf"|^\W*(?i:how old is)\s+{_NAME}\W*$"
)
# What a particular thing of theirs is called ("what are the barn cats called?", "what's the name of the
# boat?"): a name only they could have told, not "the largest planet" nor "a baby kangaroo" (general).
_THE_CALLED = re.compile(
    r"^\W*what(?:['’]s|\s+is|\s+are|\s+was|\s+were)\s+(?:the\s+(?!\w+est\b)[\w\s'’-]+?\s+called"
    r"|the\s+name\s+of\s+the\s+(?!\w+est\b)[\w\s'’-]+?)\W*$",
    re.IGNORECASE,
)
# "how many days until the race?", "how long till my birthday?": when it is, then counted
_UNTIL = re.compile(
    r"^\W*how (?:many (?:days|weeks|months)|long)(?: is it| do i have| have i got)? (?:until|till|til|'til|to|before) "
    r"(.+?)\W*$",
    re.IGNORECASE,
)
# A question answered yes or no ("is my sister married?", "does Tom have a car?"), not "do you remember…"
_YES_NO = re.compile(r"^\W*(?:is|are|was|were|does|do|did|has|have|had|can|will|am)\b(?!\s+you\b)", re.IGNORECASE)


def _yes_or_no_unsaid(question: str, ask: Ask, notes: Sequence[Note]) -> list[str]:
    """The words of a yes-or-no question no chosen note says: the model's yes or no would be its own."""
    if not _YES_NO.match(question):
        return []
    return [t for t in ask.terms if not any(covers(n.stems, t) for n in notes)]


async def _grounded_each(
    backend: Backend,
    sit: Situation,
    question: str,
    found: _Found,
    history: Sequence[ModelMessage],
    today: date,
    amb: Sequence[Ambiguity],
) -> Answer:
    """`_grounded`, and when the question names someone two people are called without saying which,
    answered for each of them and said so (capabilities/namesakes.py)."""
    until = _UNTIL.match(question)
    if until:  # "how many days until the half marathon?": when it is, counted here (the model said "18")
        asked = f"when is {until[1]}?"
        answer = await _grounded_each(backend, read(asked), asked, found, history, today, amb)
        day = next_day(answer.content, today) if answer.sources else None
        count = (day - today).days if day else -1
        if count < 0:
            return answer
        weeks = f" (about {count // 7} weeks)" if count >= 14 else ""
        return answer.model_copy(update={"content": _fit(f"{answer.content} That is {count} days from today{weeks}.")})
    unsaid = next((a for a in amb if a.meant is None), None)
    if unsaid is None:
        return await _grounded(backend, sit, question, found, history, today, amb)
    rest = [a for a in amb if a is not unsaid]
    answered: list[tuple[Namesake, Answer]] = []
    for n in unsaid.namesakes:
        one = replace(unsaid, meant=n)
        answer = await _grounded(backend, sit, question, found, history, today, [*rest, one])
        refs = {s.ref for s in answer.sources}
        notes = [t for t in found.notes if t.ref in refs]
        if any(one.about(t.text) == [n] for t in notes) and all(
            any(covers(t.stems, term) for t in notes) for term in sit.key_terms
        ):
            answered.append((n, answer))
    every = [a for _, a in answered] or [await _grounded(backend, sit, question, found, history, today, amb)]
    return Answer(
        content=_fit(namesake_reply(unsaid, [(n, a.content) for n, a in answered], every[0].content)),
        confidence=min((a.confidence for a in every), key=["low", "medium", "high"].index),
        sources=[s for a in every for s in a.sources][:5],
        follow_ups=every[0].follow_ups,
    )


_CALLED = re.compile(
    r"\b(?:called|named|name is|nicknamed)\s+(?:(?:it|him|her|them)\s+)?(?:the\s+)?['‘\"“]?([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)"
)


_DOING = r"\s+(?:\w+ly\s+|also\s+|still\s+)?(\w+)\s+(?:the\s+|a\s+|an\s+|my\s+|his\s+|her\s+)?(\w+)"
_I_DO = re.compile(r"\b(?i:I|we)" + _DOING)
_ANYONE = re.compile(r"\b(?:(?i:I|we|he|she|they)|[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)" + _DOING, re.IGNORECASE)
_THEY_DO = re.compile(r"^\W*(?i:what\s+(?:does|did))\s+(?:(?i:my)\s+\w+|[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)\s+(?:\w+ly\s+)?(\w+)")


def _called_as(sit: Situation, notes: Sequence[Note]) -> str:
    """The one name the person calls by the chain asked ("my grandson": "Ishaan … our only grandchild"),
    when the notes say it; "" otherwise."""
    if not sit.heads:
        return ""
    for word, name in aliases(notes).items():
        said = word.replace("'s", "").split()
        pairs = zip(said, sit.heads, strict=False)
        if len(said) == len(sit.heads) and all(stem(w) in related_stems(h) for w, h in pairs):
            return name if any(name in n.text.casefold() for n in notes) else ""
    return ""


def _on_the_way(sit: Situation, notes: Sequence[Note]) -> set[str]:
    """The names the chain asked passes through ("what are my sister's twins called?": Miriam, "my sister"),
    which are not the answer: the model said "Your sister's name is Miriam." of "…twins, Paul and Ida"."""
    if len(sit.heads) < 2:
        return set()
    on_the_way = {s for h in sit.heads[:-1] for s in related_stems(h)}
    return {name for word, name in aliases(notes).items() if stem(word.split()[-1].replace("'s", "")) in on_the_way}


def _VO_newest(notes: Sequence[Note], kind: AnswerType | None, question: str) -> str:
    """The text of the newest note that gives an answer of the type asked (the person's words after a
    document's, as `superseded` orders them), or ""."""
    typed = [n for n in notes if candidates(n.text, kind, question)]
    newest = max(typed, key=lambda n: (n.source != "chunk", n.created_at.timestamp() if n.created_at else 0.0),
                 default=None)  # fmt: skip
    return newest.text if newest else ""


def _VO_changed_to(notes: Sequence[Note], kind: AnswerType | None, question: str, ask: Ask) -> set[str]:
    """Of a question that asks what is so now, when the newest note that gives an answer of the type asked
    tells a change: the one answer it gives in the sentences that tell the change and say every word asked
    (lower-cased): "my English class change, now is online, saturday morning. tuesday and thursday night I
    am too tired" → saturday for "when is my english class now?". Else none."""
    text = _VO_newest(notes, kind, question)
    if not ask.now or not corrects(text):
        return set()
    told = [p for p in sentences(text) if corrects(p) and all(covers(_VO_stems(p), t) for t in ask.terms)]
    said = set().union(*(candidates(p, kind, question) for p in told))
    return said if len(said) == 1 else set()  # (of two, one is what it replaced: "off on Thursdays, moved to Monday")


def _VO_now_elsewhere(notes: Sequence[Note], kind: AnswerType | None, question: str) -> bool:
    """Whether the newest note that gives an answer of the type asked tells a change only by "now", in
    sentences that give none: "…now he is 19 and he still lives with us" changed no city."""
    text = _VO_newest(notes, kind, question)
    if not corrects(text) or corrects(_VO_NOW.sub("", text)):
        return False
    return not any(candidates(p, kind, question) for p in sentences(text) if _VO_NOW.search(p))


def _VC_about(notes: Sequence[Note], sit: Situation, ask: Ask) -> list[Note]:
    """The notes that say a word the question asks of (a key term, or a word of a name it says), where alone
    its change may be told: a newer note that tells a change of something else ("and the February trip's
    changed… flying to Katowice now, Friday 26 February") leaves "When is mama's party?" as the party's
    notes say it. All the notes when none does."""
    # (a day, a month or a year the question says is when, not what: "the club I joined in September 2023" is not
    # what "the Sicily trip moved to September 2027" is about)
    when = {stem(w) for w in words(sit.text) if is_calendar(w) or w.isdigit()}
    named = {stem(w) for name in sit.names for w in words(name)} - when
    terms = [t for t in ask.terms if t not in when] or ask.terms
    about = [n for n in notes if named & n.stems or any(covers(n.stems, t) for t in terms)]
    # and a note that names what those give ("the GP's upped the Amlodipine to 10mg" beside "put me on
    # Amlodipine for blood pressure"), a name being one thing where a day or a figure is not
    kind = ask.answer_type or "thing"
    named_kind = kind not in ("time", "number")
    given = set().union(*(candidates(n.text, kind, sit.text) for n in about)) - STOP if named_kind else set()
    about += [n for n in notes if n not in about and any(re.search(rf"\b{re.escape(m)}\b", n.text.casefold())
                                                         for m in given)]  # (said as "Greta's" too)
    return sorted(about, key=notes.index) or list(notes)


# a question asked through someone: "my sister's husband", "the kids' mum", "the brother who sold me his car"
_VV_CHAIN = re.compile(
    r"\b(?!(?:what|that|it|who|where|how|there|here|he|she|let|when|which|why)['’]s\b)\w+['’]s\b|\b\w+s['’](?=\s)"
    r"|(?<=\w\s)(?:who|that|whose)\b",
    re.IGNORECASE,
)
_VV_FIGURE = re.compile(r"\b\d+(?:[.,:]\d+)*\b")
_VV_LEADS_WITH_PRONOUN = re.compile(r"^\W*(?:he|she|they)\b", re.IGNORECASE)
# a turn that goes on about one the turn before it named: "We got her from a rescue…" after "Biscuit's our beagle"
# (not "Also we sold 10 cows…" after the knee operation: a new thing, told next)
_VV_LEANS_BACK = re.compile(
    r"^\W*(?:[\w']+[,;:]?\s+){0,3}?(?:he|she|him|his|her|they|them|their|it|its)\b", re.IGNORECASE
)


_VV_HOW_LONG = re.compile(r"^\W*how\s+long\b", re.IGNORECASE)
_VV_LASTING = re.compile(
    r"\b(\d+|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty)"
    r"(?:\s+(?:more|whole|full|long))?\s+(?:minutes?|mins?|hours?|days?|nights?|weeks?|months?|years?)\b",
    re.IGNORECASE,
)


def _VV_durations(question: str, notes: Sequence[Note]) -> set[str]:
    """Asked how long, the counts the notes say of a stretch of time ("six weeks of crutches", "about five
    years now"), lower-cased: a length is said as one, and the dates beside it ("now we fly on 8 September") are
    no answer (the policy reads a number asked as any figure). None when not asked how long."""
    if not _VV_HOW_LONG.match(question):
        return set()
    return {m.casefold() for n in notes for m in _VV_LASTING.findall(n.text)} - {"a"}


def _VV_on_topic(notes: Sequence[Note], sit: Situation, ask: Ask) -> list[Note]:
    """The chosen notes the voice is given: those that say a word the question asks of other than a name it
    says (a key term as itself, or the name the person calls one it asks of: "my grandson" → Cian), or a name
    it says; the turn one of them leans on or that leans on one; and a note that names what one of those names
    (a change: "finally finished The Shipping News… now I've started…"; a hop: "my dad is Jorge", "Jorge…").
    A note joined through none of these ("the February trip's changed… flying to Katowice now" beside "my
    flat's above a launderette… in Erdington", for "what part of Birmingham is my flat in?") gave the model a
    value to put in the answer's place: the policy chose it, the voice does not say it. All the notes when
    none says a word asked."""
    named = {stem(w) for name in sit.names for w in words(name)}
    terms = {t for t in ask.terms if t not in named}
    asked = {stem(w) for w in words(sit.text)}
    called = {name for word, name in aliases(notes).items() if stem(word.split()[-1].replace("'s", "")) in asked}

    def own(note: Note) -> set[str]:
        return {w.casefold() for w in words(note.text)}

    def says(note: Note) -> bool:
        return any(covers(note.stems, t) for t in terms) or bool(named & note.stems or called & own(note))

    def names(note: Note) -> set[str]:  # (and figures: "cut from 300 g to 250 g" of "300 g of kibble a day")
        said = {w.casefold() for m in names_in(note.text) if not is_calendar(m) for w in words(m)} - STOP
        return said | set(_VV_FIGURE.findall(note.text))

    # (a note about one it calls he or she may be about one asked: "She finished at Leith Walk…")
    on = {n.ref for n in notes if says(n) or _VV_LEADS_WITH_PRONOUN.match(n.text)}
    if not terms or not on:
        return list(notes)
    chain = _VV_CHAIN.search(sit.text) is not None or len(sit.heads) > 1  # (the next turn may name the next hop)
    for _ in range(2):  # (a hop of a hop: "my sister Ana", "Ana's husband Tom", "Tom works…")
        on |= {n.after for n in notes if n.ref in on and n.after and (chain or _VV_LEANS_BACK.match(n.text))}
        on |= {n.ref for n in notes if n.after in on and (chain or _VV_LEANS_BACK.match(n.text))}
        linked = set().union(*(names(n) for n in notes if n.ref in on))
        on |= {n.ref for n in notes if names(n) & linked}
    return [n for n in notes if n.ref in on]


def _VO_stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(text))


_VO_NOW = re.compile(r"\bnow\b", re.IGNORECASE)
# a thing said as the one the person had before a change: "The old Fendt tractor finally died", "sold my old Civic"
_VO_OLD_NAME = re.compile(r"\b(?i:the|my|our|his|her|their)\s+(?i:old)\s+([A-ZÀ-ÞĀ-Ž][\w-]*)")


def _VO_old(text: str) -> set[str]:
    """The names a note that tells a change calls old (lower-cased): not what the person has now."""
    return {m.casefold() for m in _VO_OLD_NAME.findall(text)} if corrects(text) else set()


def _VO_hop_places(sit: Situation, notes: Sequence[Note], needed: set[str]) -> set[str]:
    """A place asked through someone ("in which city do we stay the first week?": "in the house of Naoko"):
    when the only places offered are names the notes link by ("Naoko") and never say as a place ("in
    Naoko"), the places the other notes say ("she live in Hamamatsu"), not the name. `needed` otherwise."""
    placed = {m.casefold() for n in notes for m in _VO_PLACED.findall(n.text)}
    if not needed or not needed <= _bridges(notes) - placed:
        return needed
    people = {p.split()[0].casefold() for n in notes for p in people_in(n.text)}
    asked = {w.casefold() for w in words(sit.text)}
    terms = read_ask(sit).terms
    said = {n.ref: sum(covers(n.stems, t) for t in terms) for n in notes}
    hops = [n for n in notes if said[n.ref] < max(said.values())]
    return set().union(*(candidates(n.text, "place", "") for n in hops)) - people - needed - asked or needed


_VO_PLACED = re.compile(r"\b(?i:in|at|to|from|near|into)\s+(?:the\s+)?([A-ZÀ-ÞĀ-Ž][\w-]*)")


def _done(notes: Sequence[Note], verb: str, doer: re.Pattern[str] = _I_DO) -> set[str]:
    """The word the person (or, with `_ANYONE`, anyone) says they do the verb to: "I play bass in a
    band" → bass, "he builds cedar birdhouses" → cedar (lower-cased)."""
    found = set()
    for note in notes:
        for m in doer.finditer(note.text):
            if stem(m.group(1)) == verb and m.group(2).casefold() not in STOP:
                found.add(m.group(2).casefold())
    return found


_WHICH_OF_MY = re.compile(r"\bwhich of (?:my|our) (\w+)", re.IGNORECASE)


def _one_of_mine(question: str, notes: Sequence[Note]) -> set[str]:
    """For "which of my neighbours…", the names the notes call that ("my neighbour Sheena's brother's
    farm": Sheena), even when every note says them."""
    asked = _WHICH_OF_MY.search(question)
    if asked is None:
        return set()
    role = stem(asked.group(1))
    return {name for word, name in aliases(notes).items() if stem(word) == role}


def _bridges(notes: Sequence[Note]) -> set[str]:
    """Names two chosen notes share: the link between the hops, not the answer ("Tonwerk" joins
    "I joined Tonwerk" to "Tonwerk was founded by Gisela Marr"; the answer is Gisela)."""
    seen: dict[str, int] = {}
    for note in notes:
        for word in {n.split()[0].casefold() for n in names_in(note.text)}:
            seen[word] = seen.get(word, 0) + 1
    return {w for w, n in seen.items() if n > 1}


def _sources(notes: Sequence[Note]) -> list[Source]:
    """One source per memory (two sentences of one document chunk are one source)."""
    first = {n.ref: n for n in reversed(notes)}
    return [Source(ref=n.ref, contribution="says so", relevance=round(n.relevance, 2)) for n in first.values()][:5]


def _broad(found: _Found, sit: Situation) -> Answer:
    """A broad recall: what the person said about themselves. Of a topic ("my family", "my hobbies"),
    the messages that say a word of it, most relevant first; of themselves ("what do you know about
    me?"), their newest. Each message is said once, whole (not its sentences, nor facts drawn from it)."""
    topic = read_ask(sit).terms or sit.heads  # "my hobbies", "what have I told you about my work?"
    firsts = {n.ref: n for n in reversed(found.notes)}
    said = [replace(n, text=without_opener(found.texts[n.ref])) for n in firsts.values() if n.source == "turn"]
    # the person's own words, and their corrections however said ("the cello is on Tuesdays not Thursdays")
    mine = [n for n in said if (is_first_person(n.text) or corrects(n.text))
            and not is_question(n.text)]  # (asked, not told: stored before)  # fmt: skip
    if topic:
        mine = sorted((n for n in mine if any(covers(n.stems, t) for t in topic)), key=lambda n: -n.relevance)
    else:
        mine = sorted(mine, key=lambda n: n.created_at or datetime.min, reverse=True)
    if not mine:
        about = f"your {' '.join(sit.heads)}" if sit.heads else "that"
        return Answer(content=f"I don't know yet — you haven't told me much about {about}.", confidence="low")
    mine = _not_corrected(mine)  # not "the cello on Thursdays" beside "my cello lessons moved to Tuesdays"
    lines, picked = ["Here is what you've told me:"], []
    for n in mine:  # as many as the reply holds, then how many more there are and where to see them
        line = f"- {second_person(n.text.strip())}"
        if len("\n".join([*lines, line])) > MAX_CONTENT_CHARS - len(_MORE) - 4:
            break
        lines.append(line)
        picked.append(n)
    if len(picked) < len(mine):
        lines.append(_MORE.format(len(mine) - len(picked)))
    return Answer(content=_fit("\n".join(lines)), confidence="medium", sources=_sources(picked))


_MORE = "…and {} more (/memories lists them all)."


def _not_corrected(notes: Sequence[Note]) -> list[Note]:
    """The notes no later correction speaks of: a correction ("Actually, my cello lessons moved to
    Tuesdays.") that shares a content word with an earlier note makes that one history."""
    def when(n: Note) -> datetime:
        return n.created_at or datetime.min

    corrections = [m for m in notes if corrects(m.text)]
    return [n for n in notes if not any(
        m is not n and when(m) > when(n) and (n.said & m.said) - _STOP_STEMS for m in corrections
    )]  # fmt: skip


# the words a correction says the change with, which link it to nothing ("moved" of "I just moved to
# Bristol" is no cello lesson)
# (nor does a time word: "we see each other every few weeks" is not corrected by "Pickle is now 4, her
# birthday was last week")
_STOP_STEMS = frozenset(stem(w) for w in STOP | word_set(
    "moved moving changed switched started now actually new week weeks day days month months year years "
    "today yesterday tomorrow tonight last next ago every few time times"))


def _known_after_a_look(
    stores: LoopStores, user_id: int, sit: Situation, question: str, found: _Found, search: Search
) -> bool:
    """`_known`, after one search of its own when the request's found nothing of it: "when's dev's
    birthday?" typed in lower case names no one, so it reads as general knowledge and its request
    loads nothing, yet memory says "dev's bday is oct 30"."""
    if not _known(sit, found.notes):
        found.add(stores.memories.search(user_id, _core(question), search.limit, INFO_FLOOR))
    for thing in [] if _known(sit, found.notes) else _OF_THE.findall(question):  # "…of the shop?": the shop
        found.add(stores.memories.search(user_id, thing, search.limit, INFO_FLOOR))
    return _known(sit, found.notes)


def _known(sit: Situation, notes: Sequence[Note]) -> bool:
    """Whether memory knows what the question is about (a name or a hard term it asks about):
    then not knowing the answer is "I don't know", never the model's free guess."""
    sit = cased_question(sit, notes)  # "the registration plate on the navara?": the Navara they told of
    ask = read_ask(sit)
    notes = cased(notes, sit.text)  # as the evidence reads them ("dev's bday": Dev's birthday)
    names = [n.casefold() for n in sit.names]
    if any(name in n.text.casefold() for n in notes for name in names):
        return True
    if any(covers(n.stems, h) for n in notes for h in ask.hard):
        return True
    # "the rent at the new apartment": a thing of theirs, said as one they told of ("apartment hunting")
    # or "the wifi password of the shop?": the shop they told of (the model answered "2026-11-28")
    known = {stem(m) for m in [*_THE_NEW.findall(sit.text), *_OF_THE.findall(sit.text)] if m.casefold() not in STOP}
    if any(covers(n.stems, k) for n in notes for k in known):
        return True
    for clause in _HP_DESCRIBED.findall(sit.text):  # "how old is the dog that had a lump removed?": one told of
        told = [stem(w) for w in words(clause) if w not in STOP]
        if told and any(sum(covers(n.stems, t) for t in told) >= min(2, (len(told) + 1) // 2) for n in notes):
            return True
    return any(2 * sum(covers(n.stems, t) for t in ask.terms) >= max(2, len(ask.terms)) for n in notes)


# someone or something described by what they did, as only the person's own are: "the pal who minded the dog"
_HP_DESCRIBED = re.compile(r"\bthe\s+\w+\s+(?:who|that|whose)\s+([^?.!,;:—–]+)", re.IGNORECASE)
_THE_NEW = re.compile(r"\bthe\s+(?:new|old|last|next|current)\s+(\w+)", re.IGNORECASE)
_OF_THE = re.compile(r"\b(?:of|at|in|for|from)\s+the\s+(\w+)\W*$", re.IGNORECASE)  # the thing a question ends on


def _dont_know(sit: Situation, notes: Sequence[Note] = ()) -> str:
    """"I don't know", and what was not told: "your dog's name", "about your dog" (but "where is my mum
    from?" with notes about the mum is not "you haven't told me about your mum": that was told)."""
    thing = _my_phrase(sit.text)
    if thing == "name":
        return "I don't know your name yet — you haven't told me."
    if thing.endswith("name"):
        return f"I don't know — you haven't told me your {thing} yet."
    if thing and any(covers(n.stems, stem(thing.split()[-1])) for n in notes):
        return f"I don't know — you haven't told me that about your {thing}."
    if thing:
        return f"I don't know — you haven't told me about your {thing} yet."
    return "I don't know — I don't remember you telling me that."


_AUX = word_set("do does did can could will would should shall may might must")
_WH = word_set("where when what who how why which whom whose that if")


def _my_phrase(text: str) -> str:
    """What follows "my", describers and possessives included: "current job", "daughter's best friend's dad"."""
    tokens = re.findall(r"[\w'’-]+", text)
    lowered = [t.casefold().replace("’", "'") for t in tokens]
    if "my" not in lowered:
        return ""
    at = lowered.index("my")
    phrase: list[str] = []
    for token, low in zip(tokens[at + 1 :], lowered[at + 1 :], strict=True):
        if low in STOP and not (low == "name" and (not phrase or phrase[-1].endswith(("'s", "’s")))):
            break
        phrase.append(token)
        if low not in DESCRIBERS and not low.endswith("'s"):
            break
    # a compound the question ends on: "my blood pressure?" (not "your blood"), "my phone number?"; not a
    # verb ("where is my car parked?", "what does my dog eat?")
    after = lowered[at + 1 + len(phrase) :]
    # (a deed asked: "what does my dog eat?", "…where my mother fall?", "…in Japan my grandfather come?")
    asks_a_deed = bool(_AUX & set(lowered[:at])) or (at > 0 and (
        lowered[at - 1] in _WH or (at > 1 and tokens[at - 1][:1].isupper())))
    if (phrase and len(after) == 1 and after[0] not in STOP and not asks_a_deed
            and not after[0].endswith(("ed", "ing", "s"))):
        phrase.append(tokens[-1])
    return " ".join(phrase)


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
    # A remark is heard, not answered by the model: asked to react to "oh wait, the holiday is in july
    # not june", it wrote "The holiday season is in July, not Junio."; a request is the model's to try.
    # (and so is news that goes on from the thread: "she's on donepezil now, 5mg at night" after "my mum…")
    remark = sit.kind == "statement" or (sit.kind in ("general", "continuation") and not sit.question)
    if remark and not is_request(message):
        return Answer(content=_fit(acknowledgement(message)), confidence="high")
    if sit.kind == "ack":
        return Answer(content=ack_reply(message), confidence="high")
    someone = _SOMEONE.match(message) if sit.question else None
    if someone:  # "who is Rui?", never told of: the model wrote "Rui is a brilliant … AI assistant"
        name = next(g for g in someone.groups() if g).strip()
        return Answer(content=f"I don't know — you haven't told me about {name}.", confidence="low")
    if sit.question and _THE_CALLED.match(message):  # "what are the barn cats called?": "The Barn Cat is a …"
        return Answer(content=_dont_know(sit), confidence="low")
    recent = history if sit.kind in ("continuation", "summary") else ()
    raw = await say(backend, system_text(CHAT_SYSTEM, today), message, CHAT_MAX_TOKENS, recent)
    text, problem = clean(raw, message)
    if recent and sit.question:  # a follow-up's second sentence is where the model drifts ("They're both in…")
        text = sentences(text)[0] if text else text
    if not problem and sit.question and _ONLY_GREETING.match(text):
        problem = "a greeting for a question"  # "Hello!" for "how much did both plane tickets cost together?"
    if not problem and recent and _names_unsaid(text, message, recent):
        problem = "the reply names what the thread never said"  # "Pineapple, a rescue greyhound." for Pepper
    if not problem and sit.question and not recent and not _on_topic(text, message):
        problem = "the reply is about something else"  # "I'm sorry for your loss." for "can I eat shrimp?"
    if problem:
        log.info("chat reply dropped (%s): %r", problem, raw[:200])
        text = GENERAL_FALLBACK if sit.question else DEFAULT_FALLBACK
    # A 135M model's general knowledge is unchecked, and a reply it could not give knows nothing: low.
    # Chat and acknowledgements: medium.
    return Answer(content=_fit(text), confidence="low" if sit.kind == "general" or problem else "medium")


def _on_topic(reply: str, question: str) -> bool:
    """Whether a reply to a general question says a content word of it ("Boil an egg in…" for "how do I boil
    an egg?"). The 135M model answered "can I eat shrimp?" and "how can I sleep better?" with "I'm sorry for
    your loss."; an answer that shares no word with its question is rarely one."""
    asked = {stem(w) for w in words(question) if w not in STOP and len(w) > 2}
    return not asked or bool(asked & {stem(w) for w in words(reply)})


_ONLY_GREETING = re.compile(r"^\W*(?:hello|hi|hey|greetings|good (?:morning|afternoon|evening))(?:\s+there)?\W*$", re.I)


# "What did I just tell you?" (not "what did I tell you about my sister?": that asks memory)
_WHAT_I_SAID = re.compile(
    r"(?:\bwhat (?:did|have) i (?:just |already )?(?:say|said|tell|told|mention|mentioned|write|wrote|ask|asked)"
    r"(?:\s+you)?(?:\s+(?:just\s+)?(?:now|earlier|before|a moment ago))?"
    r"|\brepeat (?:what i (?:said|wrote)|my last message)|\bwhat was my last message)\W*$",
    re.IGNORECASE,
)


# "what does he teach?" after "Your partner's name is Jonas.": who "he" is, said in the thread. "her" is
# whose when a word follows that is no preposition ("her surname", not "call her tomorrow").
_HE_SHE_HIS = re.compile(
    r"\b(?:(he|she)|(him)|(his|her(?=\s+(?!(?:to|at|for|with|about|and|or|on|in|from|again|today|tonight|"
    r"tomorrow|yesterday|last|next|yet|up|back|out|off|now|then|anything|something|that|this)\b)[a-z]))|(her))\b",
    re.IGNORECASE,
)
# who someone is to the person, as the thread says it ("Your mum's birthday is on 14 March."): "my mum"
_KIN_SAID = re.compile(rf"\b(?:my|your)\s+((?:(?:{HIS_KIN}|{HER_KIN})['’]s\s+)?({HIS_KIN}|{HER_KIN}))\b",
                       re.IGNORECASE)


# "what about my sister, when's her wedding?": the question after the comma, of the one named before it
_WHAT_ABOUT = re.compile(
    r"^\W*(?:and\s+|so\s+)?(?:what|how)\s+about\s+((?:my|our)\s+[\w'’ -]+?|[A-ZÀ-Þ][\w'’-]+)\s*[,;:?!—–-]+\s*"
    r"((?:what|who|where|when|which|how|is|are|does|did|do)\b.*\b(?:he|she|his|her|him)\b.*)$",
    re.IGNORECASE,
)


def followed_up(sit: Situation, question: str, history: Sequence[ModelMessage]) -> tuple[Situation, str]:
    """A question that goes on from the thread, read as a question of its own: a pronoun becomes the one
    the thread named last ("what does he teach?" → "what does Jonas teach?", "where does she live?" after
    "Your mum's birthday is on 14 March." → "where does my mum live?"), and the kind is what the question
    alone is ("what does Jonas do?" asks about Jonas, whom memory may know). Without this, a follow-up went
    to the model with the thread, which invented a woodworking career for Jonas."""
    resolved = _unelided(question, history)
    said = _HE_SHE_HIS.search(resolved)
    if not sit.names and said:
        named = _last_named(history, said.group().casefold())
        if named:
            resolved = _HE_SHE_HIS.sub(lambda m: f"{named}'s" if m.group(3) else named, resolved)
    they = _THEY.search(resolved)
    many = _last_many(history, question) if they and not sit.names else ""
    if many:  # "what are their names?" after "…have the twins?": the twins' (the model said "both named Miriam")
        resolved = _THEY.sub(lambda m: f"{many}'" if m[0].casefold() == "their" else many, resolved)
    return read(resolved), resolved


_THEY = re.compile(r"\b(?:they|them|their)\b", re.IGNORECASE)
# the things the person's question was about, said as many: "the twins", "my kids", "our chickens"
_MANY = re.compile(r"\b(?:the|my|our)\s+(?:\w+\s+)?([a-z]{3,}[^s\W]s)\b", re.IGNORECASE)


def _last_many(history: Sequence[ModelMessage], question: str) -> str:
    """The many things the person's last question asked about ("the twins"), or ""."""
    before = [t for t in _thread_texts(history, replies=False) if t.strip() != question.strip()]
    asked = next((t for t in reversed(before) if t.rstrip().endswith("?")), "")
    found = [m for m in _MANY.finditer(asked) if m[1].casefold() not in STOP]
    return found[-1][0] if found else ""


# "when?", "what time?", "and where?" after "where is Jake getting married?": that question, asked with
# these words ("when is Jake getting married?"). Alone, "when?" went to the model with the thread and got
# "I'm sorry for any confusion".
_ELLIPSIS = re.compile(
    r"^\W*(?:(?:and|so|ok|okay|but)\W+)?(what time|what day|what date|when|where|who|how much|how many|how long|why)"
    r"\W*$",
    re.IGNORECASE,
)
_ASKED_WITH = re.compile(
    r"^\W*(?:what time|what day|what date|when|where|who|whom|what|which \w+|how much|how many|how long|why)\b",
    re.IGNORECASE,
)
# "what was it before?" after "what's my marathon goal?": "it" is what that question asked about
_TOPIC = re.compile(
    r"^\W*(?:what|who|where|when|which \w+)(?:['’]s|\s+is|\s+was|\s+are|\s+were)\s+((?:my|our)\s+[\w'’ -]+?)\W*$",
    re.IGNORECASE,
)


def _unelided(question: str, history: Sequence[ModelMessage]) -> str:
    """A question that leaves out what it asks about, said whole from the person's question before."""
    before = [t.strip() for t in _thread_texts(history, replies=False) if t.strip() != question.strip()]
    asked = next((t for t in reversed(before) if t.endswith("?") or _ASKED_WITH.match(t)), "")
    short = _ELLIPSIS.match(question)
    if short and _ASKED_WITH.match(asked):
        return _ASKED_WITH.sub(short[1], asked, count=1)
    topic = _TOPIC.match(asked)
    if topic and len(question.split()) <= 6 and re.search(r"\bit\b", question, re.IGNORECASE):
        return re.sub(r"\bit\b", topic[1], question, count=1, flags=re.IGNORECASE)
    return question


_SHE, _HE = ("she", "her"), ("he", "him", "his")


def _last_named(history: Sequence[ModelMessage], pronoun: str = "") -> str:
    """The one the thread named last (its newest turns first): a name, or who they are to the person
    ("my mum"), or "". Never a month or a weekday: "…on 14 March." then "where does she live?" read
    "where does March live?" and was answered "March lives in Leeds.". A kin word of the other sex than
    the pronoun's is passed over ("my brother" for "she")."""
    other = HIS_KIN if pronoun in _SHE else HER_KIN if pronoun in _HE else ""
    not_so = _called_otherwise(history, pronoun)
    texts = _thread_texts(history)
    replies = set(texts) - set(_thread_texts(history, replies=False))
    for text in reversed(texts):
        found = [(text.rfind(n), n.split()[0]) for n in people_in(text)  # (not "a clinic in Matosinhos")
                 if n.split()[0].casefold() not in STOP | not_so and not is_calendar(n.split()[0])]
        if found and text in replies:  # a reply says whom it is about first: "Your sister Miriam lives in
            return min(found)[1]  # Vienna, she just had twins in October, Paul and Ida." (not Ida)
        found += [(m.start(), f"my {m[1]}") for m in _KIN_SAID.finditer(text)
                  if not (other and re.fullmatch(other, m[2], re.IGNORECASE))]  # fmt: skip
        if found:
            return max(found)[1]
    return ""


def _called_otherwise(history: Sequence[ModelMessage], pronoun: str) -> set[str]:
    """The names (casefolded) the person's own earlier questions in the thread called by a pronoun of the
    other sex than `pronoun`'s: after "how many kids does she have?" of Inês, "what does he do?" is not
    "what does Inês do?" (a real chat, twentieth session)."""
    other = _HE if pronoun in _SHE else _SHE if pronoun in _HE else ()
    called: set[str] = set()
    if not other:  # no pronoun asked of (and `_last_named`'s own calls below ask none): nothing to read
        return called
    for i, m in enumerate(history):
        said = _thread_texts([m], replies=False)
        for p in (p.group().casefold() for t in said for p in _HE_SHE_HIS.finditer(t)):
            if p in other and (name := _last_named(history[:i])):
                called.add(name.casefold())
    return called


def _thread_texts(history: Sequence[ModelMessage], replies: bool = True) -> list[str]:
    """The thread's messages (and, with `replies`, its replies) as said, oldest first, without their date stamps."""
    texts: list[str] = []
    for m in history:
        if isinstance(m, ModelRequest):
            texts += [p.content for p in m.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)]
        elif replies and isinstance(m, ModelResponse):
            texts += [p.content for p in m.parts if isinstance(p, TextPart)]
    return [re.sub(r"^\(\d{4}-\d{2}-\d{2}\)\s*", "", t) for t in texts]


def _names_unsaid(reply: str, message: str, history: Sequence[ModelMessage]) -> bool:
    """Whether a reply that goes on from the thread names someone or something (a name or a number) that
    neither the message nor the thread says: the model's guess ("Pineapple, a rescue greyhound." of Pepper)."""
    thread = _thread_texts(history)
    known = {w.casefold().removesuffix("'s") for w in re.findall(r"[\w'’-]+", " ".join([message, *thread]))}
    named = [n for n in names_in(reply) if n.casefold() not in _INTERJECTIONS] + re.findall(r"\d+", reply)
    echoed = any(" ".join(words(reply)) == " ".join(words(t)) for t in thread)  # a message of the thread said back
    return echoed or any(w.casefold() not in known for n in named for w in n.split())


_INTERJECTIONS = word_set("sure great yes no okay ok well oh hmm thanks hello hi hey absolutely certainly good nice "
                          "wow sorry right indeed of course")  # fmt: skip


def _said_before(history: Sequence[ModelMessage], message: str) -> str:
    """The person's last message in the thread before this one, without its date stamp."""
    earlier = [t for t in _thread_texts(history, replies=False) if t.strip() != message.strip()]
    return earlier[-1].strip() if earlier else ""


# "thanks!", "hi", "ok": nothing to answer, so no model is asked (SmolLM2-135M answered "thanks!" with
# a paragraph on sustainable fashion). The reply is in kind, the way a person would say it.
_GREETING = re.compile(r"^\W*(hi|hello|hey|good (?:morning|evening|afternoon))\b", re.IGNORECASE)
_ACK_REPLIES = (
    (re.compile(r"^\W*(?:thanks?|thank u|thx|ty|cheers)\b", re.IGNORECASE), "You're welcome!"),
    (re.compile(r"^\W*(?:bye|see you|good night)\b", re.IGNORECASE), "Bye for now — I'll remember what you told me."),
    (_GREETING, "{0}! What's on your mind?"),
)


# What the person asks of Reverie itself, answered plainly and the same every time (see `situation.SOCIAL`).
_ABOUT_ME = (
    (re.compile(r"\b(?:who|what) are you|your name\b", re.IGNORECASE),
     "I'm Reverie, a private assistant that runs on this machine and remembers what you tell me."),
    (re.compile(r"\bwhat (?:can|do) you do|how do(?:es)? (?:you|this) work|^\W*help\W*$", re.IGNORECASE),
     "Tell me about your life (people, plans, dates, changes) and ask me about it later: I answer from "
     "what you told me and show where it came from. You can also upload documents, and each night I "
     "suggest changes to how much I recall, for you to approve (/dreams in the browser)."),
    (re.compile(r"\bwh?at['’]?s (?:up|new)\b", re.IGNORECASE), "Not much here. What's on your mind?"),
    (SOCIAL, "I'm well, thanks for asking! What's on your mind?"),
)


def ack_reply(message: str) -> str:
    """The fixed reply to an acknowledgement, a greeting or small talk: "You're welcome!", "Good morning! …"."""
    if SOCIAL.match(message):
        return next(reply for pattern, reply in _ABOUT_ME if pattern.search(message))
    for pattern, reply in _ACK_REPLIES:
        if m := pattern.match(message):
            return reply.format(m.group(m.lastindex or 0).capitalize())
    return "Okay."


_INTRO_CLAUSE = re.compile(r"^\W*(?:i['’]?m|i am|my name is|my name's)\s+[\w'’-]+\s*[,;:—–-]\s*(?=\w)", re.IGNORECASE)


def acknowledgement(message: str) -> str:
    """"Got it" and the first thing the person said about themselves, addressed to them; a greeting
    that says who they are is greeted back ("Hi Sam, nice to meet you!")."""
    name = introduced(message)
    if name and _GREETING.match(message) and len(message.split()) <= 8:
        return f"Hi {name}, nice to meet you! I'll remember that."
    said = [t for t in sentences(message.strip()) if not is_junk(t)]  # not "hey!" of "hey! im priya, just moved…"
    # "hey, I'm Omar. I'm a second-year architecture student…": greeted, and what else they said, said back
    rest = [t for t in said if not (introduced(t) and len(words(without_opener(t))) <= 3)]
    # "I'm Mira, I just moved to Leeds…": the name greeted, the rest said back
    rest = [_INTRO_CLAUSE.sub("", t) if name and introduced(t) == name else t for t in rest]
    if name and rest and rest != said:
        return f"Nice to meet you, {name}! " + acknowledgement(" ".join(rest))
    own = next((t for t in said if is_first_person(t)), said[0] if said else "")
    if not own or len(own) > ACK_MAX_CHARS:
        return "Got it — I'll remember that."
    own = without_filler(own.rstrip(".!"))  # (not "you're allergic to shellfish btw")
    said = second_person(without_opener(own) or own)
    first = re.sub(r"['’]s$", "", said.split(" ", 1)[0])  # ("Tom's actually moving…": Tom)
    if first not in names_in(said):  # "Got it — your cat…", "Got it — his wife…", not "gareth"
        said = said[:1].lower() + said[1:]
    return f"Got it — {said}. I'll remember that."


def _fit(text: str) -> str:
    return text if len(text) <= MAX_CONTENT_CHARS else text[: MAX_CONTENT_CHARS - 1] + "…"
