"""Conversation structure in recall: re-ranking fused hits by who said what, where and when.

Every search (`MemoryIndex.search`: the chat's assembly, SEARCH_MEMORIES, the policy path's
rounds, the LoCoMo server) takes the candidates of `memory/recall/hybrid.py` and applies, in order:

1. session support: a turn in a thread that matches the question in several places rises;
2. neighbours: each of the best hits brings its adjacent turns in just behind it;
3. speaker prior: a memory said by someone the question is about rises (its lift also counts in
   its thread's support in step 1), unless the question's content points at someone else's turn
   (`speaker_weight`: by score; `holds_less`: by the question's words).

All three work on log-odds; hybrid.py then maps the result back to a calibrated relevance.

Who said a memory is `meta["speaker"]` (the LoCoMo server stores the speaker's name); a question
is about the speakers it names. The lift is centred on the candidates (`speaker_lift`): memories
said by the ones asked about gain what the others lose, so the prior moves relevance between
candidates and never inflates it (the calibration in hybrid.py is fitted on the centred score).

In the app every `turn` memory is the person's own message (assistant replies are never stored)
and carries no speaker, so the prior does not apply there: the person already is the speaker of
every turn. A prior for the person's words on first-person questions was built and measured
(docs/benchmarks.md, "One recall path"): it could only move the person's words ahead of a
document's chunks, and it lost document answers ("what date is my cataract operation?" is in the
hospital letter), so it is not shipped.

When the question names a speaker, the text that is embedded has the name replaced by "someone"
(`without_names`): who said it is the prior's job, and the name otherwise pulls the query vector
toward every turn that mentions or addresses that person. `rerank` runs the three steps;
`ConversationLookups` reads the threads, speakers, dates and adjacent turns they need.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import Any

import numpy as np
from sqlalchemy import Engine, text

from memory.db.engine import ids_clause, in_clause
from memory.db.postgres import json_text
from memory.recall import dates
from memory.recall.dates import Span
from memory.tokens import query_terms

# How many top hits lend their score to their neighbouring turns.
NEIGHBOUR_ANCHORS = 30
# A neighbour's log-odds are its anchor's minus this (measured: 1.0-2.0 all gain ~1 point).
NEIGHBOUR_PENALTY = 1.5
# A turn gains this share of the log-sum-exp of its thread's candidate log-odds (evidence
# clusters in one session). LoCoMo dev at 1,024 tokens: 78.6 without, 79.7 / 80.0 / 81.6 / 81.7 /
# 81.3 at 0.15 / 0.3 / 0.6 / 1.0 / 1.5 (docs/benchmarks.md).
SESSION_WEIGHT = 0.6
# Log-odds a turn gains when the question names its speaker (`meta["speaker"]`). On LoCoMo dev,
# 94-100 % of the evidence of a question naming one participant is that participant's turns (who
# said half of all turns). With all of this module, R@1024t 81.6 without, 83.5 / 84.2 / 85.0 /
# 85.4 / 85.4 at 0.5 / 1.0 / 1.5 / 2.0 / 3.0 (multi-hop 53.7 -> 63.6 at 1.5); above 1.5 the
# adversarial questions, which name the wrong person on purpose, fall (94.1 at 1.5, 90.3 at 2.0,
# 83.8 at 3.0). Lifting the turns before the neighbour step lost ground: the other speaker's
# neighbours inherited the lift. 0 turns the speaker handling off, `without_names` included.
SPEAKER_WEIGHT = 1.5
# The prior yields to the question's content: it loses what the best candidate said by someone the
# question does not name outscores the best said by a named speaker, beyond this margin in fused
# log-odds (`speaker_weight`): "What did Melanie realize after her charity race?" when Caroline ran
# it. LoCoMo dev through the chat's assembly: adversarial R@1 10.5 -> 32.1 (35.7 at margin 0, which cost
# 0.6 at 1,024 tokens; 0.5 keeps 77.8), docs/benchmarks.md "Thirteenth session".
SPEAKER_MARGIN = 0.5
# The prior also needs the named speaker's words to hold the question's content (`holds_less`): when
# a candidate said by someone the question does not name holds more than CONTENT_LEAD more of its
# content words (cut to STEM letters) than any candidate the named speaker said, the name gives no
# lift. LoCoMo dev through the chat's assembly: adversarial R@1 32.1 -> 34.6 (BM25 33.1), every
# conversation up, R@1024t and every category unchanged; a lead of 0 gave 38.6 but lost 0.1 at
# 1,024 tokens (docs/benchmarks.md, "Fifteenth session: the adversarial rule").
CONTENT_LEAD = 1
STEM = 5


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1.0 - 1e-9)
    return math.log(p / (1.0 - p))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


def lift(p: float, by: float, scale: float = 1.0, offset: float = 0.0) -> float:
    """A probability moved in log-odds: sigmoid(scale * logit(p) + by + offset)."""
    return _sigmoid(scale * _logit(p) + by + offset)


def with_session_support(
    scored: Sequence[tuple[int, float]],
    threads: dict[int, str | None],
    weight: float,
    lift: dict[int, float] | None = None,
) -> list[tuple[int, float]]:
    """Re-score each candidate by its log-odds plus `weight` x the log-sum-exp of the log-odds of
    all candidates in its thread (itself included; a memory with no thread is its own group), so
    a turn in a session that matches the question in several places rises. `lift` adds log-odds
    to what a candidate contributes to its thread (the speaker prior), not to its own score.
    Best first."""
    lift = lift or {}
    keyed = [(mid, threads.get(mid) or ("own", mid), _logit(rel)) for mid, rel in scored]
    groups: dict[object, list[float]] = {}
    for mid, key, z in keyed:
        groups.setdefault(key, []).append(z + lift.get(mid, 0.0))
    support = {key: float(np.logaddexp.reduce(z)) for key, z in groups.items()}
    boosted = [(mid, _sigmoid(z + weight * support[key])) for mid, key, z in keyed]
    return sorted(boosted, key=lambda kv: (-kv[1], kv[0]))


def with_neighbours(
    ranked: Sequence[tuple[int, float]], neighbours: dict[int, list[int]], penalty: float
) -> list[tuple[int, float]]:
    """Add each hit's conversational neighbours just behind it, `penalty` lower in log-odds.

    The evidence for a question is often the turn next to the best match (the answer to a
    question, a follow-up), so a neighbour inherits its anchor's relevance discounted in
    log-odds (a probability scale would barely separate 0.99 from 0.9). Each id keeps its
    best score; the result is sorted best first.
    """
    best: dict[int, float] = {}
    for mid, score in ranked:
        best[mid] = max(best.get(mid, 0.0), score)
        odds = max(score, 1e-9) / max(1.0 - score, 1e-9) * math.exp(-penalty)
        for nid in neighbours.get(mid, []):
            best[nid] = max(best.get(nid, 0.0), odds / (1.0 + odds))
    return sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))


def named_speakers(
    query_terms: Sequence[str], speakers: Iterable[str | None], words: Callable[[str], list[str]]
) -> set[str]:
    """The speakers a query names: those whose name's content words (`words(name)`, the same
    tokenizer that gave `query_terms`) all occur in the query. A name made only of stopwords
    ("Will") never matches; a first name alone does not match "Mary Ann"."""
    terms = set(query_terms)
    named = set()
    for name in {s for s in speakers if s}:
        parts = words(name)
        if parts and terms.issuperset(parts):
            named.add(name)
    return named


def without_names(query: str, names: Iterable[str], neutral: str = "someone") -> str:
    """The query with each of these names (whole words, any case) replaced by `neutral`
    ("What do Melanie's kids like?" -> "What do someone's kids like?")."""
    for name in names:
        query = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", neutral, query, flags=re.IGNORECASE)
    return query


def speaker_lift(ids: Sequence[int], speakers: dict[int, str | None], named: set[str], weight: float) -> float:
    """The share of `weight` every candidate gives up so that the prior is centred: the mean lift
    over the candidates is 0 (module docstring). `weight` x the share of `ids` said by `named`."""
    return weight * sum(speakers.get(m) in named for m in ids) / len(ids) if ids and named else 0.0


def speaker_weight(
    scored: Sequence[tuple[int, float]], speakers: dict[int, str | None], named: set[str], weight: float, margin: float
) -> float:
    """The prior's weight for this question: `weight`, less whatever the best of `scored` (fused,
    before any prior) said by someone not in `named` outscores the best said by one in `named`
    beyond `margin` log-odds (`SPEAKER_MARGIN`); never below 0. The further the question's content
    points at someone else's turn, the less the name decides. None of the named speakers' turns
    among the candidates: 0."""
    best_named = max((_logit(s) for m, s in scored if speakers.get(m) in named), default=None)
    if best_named is None:
        return 0.0
    best_other = max((_logit(s) for m, s in scored if speakers.get(m) not in named), default=best_named)
    return max(0.0, weight - max(0.0, best_other - best_named - margin))


def stem(word: str) -> str:
    """A word's first five letters, a plural's "s" dropped first: "painting" and "paint", "movies"
    and "movie" count as one word (truncation, the crudest stemmer that works in English)."""
    return word.removesuffix("s")[:STEM] if STEM else word


def holds_less(
    texts: dict[int, str], speakers: dict[int, str | None], named: set[str], terms: Sequence[str]
) -> bool:
    """Whether the best of these memories (`texts`) said by someone not in `named` holds more than
    CONTENT_LEAD more of the question's content words (`terms`, the names left out) than the best
    said by one in `named`: then the question's words point at someone else, whatever name it gives
    ("What did Melanie realize after her charity race?" when Caroline ran it)."""
    wanted = {stem(t) for t in terms}
    if not wanted:
        return False
    best = {True: 0, False: 0}
    for mid, body in texts.items():
        held = len(wanted.intersection(map(stem, query_terms(body))))
        key = speakers.get(mid) in named
        best[key] = max(best[key], held)
    return best[False] > best[True] + CONTENT_LEAD


def with_speaker_prior(
    ranked: Sequence[tuple[int, float]],
    speakers: dict[int, str | None],
    named: set[str],
    weight: float,
    centre: float = 0.0,
) -> list[tuple[int, float]]:
    """Raise the log-odds of each memory whose speaker is in `named` (the people the question is
    about) by `weight`, every memory's lowered by `centre` (`speaker_lift`); best first. Applied
    after `with_neighbours`, so a neighbour is judged by who said it, not by who said its anchor.
    No named speaker leaves the order as it is."""
    if not named or not weight:
        return list(ranked)
    lifted = [(mid, _sigmoid(_logit(s) + weight * (speakers.get(mid) in named) - centre)) for mid, s in ranked]
    return sorted(lifted, key=lambda kv: (-kv[1], kv[0]))


def rerank(
    lookups: ConversationLookups,
    user_id: int,
    scored: Sequence[tuple[int, float]],
    named: set[str],
    terms: Sequence[str] = (),
) -> list[tuple[int, float]]:
    """Fused (id, relevance) candidates, best first, re-ranked by session support, neighbour turns
    and the prior for the speakers the question is about (`named`, possibly empty; `terms` are the
    question's content words without the names, `holds_less`)."""
    ids = [m for m, _ in scored]
    speakers = lookups.speakers(user_id, ids) if named else {}
    weight = speaker_weight(scored, speakers, named, SPEAKER_WEIGHT, SPEAKER_MARGIN) if named else 0.0
    if weight and terms and holds_less(lookups.texts(user_id, ids), speakers, named, terms):
        weight = 0.0
    named = named if weight else set()
    centre = speaker_lift(ids, speakers, named, weight)
    lift = {m: weight * (speakers.get(m) in named) - centre for m in ids} if centre else {}
    supported = with_session_support(scored, lookups.threads(user_id, ids), SESSION_WEIGHT, lift)
    anchors = supported[:NEIGHBOUR_ANCHORS]
    spread = with_neighbours(anchors, lookups.neighbours(user_id, [m for m, _ in anchors]), NEIGHBOUR_PENALTY)
    seen = {m for m, _ in spread}
    ranked = spread + [(m, rel) for m, rel in supported if m not in seen]
    if not named:
        return ranked
    speakers |= lookups.speakers(user_id, [m for m in seen if m not in speakers])
    return with_speaker_prior(ranked, speakers, named, weight, centre)


class ConversationLookups:
    """What conversation mode reads about memories besides their scores: thread, speaker and the
    turns on either side, always for one user's memories."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._speakers: dict[int, tuple[tuple[int, int], list[str]]] = {}  # user -> (generation, names)
        self._pg = engine.dialect.name == "postgresql"  # (no generation counters there: no cache)

    def _meta(self, key: str) -> str:
        """The SQL for `meta[key]` as text in this dialect (a fixed key, never user text)."""
        return json_text(self._engine, "meta", key)

    def threads(self, user_id: int, ids: Sequence[int]) -> dict[int, str | None]:
        """The thread of each of these (this user's) memories."""
        return {m: t if isinstance(t, str) else None for m, t in self._column(user_id, ids, "thread_id").items()}

    def named_speakers(self, user_id: int, query: str) -> set[str]:
        """The speakers of this user's active turns (`meta["speaker"]`) that the query names.

        The distinct names are kept per user until a memory changes (`memory_generations`, the
        counters the sketch cache reads): the scan costs 2 ms at 10k turns, ~20 ms at 100k."""
        return named_speakers(query_terms(query), self._names(user_id), query_terms)

    def _names(self, user_id: int) -> list[str]:
        sql = (
            f"SELECT DISTINCT {self._meta('speaker')} FROM memories "
            "WHERE user_id = :u AND status = 'active' AND kind = 'turn' AND meta IS NOT NULL"
        )
        with self._engine.connect() as conn:
            row = None if self._pg else conn.execute(
                text("SELECT inserts, changes FROM memory_generations WHERE user_id = :u"), {"u": user_id}
            ).first()
            generation = (int(row[0]), int(row[1])) if row else (0, 0)
            cached = self._speakers.get(user_id)
            if cached is None or cached[0] != generation or self._pg:
                names = [s for (s,) in conn.execute(text(sql), {"u": user_id}) if isinstance(s, str)]
                cached = self._speakers[user_id] = (generation, names)
        return cached[1]

    def texts(self, user_id: int, ids: Sequence[int]) -> dict[int, str]:
        """The text of each of these (this user's) memories."""
        return {m: str(v) for m, v in self._column(user_id, ids, "content").items()}

    def speakers(self, user_id: int, ids: Sequence[int]) -> dict[int, str | None]:
        """Who said each of these (this user's) memories: `meta["speaker"]`, None when unknown."""
        found = self._column(user_id, ids, self._meta("speaker"))
        return {m: s if isinstance(s, str) else None for m, s in found.items()}

    def _column(self, user_id: int, ids: Sequence[int], expression: str) -> dict[int, Any]:
        """`expression` (a fixed SQL expression, never user text) for each of these (this user's) memories."""
        if not ids:
            return {}
        params: dict[str, Any] = {"u": user_id}
        by_key = ids_clause(self._engine, "id", ids, params)
        sql = f"SELECT id, {expression} FROM memories WHERE +user_id = :u{by_key}"
        with self._engine.connect() as conn:
            return {int(m): v for m, v in conn.execute(text(sql), params)}

    def dates(self, user_id: int, ids: Sequence[int]) -> dict[int, list[Span]]:
        """The days each of these (this user's) memories is about: the day it was said, and the days
        its relative words point at (`meta["dates"]`, resolved at write time: memory/recall/dates.py)."""
        said = "to_char(created_at, 'YYYY-MM-DD')" if self._pg else "created_at"
        found = self._column(user_id, ids, f"{said} || '|' || coalesce({self._meta('dates')}, '[]')")
        out: dict[int, list[Span]] = {}
        for mid, value in found.items():
            said, _, more = str(value).partition("|")
            day = date.fromisoformat(said[:10])
            out[mid] = [(day, day), *dates.decode(json.loads(more))]
        return out

    def neighbours(self, user_id: int, ids: Sequence[int]) -> dict[int, list[int]]:
        """The previous and next active turn in the same thread for each id (by id order)."""
        if not ids:
            return {}
        params: dict[str, Any] = {"u": user_id}
        chosen = in_clause("id", ids, params).removeprefix(" AND ")
        sql = (
            "WITH t AS (SELECT id, LAG(id) OVER w AS prev, LEAD(id) OVER w AS next FROM memories "
            "WHERE user_id = :u AND status = 'active' AND kind = 'turn' AND thread_id IN "
            f"(SELECT thread_id FROM memories WHERE +user_id = :u AND {chosen}) "
            f"WINDOW w AS (PARTITION BY thread_id ORDER BY id)) SELECT id, prev, next FROM t WHERE {chosen}"
        )
        with self._engine.connect() as conn:
            rows = conn.execute(text(sql), params)
            return {int(m): [int(x) for x in (p, n) if x is not None] for m, p, n in rows}
