"""Signals in a user's message that the previous answer lacked context the user had already given."""

from __future__ import annotations

import re
from typing import Literal

FollowupKind = Literal["explicit_reference", "repeated_question"]

# Phrases that point back at something the user believes the assistant already has. Kept to
# unambiguous forms: a bare "I said" or "remember" is too common in ordinary messages.
_REFERENCE = re.compile(
    r"\b(?:"
    r"(?:as|like) i (?:said|mentioned|told you|explained)"
    r"|i(?: have|'ve)? already (?:told|said|mentioned|explained)"
    r"|i mentioned"
    r"|i told you"
    r"|remember when"
    r"|did you forget"
    r"|(?:have you|you've|you) forgotten"
    r"|you forgot"
    r"|we(?: have|'ve)? (?:already )?(?:talked|spoke|spoken) about"
    r"|we(?: have|'ve)? (?:already )?discussed"
    r")\b",
    re.IGNORECASE,
)
_SPACES = re.compile(r"\s+")
_TOKEN = re.compile(r"\w+")
REPEAT_MIN_TOKENS = 4
REPEAT_MIN_JACCARD = 0.8


# Contractions are expanded so "what's" repeats "what is"; the possessive "'s" is left alone.
_CONTRACTIONS = (
    (re.compile(r"\b(what|who|where|when|how|that|it|there|he|she)'s\b"), r"\1 is"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'m\b"), " am"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"'ll\b"), " will"),
)


def _tokens(text: str) -> frozenset[str]:
    text = text.casefold().replace("’", "'")
    for pattern, expansion in _CONTRACTIONS:
        text = pattern.sub(expansion, text)
    # Dropping the remaining apostrophes keeps "sister's" one token, so punctuation cannot hide a repeat.
    return frozenset(_TOKEN.findall(text.replace("'", "")))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b)


def followup_signal(message: str, previous_user_messages: list[str]) -> FollowupKind | None:
    """Tell whether a message suggests the assistant was missing context, and how.

    Args:
        message: the user's new message.
        previous_user_messages: the user's earlier messages in the thread, without ``message``.

    Returns:
        "explicit_reference" when the user points back ("as I said", "did you forget", …),
        "repeated_question" when the message nearly repeats an earlier one (token Jaccard ≥ 0.8,
        both with at least 4 distinct tokens, since short replies like "ok thanks" repeat by nature),
        otherwise None.
    """
    normalized = _SPACES.sub(" ", message.replace("’", "'"))
    if _REFERENCE.search(normalized):
        return "explicit_reference"
    tokens = _tokens(message)
    if len(tokens) < REPEAT_MIN_TOKENS:
        return None
    for previous in previous_user_messages:
        earlier = _tokens(previous)
        if len(earlier) >= REPEAT_MIN_TOKENS and _jaccard(tokens, earlier) >= REPEAT_MIN_JACCARD:
            return "repeated_question"
    return None
