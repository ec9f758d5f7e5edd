"""Pure normalization of what extractors (LLMs, NER) say about entities and relations.

Models name the same type a dozen ways ("PER", "human", "company") and the same predicate
in any case or tense of spacing; everything stored goes through these functions first so
dedupe and graph queries compare like with like.
"""

from __future__ import annotations

import re
import unicodedata

USER = "User"  # the entity that is the person themself (memory/formation/patterns.py says who becomes it)
ENTITY_TYPES = ("Person", "Organization", "Location", "Product", "Concept", "Event", "Role")
DEFAULT_TYPE = "Concept"
DEFAULT_PREDICATE = "RELATED_TO"
MAX_PREDICATE_CHARS = 64
MAX_NAME_CHARS = 200

_TYPE_SYNONYMS: dict[str, str] = {
    **dict.fromkeys(
        (
            "person",
            "people",
            "human",
            "humans",
            "character",
            "per",
            "individual",
            "man",
            "woman",
            "friend",
            "family",
            "relative",
            "contact",
        ),
        "Person",
    ),
    **dict.fromkeys(
        (
            "organization",
            "organisation",
            "org",
            "company",
            "companies",
            "institution",
            "business",
            "employer",
            "corporation",
            "team",
            "agency",
            "school",
            "university",
            "norp",
        ),
        "Organization",
    ),
    **dict.fromkeys(
        (
            "location",
            "place",
            "city",
            "country",
            "gpe",
            "loc",
            "town",
            "region",
            "address",
            "fac",
            "facility",
            "venue",
            "state",
        ),
        "Location",
    ),
    **dict.fromkeys(("product", "device", "tool", "software", "app", "brand", "item", "object"), "Product"),
    **dict.fromkeys(("event", "meeting", "holiday", "trip", "appointment", "occasion"), "Event"),
    **dict.fromkeys(("role", "job", "title", "position", "occupation", "profession"), "Role"),
    **dict.fromkeys(("concept", "idea", "topic", "thing", "misc", "other", "skill", "hobby"), "Concept"),
}
_ARTICLES = frozenset({"the", "a", "an"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_WORD = re.compile(r"[^A-Z0-9]+")
_SPACE = re.compile(r"\s+")


def normalize_type(raw: str | None) -> str:
    """One of ENTITY_TYPES for whatever an extractor called the type; unknown → "Concept".

    >>> normalize_type("GPE"), normalize_type("people"), normalize_type("spaceship")
    ('Location', 'Person', 'Concept')
    """
    key = _SPACE.sub(" ", (raw or "").strip().casefold().replace("_", " "))
    if key in _TYPE_SYNONYMS:
        return _TYPE_SYNONYMS[key]
    # "Organizations", "Cities" and "Software Product": try the singular, then each word.
    singular = key.removesuffix("ies") + "y" if key.endswith("ies") else key.removesuffix("s")
    for candidate in (singular, *reversed(key.split())):
        if candidate in _TYPE_SYNONYMS:
            return _TYPE_SYNONYMS[candidate]
    return DEFAULT_TYPE


def normalize_predicate(raw: str | None) -> str:
    """UPPER_SNAKE_CASE ASCII predicate, at most 64 characters; empty → "RELATED_TO".

    >>> normalize_predicate("lives in"), normalize_predicate("worksAt"), normalize_predicate("  -- ")
    ('LIVES_IN', 'WORKS_AT', 'RELATED_TO')
    """
    text = unicodedata.normalize("NFKD", raw or "").encode("ascii", "ignore").decode()
    text = _NON_WORD.sub("_", _CAMEL.sub("_", text).upper()).strip("_")
    # A leading digit would make an awkward identifier in any engine's rel-type namespace.
    text = text.lstrip("0123456789_")[:MAX_PREDICATE_CHARS].rstrip("_")
    return text or DEFAULT_PREDICATE


def clean_name(raw: str) -> str:
    """A display name: whitespace (newlines included) collapsed, trimmed, at most 200 characters."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", raw)).strip()[:MAX_NAME_CHARS].strip()


def name_key(name: str) -> str:
    """The dedupe key of a name: casefolded, accents, punctuation, possessives and leading articles gone.

    >>> name_key("The Acme, Inc."), name_key("Ana's"), name_key("  JOSÉ  ")
    ('acme inc', 'ana', 'jose')
    """
    text = unicodedata.normalize("NFKD", name.casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    # Possessives before punctuation goes, or "ana's" would become "ana s".
    text = re.sub(r"(\w)['’]s\b", r"\1", text)
    text = "".join(ch if ch.isalnum() else " " for ch in text)
    words = text.split()
    if len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    return " ".join(words)


# Roles a person can hold at once: a colleague may be a friend, a neighbour or the boss. Kin, partners
# and pets are each one role: a sister is not also a colleague or a mother in what people tell.
_SOCIAL_ROLES = frozenset({"friend", "best friend", "colleague", "boss", "roommate", "flatmate", "neighbour"})
# What a name's qualifier says the person is to the user: "Ana from work", "Ana from the office".
ROLE_QUALIFIERS = {"work": "colleague", "the office": "colleague", "my office": "colleague", "my team": "colleague"}


def roles_agree(a: str, b: str) -> bool:
    """Whether one person can be both: the same role, or two social ones.

    >>> roles_agree("friend", "colleague"), roles_agree("sister", "colleague"), roles_agree("sister", "sister")
    (True, False, True)
    """
    return a == b or (a in _SOCIAL_ROLES and b in _SOCIAL_ROLES)
