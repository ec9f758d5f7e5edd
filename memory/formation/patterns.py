"""Facts and (subject, predicate, object) triples from what the user said: types, rules, fallback.

Pure: no storage, no model. It holds what every extractor shares (the `Extraction` shape, the
`Extractor` protocol, predicate canonicalization and the functional-predicate rule) and the
deterministic pattern extractor, which formation runs first (memory/formation/plan.py, `_merged`).
The check that turns a small model's output into something safe to store is memory/formation/grounding.py.

The user is the entity named `USER` ("User", alias "me"): extractors may say "I", "me", "my",
"user" or "the user" and all of them become that one entity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from memory.graph.names import ROLE_QUALIFIERS, USER, clean_name, name_key, normalize_predicate

USER_ALIASES = ("me",)
_USER_KEYS = frozenset({"i", "me", "my", "myself", "mine", "user", "the user", "users", "user s", "speaker"})
MAX_ITEMS = 5
MAX_FACT_CHARS = 300

# A functional predicate holds at most one object per subject at a time: a new object
# supersedes the old one (moving, changing jobs). Allergies, likes and family are not
# functional: a second allergy adds to the first. Negations are not modelled here.
FUNCTIONAL_PREDICATES = frozenset(
    {"LIVES_IN", "WORKS_AT", "STUDIES_AT", "MARRIED_TO", "HAS_JOB_TITLE", "HAS_AGE", "HAS_NAME", "BORN_IN"}
)
_PREDICATE_SYNONYMS = {
    **dict.fromkeys(re.findall(r"\S+", "MOVED_TO MOVED_BACK_TO LIVE_IN LIVING_IN RESIDES_IN RESIDE_IN"), "LIVES_IN"),
    **dict.fromkeys(("BASED_IN", "RELOCATED_TO", "IS_LIVING_IN", "LIVES_AT"), "LIVES_IN"),
    **dict.fromkeys(("WORK_AT", "WORKS_FOR", "WORK_FOR", "EMPLOYED_AT", "EMPLOYED_BY", "IS_EMPLOYED_AT"), "WORKS_AT"),
    **dict.fromkeys(("STUDY_AT", "STUDIES_IN", "ATTENDS", "GOES_TO_SCHOOL_AT"), "STUDIES_AT"),
    **dict.fromkeys(("IS_MARRIED_TO", "WIFE_OF", "HUSBAND_OF", "SPOUSE_OF"), "MARRIED_TO"),
    **dict.fromkeys(("ALLERGIC_TO", "HAS_ALLERGY", "HAS_ALLERGY_TO", "IS_ALLERGIC"), "IS_ALLERGIC_TO"),
    **{verb: verb + "S" for verb in ("LIKE", "LOVE", "HATE", "ENJOY", "DISLIKE", "PREFER")},
}


@dataclass(frozen=True)
class Triple:
    """One (subject, PREDICATE, object) statement with the entity types of both ends."""

    subject: str
    predicate: str
    object: str
    subject_type: str = "Concept"
    object_type: str = "Concept"


@dataclass(frozen=True)
class Extraction:
    """What an extractor found in one message: facts about the user, triples, names mentioned."""

    facts: tuple[str, ...] = ()
    triples: tuple[Triple, ...] = ()
    mentions: tuple[tuple[str, str], ...] = field(default=())  # (name, type) with no relation

    @property
    def empty(self) -> bool:
        """Whether nothing at all was found."""
        return not (self.facts or self.triples or self.mentions)


class Extractor(Protocol):
    """Anything that turns one message into an `Extraction` (None: it could not)."""

    def extract(self, text: str, speaker: str, when: datetime) -> Extraction | None:
        """Facts and triples in `text`, said by `speaker` at `when`; None when it failed."""
        ...


def canonical_predicate(raw: str) -> str:
    """UPPER_SNAKE predicate with synonyms folded ("moved to" → LIVES_IN)."""
    pred = normalize_predicate(raw)
    return _PREDICATE_SYNONYMS.get(pred, pred)


def is_functional(predicate: str) -> bool:
    """Whether a new object for this predicate supersedes the subject's current one."""
    return canonical_predicate(predicate) in FUNCTIONAL_PREDICATES


