"""Token estimates for budgets and the turn log, and the content words of a query.

One estimate everywhere (about four characters a token for English) keeps budgets
comparable across backends: the embedded model and an Ollama model tokenize differently,
and calling a tokenizer on every packed item would cost more than the estimate saves.
"""

from __future__ import annotations

import math
import re

# Function words carry no evidence and make FTS5 match nearly every row; the list is short on
# purpose (negations and numbers stay, they change meaning).
_STOPWORDS = frozenset(
    """a about after all also am an and any are as at be been before being but by can could did do
    does doing for from had has have having he her here hers him his how i if in into is it its
    just me my of on or our ours she so some than that the their them then there these they this
    those to too up us was we were what when where which while who whom why will with would you
    your yours""".split()  # noqa: SIM905 -- a word list reads better as text
)
_WORD = re.compile(r"[0-9A-Za-z\u00C0-\uFFFF]+")

# Irregular English verbs, each past form to its base: "grew up" meets "grow up", "bought" meets "buy",
# "wrote" meets "write" (capabilities/situation.py `stem`, memory/documents/joins.py `stems`).
IRREGULAR = {
    past: base
    for line in (
        "grow grew grown", "meet met", "get got gotten", "go went gone", "buy bought", "sell sold", "run ran",
        "take took taken", "give gave given", "come came", "see saw seen", "begin began begun", "bring brought",
        "think thought", "tell told", "say said", "make made", "leave left", "feel felt", "keep kept",
        "teach taught", "catch caught", "fall fell fallen", "fly flew flown", "drive drove driven",
        "write wrote written", "eat ate eaten", "speak spoke spoken", "break broke broken", "choose chose chosen",
        "sing sang sung", "swim swam swum", "win won", "lose lost", "pay paid", "build built", "send sent",
        "spend spent", "sleep slept", "hear heard", "hold held", "stand stood", "wear wore worn",
        "become became", "ride rode ridden", "read", "have had", "do did done", "is was were been",
    )
    for base, *forms in [line.split()]
    for past in forms
}  # fmt: skip


def estimate_tokens(text: str) -> int:
    """Estimated token count of `text` (0 for the empty string)."""
    return math.ceil(len(text) / 4) if text else 0


def query_terms(query: str) -> list[str]:
    """Content words of a query, lower-cased, de-duplicated, in order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(query.lower()):
        if word not in _STOPWORDS and len(word) > 1:
            seen.setdefault(word, None)
    return list(seen)
