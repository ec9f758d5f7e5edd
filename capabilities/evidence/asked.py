"""What a question asks (`read_ask`: the terms any answer must hold, the type of answer) and how well a
note holds the kind of answer asked for (`type_level`: a date for "when", a place for "where"…).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from capabilities.evidence.words import (
    _CLOCK,
    _DAY_MONTH,
    _DESCRIPTIVE,
    _KIND_SHAPE,
    _LIGHT_VERBS,
    _NAMED_NOUNS,
    _NAMING_SHAPE,
    _NUMBER_OF,
    _NUMBER_WORDS,
    _PRONOUN,
    _TYPE_NOUNS,
    _WH_HEAD,
    _WH_NOUN,
    _WHO_ROLE,
    KIND,
    NAMING,
    NAMING_STEMS,
    ROLE_STEMS,
    SURNAME,
    AnswerType,
    Ask,
    Note,
    _name_chains,
    _named_beside,
    _named_noun,
    _said,
    _singular,
    answer_type,
    candidates,
    covers,
    is_calendar,
    parts,
    people_in,
)
from capabilities.situation import (
    CATEGORIES,
    DESCRIBERS,
    NAME_WORD,
    STOP,
    Situation,
    key_terms,
    names_in,
    related_stems,
    stem,
    word_set,
    words,
)
from memory.formation.patterns import DAY_DOT, sentences

AGE = word_set("age old")

_ATTRIBUTE_STEMS = NAMING_STEMS | ROLE_STEMS | frozenset(stem(w) for w in AGE) | {SURNAME}

_TYPE_STEMS = frozenset(stem(w) for w in (*_TYPE_NOUNS, *_NAMED_NOUNS))  # "which city…": what is asked, not about

# Nouns after which/what that only point at the answer ("which part do I sing?": alto).
_VAGUE = word_set("part bit piece thing one ones")
# Verbs a question opens on, "what" their subject ("what happened to my bike?"): no noun a note must say
_WH_VERBS = word_set("happen happened happens happening went goes changed changes broke hurts hurt")


def described(text: str) -> set[str]:
    """The words of the descriptions a note gives, lower-cased: "Our dog Biscuit, a very stubborn
    nine-year-old basset hound, thinks…" → very, stubborn, basset, hound… (what "what breed is
    Biscuit?" must be answered with)."""
    found: set[str] = set()
    for m in _KIND_SHAPE.finditer(text):
        tail = re.split(r"[,.;:!?()]", text[m.end() - 1 :], maxsplit=1)[0]
        found |= {w for w in words(tail) if w not in STOP and len(w) > 2}
    return found


# The place a place is in: "which neighbourhood of Leipzig" (the answer need not say Leipzig).
_CONTAINER = re.compile(
    r"\b(?:neighbou?rhood|part|area|district|suburb|side|corner|street|region|village|town)\s+of\s+([A-ZÀ-ÞĀ-Ž][\w-]+)"
    r"|\b(?i:where)\s+in\s+(?:the\s+)?([A-ZÀ-ÞĀ-Ž][\w-]+)"  # "where in Japan…": Kumamoto, Japan unsaid
)
_DID = re.compile(r"\b(?:do|does|did)\s+(?:i|we)\s+(?:\w+ly\s+)?(?:(?:end|ended)\s+up\s+)?([a-z]+)", re.IGNORECASE)
_NAMED_DID = re.compile(r"\b(?:does|did)\s+([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)\s+(?:\w+ly\s+)?([a-z]+)\b")

# how new a thing is, said before the noun a which/what question asks ("which new medicine has been added")
_UD_AGE_WORDS = word_set("new newest latest current recent old older previous former")
_NOW = re.compile(
    r"\b(?:now|these days|currently|at the moment|right now|nowadays|still|anymore|at present|finally|eventually"
    r"|in the end|this (?:year|summer|winter|spring|autumn|fall|season|term)|latest|most recent|newest)\b",
    re.I,
)
# What came before: asked ("before my current job", "my previous flat") and said ("Before that I…").
_PRESENT = re.compile(r"\b(?:do|am|are)\s+(?:i|we)\b", re.IGNORECASE)  # "what preventer am I on?": what is so now
_EARLIER = re.compile(r"\b(?:before|previous|previously|used to|former|formerly|prior)\b", re.IGNORECASE)