def canonical_entity(name: str) -> str:
    """The display name to store: "I", "me", "the user" … become `USER`."""
    clean = clean_name(name).strip(" .,;:!?\"'")
    return USER if name_key(clean) in _USER_KEYS else clean


# -- third person --------------------------------------------------------------------------------

_VERBS = {"have": "has", "do": "does", "go": "goes", "am": "is", "was": "was"}
_REGULAR = frozenset(
    re.findall(
        r"\S+",
        """work live like love hate enjoy prefer want need study own play speak dislike teach drive eat
        drink run use know plan visit miss adore write read cook think feel""",
    )
)
_PRONOUNS = [
    (re.compile(r"\bI'?m\b|\bI am\b", re.I), "the user is"),
    (re.compile(r"\bI'?ve\b", re.I), "the user has"),
    (re.compile(r"\bI'?ll\b", re.I), "the user will"),
    (re.compile(r"\bI'?d\b", re.I), "the user would"),
    (re.compile(r"\bmyself\b", re.I), "themself"),
    (re.compile(r"\bmine\b", re.I), "the user's"),
    (re.compile(r"\bmy\b", re.I), "the user's"),
    (re.compile(r"\bme\b", re.I), "the user"),
    (re.compile(r"\bI\b"), "the user"),
]
_USER_VERB = re.compile(r"\bthe user (really |also |still |now )?([a-z]+)\b")


# Chat words a message may end on, no part of what it tells: "I'm allergic to shellfish btw", "…older than us lol"
_FILLER_TAIL = re.compile(r"(?:[\s,]+(?:btw|lol|haha+|tbh|fyi|lmao|xx?|:\)|:D))+[\s.!]*$", re.IGNORECASE)


def without_filler(text: str) -> str:
    """A message without the chat words it ends on ("I'm allergic to shellfish btw": "…to shellfish")."""
    return _FILLER_TAIL.sub("", text)


def third_person(sentence: str) -> str:
    """A first-person sentence as a third-person fact about the user, capitalized, with a full stop.

    >>> third_person("I'm allergic to peanuts")
    'The user is allergic to peanuts.'
    >>> third_person("I'm allergic to shellfish btw")
    'The user is allergic to shellfish.'
    """
    text = without_filler(" ".join(sentence.split())).rstrip(" .!;,")
    for pattern, repl in _PRONOUNS:
        text = pattern.sub(repl, text)

    def conjugate(m: re.Match[str]) -> str:
        adverb, verb = m.group(1) or "", m.group(2)
        if verb in _VERBS:
            verb = _VERBS[verb]
        elif verb in _REGULAR:
            verb = verb + ("es" if verb.endswith(("s", "sh", "ch", "o")) else "s")
        return f"the user {adverb}{verb}"

    text = _USER_VERB.sub(conjugate, text)
    return (text[:1].upper() + text[1:] + ".") if text else ""


# -- the deterministic fallback ------------------------------------------------------------------

_NAME = r"[A-ZÀ-Þ][\w'’-]*(?:\s+(?:de |da |do |van |von )?[A-ZÀ-Þ][\w'’-]*){0,2}"
# Relation words ("my sister Ana"); on its own, one is no entity name (memory/formation/grounding.py).
RELATIONS = (
    r"best friend|friend|sister|brother|mother|mom|mum|father|dad|wife|husband|partner|boyfriend|"
    r"girlfriend|fianc[ée]e?|son|daughter|boss|colleague|co-?worker|cousin|aunt|uncle|grandmother|"
    r"grandma|grandfather|grandpa|niece|nephew|roommate|flatmate|neighbou?r|dog|cat"
)
_REL_CANON = {"MOM": "MOTHER", "MUM": "MOTHER", "DAD": "FATHER", "GRANDMA": "GRANDMOTHER",
              "GRANDPA": "GRANDFATHER", "COWORKER": "COLLEAGUE", "CO_WORKER": "COLLEAGUE",
              "NEIGHBOR": "NEIGHBOUR", "FIANCEE": "FIANCE"}  # fmt: skip
