"""Conversation mode: re-ranking fused recall hits by the structure of a conversation.

`MemoryIndex.search(..., neighbours=True)` takes the calibrated candidates of `memory/recall.py`
and applies, in order:

1. session support: a turn in a thread that matches the question in several places rises;
2. neighbours: each of the best hits brings its adjacent turns in just behind it;
3. speaker prior: a turn said by someone the question names rises (its lift also counts in
   its thread's support in step 1).

All three work on log-odds. When the question names a speaker, the text that is embedded has the
name replaced by "someone" (`without_names`): who said it is the prior's job, and the name
otherwise pulls the query vector toward every turn that mentions or addresses that person.
The result orders hits well (docs/benchmarks.md, "LoCoMo recall") but is no longer the
calibrated relevance that SIMILARITY_THRESHOLD is defined on.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np

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


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1.0 - 1e-9)
    return math.log(p / (1.0 - p))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


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


def with_speaker_prior(
    ranked: Sequence[tuple[int, float]], speakers: dict[int, str | None], named: set[str], weight: float
) -> list[tuple[int, float]]:
    """Raise the log-odds of each memory whose speaker is in `named` (the people the question
    names) by `weight`; best first. Applied after `with_neighbours`, so a neighbour is judged by
    who said it, not by who said its anchor. No named speaker leaves the order as it is."""
    if not named or not weight:
        return list(ranked)
    lifted = [(mid, _sigmoid(_logit(s) + weight) if speakers.get(mid) in named else s) for mid, s in ranked]
    return sorted(lifted, key=lambda kv: (-kv[1], kv[0]))