_NEGATED = word_set("can't cannot don't doesn't didn't won't shouldn't wouldn't isn't aren't wasn't")

# (a whole word: not "Phil" of "PhilHealth")
_SUBJECT_NAME = re.compile(r"\b(?:does|did|is|was|has|do|are|were)\s+([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)\b")
_NUMBER = re.compile(r"\b\d+(?:[.,:]\d+)?\b")

_DATE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th|\.)?\s+(?:of\s+)?{_DAY_MONTH}\b|\b{_DAY_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    r"|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b",
    re.I,
)  # "10 March", "the 9th of August", "March 10", "10/03/2025"
_DAY_AND_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th|\.)?\s+(?:of\s+)?({_DAY_MONTH})\.?|\b({_DAY_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b",
    re.IGNORECASE,
)


def day_months(text: str) -> set[tuple[int, str]]:
    """The dates a text says as a day and a month ("14 September", "Sept 14th"): (14, "sep")."""
    found = set()
    for m in _DAY_AND_MONTH.finditer(text):
        day, month = (m[1], m[2]) if m[1] else (m[4], m[3])
        found.add((int(day), month[:3].casefold()))
    return found


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
# "the nickname of the kiln", "the name of my sister's dog": what the attribute belongs to is asked about.
_OF_THING = re.compile(
    r"\b(?:name|nickname|age|job|address|birthday)\s+of\s+(?:the\s+|my\s+|your\s+|his\s+|her\s+|their\s+|our\s+)?"
    r"([a-zà-ÿ]+)",
    re.IGNORECASE,
)

# (the head of a compound: "what's the interest rate on our mortgage" asks for the rate)
_WHAT_THE = re.compile(
    r"^\W*what(?:['’]s|\s+is|\s+was|\s+were|\s+are)\s+the\s+([a-z]+)\b"
    r"(?:\s+([a-z]+)(?=\s+(?:on|of|for|at|in|with|now|these|this|today)\b|\s*[?.!]*\s*$))?",
    re.IGNORECASE,
)
_ORDINARY = word_set(
    "latest news deal story plan point matter thing best first last next new old usual current date time"
)  # "what's the latest…", "what's the date…": no thing a note must name


_SV_LIGHT = frozenset(stem(f) for v in _LIGHT_VERBS for f in (v, f"{v}ing", f"{v}{v[-1]}ing"))
# "did we end up buying": how it turned out, no end a note must say ("…by the end of summer")
_SV_END_UP = re.compile(r"\b(?:end|ends|ended|ending)\s+up\b", re.IGNORECASE)
_SV_END = re.compile(r"\b(?:end|ends|ended|ending)\b", re.IGNORECASE)
_NAMED_COMPOUND = re.compile(r"\b[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+['’]s\s+([a-z]+)\s+([a-z]{3,})\b")
_AUX = re.compile(r"\b(?:do|does|did|will|would|can|could|should)\b", re.IGNORECASE)


def read_ask(sit: Situation) -> Ask:
    """The hard terms, attributes and answer type of a question."""
    # "what does Jonas do (for a living)?" asks for a job.
    text = re.sub(r"\bdo\s*\?\s*$", "do for work?", re.sub(r"\bfor an? (?:living|job)\b", "for work", sit.text))
    hard: list[str] = [h for h in sit.heads]
    hard += _name_chains(text)
    for m in _NAMED_COMPOUND.finditer(text):  # "Migo's class adviser": either word may be said ("the new adviser")
        first = stem(m[1])
        after = re.match(r"\s+([a-z]+)", text[m.end():])  # (not "Shireen's graphic design business": longer)
        if (first in hard and m[2].casefold() not in STOP and not m[2].endswith(("ed", "ing"))
                and not _attribute(stem(m[2]))  # (not "Danika's day job": the job is asked as before)
                and not _AUX.search(text[: m.start()]) and not (after and after[1] not in STOP)):
            hard[hard.index(first)] = f"{first}|{stem(m[2])}"  # (not "does Ana's husband work")
    wh = _WH_NOUN.search(text)
    noun = _singular(wh.group(1).casefold()) if wh else ""
    if wh and wh.group(2) and noun in _UD_AGE_WORDS:  # "which new medicine has…": the medicine, not "new"
        noun = _singular(wh.group(2).casefold())
    if (noun and noun not in STOP | _NEGATED | _VAGUE | _WH_VERBS and noun not in _TYPE_NOUNS
            and noun not in _DESCRIPTIVE):
        hard.append(stem(noun))
    # "what was the score at the game…": the score is what a note must say, not just the game
    the = _WHAT_THE.match(text)
    head = the.group(2) if the and the.group(2) and the.group(2).casefold() not in _TYPE_NOUNS else None
    thing = (head or the.group(1)).casefold() if the else ""  # (not "the registration number": a number)
    if thing and thing not in STOP | _VAGUE | _ORDINARY and thing not in _TYPE_NOUNS and thing not in _DESCRIPTIVE:
        hard.append(stem(thing))
    hard += [stem(n) for n in _SUBJECT_NAME.findall(text) if n.casefold() not in STOP]
    # every name the question says, but the place a place is in ("which neighbourhood of Leipzig")
    # (not one in a relative clause: "the club that Carla got me into" is found through the club)
    container = {w.casefold() for m in _CONTAINER.findall(text) for w in m if w}
    relative = {w.casefold() for w in re.findall(r"\b(?:that|who|which|where|whom)\s+(" + NAME_WORD + ")", text[1:])}
    hard += [stem(n.split()[0]) for n in sit.names if n.split()[0].casefold() not in container | relative | STOP
             and not is_calendar(n.split()[0])]  # fmt: skip
    # "who founded…": the predicate itself ("who ended up buying…": buying)
    who = re.match(r"^\W*who\s+(?:(?:ended|ends|end) up\s+|(?:finally|eventually|actually)\s+)?(\w+)", text, re.I)
    if who and who.group(1).casefold() not in STOP:
        hard.append(stem(who.group(1)))
    hard += [n for n in _NUMBER.findall(text)]
    # "the landlord's phone number": the thing numbered is what a note must say, not the landlord alone
    numbered = _NUMBER_OF.search(text) if answer_type(text) == "number" else None
    thing = (numbered[1] or numbered[2] or "").casefold() if numbered else ""
    if thing and thing not in STOP | _VAGUE | _ORDINARY and stem(thing) not in hard:
        hard.append(stem(thing))
    compounds = {part for h in hard if "|" in h for part in h.split("|")}  # "the name of my blood pressure
    hard += [stem(w) for w in _OF_THING.findall(text) if w.casefold() not in STOP and stem(w) not in compounds]
    # doctor": the compound is asked, either of its words may be said ("pressure was 150/95"), not "blood"
    # Attributes: those in a possessive chain ("my sister's profession"), any naming word, an age,
    # a job asked as "for work"; elsewhere ("where do I work?") a word like "work" is a key word.
    attributes = [a for t in dict.fromkeys(hard) for a in t.split("|") if _attribute(a)]
    hard = [t for t in dict.fromkeys(hard) if not any(_attribute(a) for a in t.split("|"))]
    if re.search(r"\bsurname\b", text, re.IGNORECASE) and SURNAME not in attributes:  # "what's fran's surname?"
        attributes.append(SURNAME)  # (of a name typed in lower case: no possessive chain was read)
    placed = _mh_own_place(text, hard)
    hard = [t for t in hard if t not in placed]
    # "my blood type": the type is what a note must say, not "blood pressure 160/95"
    described = {stem(w) for w in _DESCRIPTIVE}
    hard = [t.split("|")[-1] if "|" in t and t.split("|")[-1] in described else t for t in hard]
    # "which contractor is doing our bathroom?": the category of the answer, seldom said beside it
    # ("went with Hanley & Sons"), is a key word, not a must, when nothing else asked is one
    # ("which dealership did we buy the RAV4 from?" still needs a note that says a dealership)
    if noun and hard == [stem(noun)] and not re.search(r"(?<!^)\b[A-ZÀ-ÞĀ-Ž0-9]", text.strip()):
        hard = []  # (a question that names something, a RAV4, an Arbor Glen, keeps it a must)
    # not "the clinic's name"; but "the name of that Ethiopian restaurant" must be said as a name
    attributes += [stem(w) for w in words(text) if w in NAMING and not _named_noun(text, direct=True)]
    attributes += ["old"] if re.search(r"\bhow old\b|\bage\b", text, re.IGNORECASE) else []
    attributes += ["work"] if "for work" in text else []
    attributes += [KIND] if noun in _DESCRIPTIVE and noun not in CATEGORIES else []  # "what colour": its type
    attributes = list(dict.fromkeys(attributes))
    roles_asked = [a for a in attributes if a in ROLE_STEMS]  # "my job title": one thing asked, the job
    attributes = [a for a in attributes if a not in roles_asked[1:]]
    # "which city", "what breed": the answer's type or description, not a word a note must say
    unsaid = {stem(w) for w in _TYPE_NOUNS} | {stem(w) for w in _DESCRIPTIVE} | {stem(w) for w in _VAGUE}
    # "which neighbourhood of Leipzig", "where in Japan": where to look
    unsaid |= {stem(w) for m in _CONTAINER.findall(text) for w in m if w}
    unsaid |= placed
    unsaid |= {stem(w) for w in re.findall(rf"\bmy\s+({'|'.join(DESCRIBERS)})\b", text, re.IGNORECASE)}  # "my late"
    ends = [stem("end")] if re.search(r"\b(?:until|till)\b", text, re.IGNORECASE) else []  # "until what date…?"
    said = [t for t in sit.key_terms if t != stem("end") or _SV_END.search(_SV_END_UP.sub(" ", text))]
    asked = dict.fromkeys([*said, *hard, *ends])
    terms = _distinct(t for t in asked if t not in attributes and t not in unsaid)
    earlier = bool(_EARLIER.search(text))
    now = bool(_NOW.search(text) or _PRESENT.search(text))
    did = _DID.search(text)
    # (no light verb, in any form: "did I end up getting…" asks no more than "get")
    done = did.group(1).casefold() if did else ""
    verb = stem(done) if done and done not in STOP and stem(done) not in _SV_LIGHT else ""
    named = {stem(n.split()[0]) for n in sit.names}
    things = tuple(t for t in hard if t not in named)
    doing = _NAMED_DID.search(text)
    named_does = (doing[1].casefold(), stem(doing[2])) if doing and doing[2] not in STOP | _LIGHT_VERBS else ("", "")
    return Ask(tuple(hard), tuple(attributes), answer_type(text), terms, stem("name") in sit.heads, earlier, now, verb,
               things, stem(noun) if noun else "", named_does, tuple(_name_chains(text)[::2]))  # fmt: skip


_MH_OWN_PLACE = re.compile(r"(?<=['’]s)\s+(?:home\s+|old\s+|new\s+)?(town|city|village|suburb|island|neighbourhood|"
                           r"neighborhood)\b", re.IGNORECASE)


def _mh_own_place(text: str, hard: Sequence[str]) -> set[str]:
    """The place nouns said as someone's ("my father's town": where he lives), which a note seldom says
    beside the place's name ("Bron is ten minutes away on tram T2"): no word a note must say, while the
    question asks something else of it too ("which tram line … to my father's town?", not "what's my
    father's town called?")."""
    placed = {stem(m[1]) for m in _MH_OWN_PLACE.finditer(text)}
    owners = {stem(w) for w in re.findall(r"\b([a-z]+)['’]s\s+(?:home\s+|old\s+|new\s+)?(?:town|city|village|"
                                            r"suburb|island|neighbou?rhood)\b", text, re.IGNORECASE)}
    others = [t for t in hard if t not in placed and t not in owners and not _attribute(t)]
    return placed if others else set()


def _distinct(terms: Iterable[str]) -> tuple[str, ...]:
    """One term per synonym group: "what car do we drive?" asks about a car once, not twice."""
    kept: list[str] = []
    for t in terms:
        if not any(t in related_stems(k) or k in related_stems(t) for k in kept):
            kept.append(t)
    return tuple(kept)


def _attribute(term: str) -> bool:
    return term in _ATTRIBUTE_STEMS


def has_type(note: Note, kind: AnswerType | None, question: str) -> bool:
    """Whether a note holds a candidate answer of the type, not already said in the question."""
    return kind is None or bool(candidates(note.text, kind, question))


_IT_IS = re.compile(r"\bit(?:['’]s|\s+is|\s+was)\b", re.IGNORECASE)


def type_level(note: Note, kind: AnswerType | None, question: str) -> int:
    """How well a note holds the answer's type: 0 not at all, 1 of the type, 2 in the very form asked
    ("what time…": 7.30am, not "in March"; "what date…": 10 March; "which hospital": a name that says
    Hospital). A document's "Please arrive at 7.30am" answers what "the letter came through" only hints."""
    if kind is None:  # (a name asked: said as the name of the thing asked, in the very form asked)
        return 2 if _SU_NAME_ASKED.search(question) and _SU_named_by_shape(note, question) else 1
    text = note.text if note.source == "chunk" else said_of(note.text, question)
    found = candidates(text, kind, question)
    if not found and kind == "time" and text != note.text:  # "…the knee op's been moved… Have to be at Manuka
        found = candidates(note.text, kind, question)  # Street at 6:45am": the time is the message's
    if not found:
        return 0
    q = question.casefold()
    if kind == "time":
        # in the very form asked, and said of what is asked: "She turns 70 on 2 January" for "when's my
        # mum's birthday?", not "we fly to Wales on 19 December, Christmas … and Mum's big birthday"
        said = note.text
        if note.source != "chunk":  # (a document's line is about its title)
            asked = [t for t in key_terms(question) if t not in _TIME_STEMS]
            kept, going = [], False
            for c in _CLAUSE_END.split(note.text):
                # and the clauses that go on about a kept one: "the Soweto Marathon half, 21km, on Sunday 2 November"
                # (a short aside between them does not end it, nor is it kept: "birthday was yesterday, 11 May"
                # says no date of the birthday)
                says = not asked or any(covers(_said(c), t) for t in asked)
                going = says or (going and (_PREPOSITION_LED.match(c) is not None or len(words(c)) <= 2))
                kept += [c] if says or (going and len(words(c)) > 2) else []
            said = " ".join(kept) or note.text
            # "…changed the wedding date. The venue … only had one Saturday free so it's 7 March 2026 now"
            going_on = [c for c in _CLAUSE_END.split(said_of(note.text, question)) if _IT_IS.search(c)]
            said = " ".join([said, *going_on])
        if re.search(r"\bwhat time\b", q):  # (also as the person writes it: "thurs 8th may 5.30", "at 6")
            return 2 if _CLOCK.search(said) or candidates(said, kind, question, near_only=True) else 1
        if re.search(r"\b(?:what|which) date\b", q) or _TL_WHAT_DAY.search(q):
            return 2 if _DATE.search(said) or _TL_NUMBERED_DAY.search(said) else 1
        if re.search(r"\b(?:birthday|anniversary)\b", q) and re.search(r"\b(?:when|what|which) (?:is|date|day)", q):
            return 2 if day_months(said) else 1  # a yearly day is a day of a month: not "turned 75 on Friday"
        if _ASKS_AN_END.search(q):
            return _end_level(said)
        if re.search(r"\bwhen\b", q):  # not "what night of the week…": Thursdays, not "the 26th of April"
            # (a day before a clock time alone: "my half-marathon… on 14 March", not "goal from 1:55 to 1:50")
            return 2 if _DATE.search(said) or _YEAR.search(said) else 1
        return 1
    if re.search(r"\bhow long\b", q):  # "how long have I been dating…": "together 3 yrs", not "oct 30"
        return _tl_length_level(text, q)
    noun = _named_noun(q)
    role = _WHO_ROLE.match(q)  # "who is the surgeon doing mamma's knee?": a name said as the surgeon
    if kind == "person" and role and not noun and role[1] not in STOP:
        saying = [p for p in parts(text) if covers(_said(p), stem(role[1]))]
        if any(_named_as(p, q) for p in saying):  # "Sandra Pike Depot Manager" for "who is the depot manager?"
            return 2
        return 0 if note.source != "chunk" and saying and not candidates(" ".join(saying), kind, question) else 1
    if kind == "person" and noun:
        # (a name of more than the kind itself: "the Oak Bay Chamber Choir", not "Choir begins again tomorrow")
        if any(noun in n.casefold().split() and n.casefold() != noun for n in names_in(note.text)):
            return 2
        # "an animal hospital down there" names no hospital: not "…a restaurant called Bluebonnet Kitchen"
        saying = [p for p in parts(text) if covers(_said(p), stem(noun))]
        return 0 if note.source != "chunk" and saying and not candidates(" ".join(saying), kind, question) else 1
    if kind == "place" and _place_named_as_asked(text, question):
        return 2
    return 1


_SU_NAME_ASKED = re.compile(r"\b(?:name|named|called)\b", re.IGNORECASE)


def _SU_named_by_shape(note: Note, question: str) -> bool:
    """Whether a note that says all the question asks names it in so many words, in a sentence that says
    what is named: "…a small shop in Liberdade, name is Bazar Shimizu" for "what is the name of my shop?",
    not the shop's cat "Kuro"; "Tank's sold Second Wind. Bought a bigger boat… he's named Reel Therapy"
    (not "a retired judge named Harold Ames" for the retired dentist who bought Kittiwake)."""
    asked = [t for t in key_terms(question) if t not in NAMING_STEMS]
    return (bool(asked) and all(covers(note.stems, t) for t in asked)
            and any(_NAMING_SHAPE.search(p) and any(covers(_said(p), t) for t in asked) for p in sentences(note.text)))


_PLACE_NOUNS = word_set("town city suburb village neighbourhood neighborhood country county state island district")
_WHICH_PLACE = re.compile(r"\b(?:which|what)\s+([a-z]+)\b", re.IGNORECASE)


def _place_named_as_asked(text: str, question: str) -> bool:
    """For "which town…": a note that names a place as a town ("it's up in Bright, gorgeous town", "our
    apartment in Saude neighbourhood"), not one the question names."""
    noun = next((m[1].casefold() for m in _WHICH_PLACE.finditer(question) if m[1].casefold() in _PLACE_NOUNS), "")
    asked = {n.split()[0].casefold() for n in names_in(question)}
    return bool(noun) and _named_beside(text, stem(noun), asked, near=3, people=False)


# "what day was my first physio session?", "what day did the new car come home?": a day of a month, as for
# "what date…" (not "what day do I go bouldering?", "what day is choir?": a day of the week)
_TL_WHAT_DAY = re.compile(r"\b(?:what|which) day (?:did|was|were)\b")
_TL_NUMBERED_DAY = re.compile(r"\b\d{1,2}-\d{1,2}-(?:19|20)\d\d\b")  # "30-04-2025: New car delivered today!"


# "when does our lease end?", "until when is the quote valid?", "when does my policy run out?": the date
# a period ends on, said after "to", "until", "expires"… ("From 15 May 2025 to 15 May 2026", "terminating
# on 30 April 2026"), not the date it was signed or starts
_ASKS_AN_END = re.compile(r"\b(?:until|till|end|ends|expire|expires|run out|runs out)\b")
_ENDS_ON = re.compile(
    r"\b(?:to|until|till|til|through|expires?|expiry|expiring|ends?|ending|terminat\w*|finish\w*|no later than)"
    r"(?:[\s*|:,]+(?:on|the|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*|\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)(?:\s+on)?))*"
    rf"[\s*|:]+(?:\d{{1,2}}(?:st|nd|rd|th)?\b|{_DAY_MONTH}\b)",
    re.IGNORECASE,
)


def _end_level(said: str) -> int:
    """`type_level` of a note for a question that asks when something ends: 2 when it says a date as an
    end ("to 4:00pm on 15 May 2026"), else 1."""
    return 2 if _ENDS_ON.search(said) else 1


_ROLE_ASKED = re.compile(r"^\W*who(?:'s|\s+is|\s+was|\s+are)\s+(?:the|my|our)\s+([a-z]+(?:\s+[a-z]+)?)\s*\W*$")
_A_NAME = (r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?(?!(?:The|A|An|Our|My|Your|His|Her|Their|This|That|Any|Every)\b)"
           r"[A-ZÀ-ÞĀ-Ž][\w'’-]+(?:\s+[A-ZÀ-ÞĀ-Ž][\w'’-]+)?")


def _named_as(part: str, question: str) -> bool:
    """Whether a part says a name as the role a who-question asks ("who is the depot manager?"):
    "Sandra Pike, Depot Manager", "our depot manager is Sandra", "depot manager: Sandra Pike"."""
    asked = _ROLE_ASKED.match(question)
    if asked is None:
        return False
    role = r"\s+".join(re.escape(w) for w in asked[1].split())
    return re.search(rf"(?<![\w'’]){_A_NAME},?\s+(?:the\s+|our\s+)?(?i:{role})\b|(?i:{role})(?:\s+is|:|,)\s+{_A_NAME}",
                     part) is not None  # fmt: skip


# A length of time: "3 yrs", "two and a half years", "for six weeks", "since 2019", "20 minutes"
_DURATION = re.compile(
    r"\b(?:\d+(?:[.,]\d+)?|an?|" + "|".join(sorted(_NUMBER_WORDS)) + r"|half an?|couple of|few)"
    r"(?:\s+and\s+a\s+half)?[\s-]*(?:years?|yrs?|months?|mths?|weeks?|wks?|days?|hours?|hrs?|minutes?|mins?|decades?)\b"
    r"|\bsince\s+(?:(?:19|20)\d\d|" + _DAY_MONTH + r")\b",
    re.IGNORECASE,
)
# "how long has Euan been in Canada?", "how long Cida work with us?": a length up to now, said "for 12 years",
# "seven years ago", "11 years now", "we've been together 3 years", "since 2019"; not "the first two weeks" of a trip
_TL_PERFECT = re.compile(
    r"\bhow long\s+(?:(?:has|have)\b|(?!(?:is|was|will|does|did|do|are|were)\b)\w+\s+(?:work|live|be)\w*\b)",
    re.IGNORECASE,
)
_TL_UP_TO_NOW = re.compile(
    rf"\b(?:for\s+(?:the\s+(?:last|past)\s+)?|been\s+(?:\w+\s+){{0,3}})(?:{_DURATION.pattern})"
    rf"|(?:{_DURATION.pattern})\s+(?:ago|now)\b|\bsince\b",
    re.IGNORECASE,
)


def _tl_length_level(text: str, question: str) -> int:
    """How well a note says the length asked by "how long…": 2 a length; for a length up to now ("how long
    has…"), a length said up to now ("for 12 years", "seven years ago"), not "only three days in the week"."""
    if not _DURATION.search(text):
        return 1
    return 2 if not _TL_PERFECT.search(question) or _TL_UP_TO_NOW.search(text) else 1


_CLAUSE_END = re.compile(rf"[,;!?]|\.(?!\d){DAY_DOT}")  # not the dot of "5.30" or of "30. June"
_PREPOSITION_LED = re.compile(r"\s*(?:on|in|at|from|until|till|by|around|about)\b", re.IGNORECASE)
_TIME_STEMS = frozenset(stem(w) for w in ("what", "time", "date", "when", "day", "year", "exactly"))

_INSTEAD = re.compile(r"\b(?:instead|rather)\b", re.IGNORECASE)


def said_of(text: str, question: str) -> str:
    """The parts of a person's message that say something the question asks about, where its answer
    must be: "we got married on June 13th, 1987" for "which city did we get married in?", not the
    Savannah of the weekend after the dash. The whole text when no part does."""
    asked = [t for t in key_terms(question) if t not in _TIME_STEMS and t not in _TYPE_STEMS]
    said, going_on = [], False
    for p in parts(text):  # a part goes on about the one before through its pronoun: "I've had her since 2021"
        pronoun = _PRONOUN.search(p)  # "it"/"there" is a thing or place, whoever is named before it
        thing = pronoun is not None and pronoun[0].casefold() in ("it", "its", "there")
        going_on = any(covers(_said(p), t) for t in asked) or (
            going_on and pronoun is not None and (thing or not people_in(p[: pronoun.start()]))
        ) or (going_on and _INSTEAD.search(p) is not None)  # "Thassos is off… we're going to Sozopol instead"
        said += [p] if going_on else []
    return " ".join(said) or text


def asks_a_name(question: str) -> bool:
    """Whether a which/what question asks for one of a kind the policy has no word list for ("which
    contractor is doing our bathroom?"): not a description ("what colour…") or a vague "which one"."""
    head = _WH_HEAD.search(question)
    return head is not None and head.group(1).casefold() not in STOP | _DESCRIPTIVE | _VAGUE