# "Ana from work": a qualifier that says who someone is to the user (memory/graph/names.ROLE_QUALIFIERS).
_FROM = rf"\s+(?i:from)\s+(?i:{'|'.join(ROLE_QUALIFIERS)})\b"
_SUBJ = rf"(?:(?i:my)\s+(?:{RELATIONS})\s+)?(?P<subj>{_NAME})(?:{_FROM})?"
_ADV = r"(?:(?i:also|just|recently|now|still|currently|really|finally|absolutely)\s+)*"
NATIONALITY = (
    r"(?:Welsh|English|Scottish|Irish|British|French|Dutch|German|Swiss|Austrian|Italian|Spanish|Portuguese|Greek|"
    r"Polish|Czech|Swedish|Danish|Norwegian|Finnish|Russian|Ukrainian|Turkish|American|Canadian|Mexican|Brazilian|"
    r"Argentinian|Chinese|Japanese|Korean|Vietnamese|Thai|Indian|Pakistani|Australian|Nigerian|Kenyan|Egyptian|"
    r"Jewish|Muslim|Christian|Catholic|Vegan|Vegetarian)"
)
_PATTERNS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(rf"{_SUBJ}\s+{_ADV}(?i:moved(?: back)? to|lives? in|(?:is|am) living in|relocated to)"
                rf"\s+(?P<obj>{_NAME})"), "LIVES_IN", "Location"),
    (re.compile(rf"{_SUBJ}\s+{_ADV}(?i:works?|(?:is|am) working|started working|"
                rf"(?:started|got|have|has) a (?:new )?job)\s+(?i:at|for)\s+(?P<obj>{_NAME})"),
     "WORKS_AT", "Organization"),
    (re.compile(rf"{_SUBJ}\s+{_ADV}(?i:stud(?:y|ies)|(?:is|am) studying)\s+(?i:at)\s+(?P<obj>{_NAME})"),
     "STUDIES_AT", "Organization"),
    (re.compile(rf"{_SUBJ}\s*(?:'m|’m|\s(?i:am|is))\s+{_ADV}(?i:from)\s+(?P<obj>{_NAME})"), "FROM", "Location"),
    (re.compile(rf"{_SUBJ}\s*(?:'m|’m|\s(?i:am|is))\s+(?:(?i:also|very|severely|badly)\s+)?(?i:allergic to)"
                r"\s+(?P<obj>[^.,;!?]+)"), "IS_ALLERGIC_TO", "Concept"),
    # A self-introduction: "hiya, I'm Owen.", "I'm Lena, nice to meet you" (not "I'm Welsh").
    (re.compile(rf"^(?:(?i:hi|hello|hey|hiya|heya|hallo)\b[,!]?\s+)?"
                rf"(?:(?i:my name is)\s+|(?P<subj>I)(?:'m|’m|\s(?i:am))\s+)(?!{NATIONALITY}\b)"
                rf"(?P<obj>{_NAME})(?=\s*[,.!;:)]|\s+(?i:here|and)\b|\s*$)"), "HAS_NAME", "Person"),
    (re.compile(rf"(?P<subj>\bI|{_NAME})(?:{_FROM})?\s+{_ADV}(?P<pred>(?i:like|love|hate|enjoy|dislike|adore|prefer))s?\s+"
                r"(?!to\b)(?P<obj>[^.,;!?]+?)(?=\s+(?i:over|rather than|instead of|but)\b|[.,;!?]|$)"), "", "Concept"),
]  # fmt: skip
_HAS_REL = [
    re.compile(rf"(?i:\bmy)\s+(?P<rel>{RELATIONS})(?:,)?\s+(?P<obj>{_NAME})"),
    re.compile(rf"(?P<obj>{_NAME}),?\s+(?i:is)\s+(?i:my)\s+(?P<rel>{RELATIONS})\b"),
    re.compile(rf"(?P<obj>{_NAME})\s+(?i:from)\s+(?P<qual>(?i:{'|'.join(ROLE_QUALIFIERS)}))\b"),
]
_NOT_NAMES = frozenset(
    re.findall(
        r"\S+",
        """yesterday today tomorrow last next this that the a an and but so then also well oh now recently
        actually btw by in on at my our we he she they it you when after before since monday tuesday wednesday
        thursday friday saturday sunday january february march april may june july august september
        october november december""",
    )
)
# A sentence ends at . ! ? or a newline, but not after an initial or a title: "the vet is a Dr.
# Brandt" and "Ursula K. Le Guin" are one sentence ("Brandt." alone was dropped as filler); nor
# after the day of a date written the European way: "last day is 30. June" ("30." alone lost June).
DAY_DOT = r"(?:(?<!\b\d\.)(?<!\b\d\d\.)|(?!\s+(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))"
# (nor after a short abbreviation: "Rs. 68,200", "No. 12", "approx. 3 km", "e.g. the vet")
NOT_AN_END = (
    r"(?<!\b[A-Z]\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bRs\.)(?<!\bNo\.)(?<!\bno\.)"
    r"(?<!\bvs\.)(?<!\bMt\.)(?<!\bJr\.)(?<!\bSr\.)(?<!\bapprox\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)" + DAY_DOT
)  # after . ! ?
_SENTENCE = re.compile(rf"(?<=[.!?]){NOT_AN_END}\s+|\n+")
_CAPITALIZED = re.compile(_NAME)


def _name(raw: str) -> str:
    """A captured name without leading capitalized non-names ("Yesterday Ana" → "Ana")."""
    words = raw.split()
    while words and words[0].casefold() in _NOT_NAMES:
        words = words[1:]
    return canonical_entity(" ".join(words))


def _objects(raw: str) -> list[str]:
    """A lower-case object phrase ("peanuts and shellfish") as short items."""
    items = re.split(r",|\band\b|\bor\b", raw)
    out = []
    for item in items:
        words = [w for w in item.split() if w.casefold() not in ("the", "a", "an", "very", "much", "so")]
        if words and len(words) <= 4:
            out.append(" ".join(words).strip(" '\""))
    return [o for o in out if o]


def sentences(text: str) -> list[str]:
    """The sentences of a message (split on . ! ? and newlines)."""
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def _sentence_triples(sentence: str) -> list[Triple]:
    triples: list[Triple] = []
    for pattern in _HAS_REL:
        for m in pattern.finditer(sentence):
            said = m.groupdict().get("rel") or ROLE_QUALIFIERS[m.group("qual").casefold()]
            rel = normalize_predicate(said)
            obj = _name(m.group("obj"))
            kind = "Concept" if rel in ("DOG", "CAT") else "Person"
            if obj and obj != USER:
                triples.append(Triple(USER, "HAS_" + _REL_CANON.get(rel, rel), obj, "Person", kind))
    for pattern, pred, obj_type in _PATTERNS:
        for m in pattern.finditer(sentence):
            subject = _name(m.group("subj") or "I")  # "my name is Owen" has no subject word
            predicate = pred or canonical_predicate(m.group("pred"))
            objs = _objects(m.group("obj")) if obj_type == "Concept" else [_name(m.group("obj"))]
            triples += [Triple(subject, predicate, o, "Person", obj_type) for o in objs if subject and o]
    return list(dict.fromkeys(triples))


def extract_patterns(text: str) -> Extraction:
    """Facts and triples by fixed patterns: relatives, residence, work, study, origin, allergies, likes.

    Each sentence that yields a triple also yields one fact, the sentence in the third person.
    Capitalized words that are no triple's end become mentions (type "Concept").
    """
    facts: list[str] = []
    triples: list[Triple] = []
    for sentence in sentences(text):
        found = _sentence_triples(sentence)
        if found:
            facts.append(third_person(sentence)[:MAX_FACT_CHARS])
            triples += found
    named = {name_key(n) for t in triples for n in (t.subject, t.object)}
    mentions: dict[str, None] = {}
    for sentence in sentences(text):
        for m in _CAPITALIZED.finditer(sentence, 1):  # the first word is capitalized anyway
            name = _name(m.group(0))
            if name and name != USER and len(name) > 1 and name_key(name) not in named:
                mentions.setdefault(name, None)
    return Extraction(
        tuple(dict.fromkeys(facts))[:MAX_ITEMS],
        tuple(dict.fromkeys(triples))[: MAX_ITEMS * 2],
        tuple((n, "Concept") for n in mentions)[:MAX_ITEMS],
    )


class PatternExtractor:
    """The deterministic `Extractor`: never fails, finds only what its patterns know."""

    def extract(self, text: str, speaker: str, when: datetime) -> Extraction | None:
        """See `extract_patterns`; `speaker` and `when` are unused (patterns read no dates)."""
        del speaker, when
        return extract_patterns(text)
