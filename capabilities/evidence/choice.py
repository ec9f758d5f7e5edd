"""Which remembered notes answer a question: ranking, joining and the steps through a named person.

`choose` ranks the recalled notes by the question's key words (`_score`), joins the best to what it
names (`_join`), follows someone named by what they did or by kin (`_through_whom`, `_through_kin`),
and hands the result to the refusals (`refusals._verdict`) for the last word.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from capabilities.evidence.asked import (
    _DATE,
    _NEGATED,
    _NOW,
    _NUMBER,
    _PLACE_NOUNS,
    _TIME_STEMS,
    _WHICH_PLACE,
    _YEAR,
    _attribute,
    read_ask,
    type_level,
)
from capabilities.evidence.people import (
    _DESCRIBED,
    _MH_OWNER,
    _NAME_ONLY,
    _PARENT_WORDS,
    _WHO_WED,
    HER_KIN,
    HIS_KIN,
    _kin_in_two_steps,
    _kin_of_alias,
    _kin_steps,
    _mh_by_surname,
    _mh_kin_asked,
    _mh_names_the_one,
    _mh_owner_of,
    _mh_parent_of_alias,
    _mh_parent_said,
    _mh_sibling_of,
    _mh_their_child,
    _MJ_couple_child,
    _MJ_parents_naming,
    _only_my_kin,
    _readings,
    aliases,
    by_age,
    child_by_pronoun,
    entities,
    in_one_step,
    kin_named,
)
from capabilities.evidence.refusals import (
    _mh_works_at,
    _verdict,
    said_as_object,
)
from capabilities.evidence.words import (
    _AGE_ON_A_DAY,
    _CONTRAST,
    _CORRECTS,
    _DAY_MONTH,
    _DESCRIBER,
    _I_ASKED,
    _JOB_WORD,
    _KIN_STEMS,
    _LIGHT_VERBS,
    _MY_ROLE_VERB,
    _OWN_BUSINESS,
    _PEOPLE,
    _RC_ROLE_APPOSED,
    _RELATIONS,
    _ROLE_BARE,
    _ROLE_IN_BRACKETS,
    _ROLE_SHAPE,
    _ROLE_VERB,
    _SOMEONE,
    _TYPE_NOUNS,
    _UNITS,
    _WITH_ME,
    _WORK,
    _WORKS_OUT,
    NAMING_STEMS,
    ROLE_STEMS,
    WHO_IS_NAMED,
    AnswerType,
    Ask,
    Evidence,
    Note,
    _attribute_met,
    _later,
    _leans_on,
    _linked,
    _named_as_kin,
    _plain,
    _said,
    _said_order,
    _Scored,
    _told_of_another,
    _when,
    candidates,
    corrects,
    covers,
    is_calendar,
    is_question,
    kinship,
    parts,
    people_in,
)
from capabilities.shorthand import spelled_out
from capabilities.situation import (
    DESCRIBERS,
    NAME_WORD,
    STOP,
    Situation,
    names_in,
    related_stems,
    root,
    stem,
    word_set,
    words,
)
from capabilities.situation import read as read_message
from capabilities.truecase import WHO, capitalised, learned_names, uncased
from memory.formation.patterns import sentences

BARE_RELEVANCE = 0.8  # with no key word at all ("what was that?"), only a strong recall match answers
MAX_NOTES = 3
JOIN_STARTS = 3  # how many of the best notes a chain of notes may start from

_SAID_EARLIER = re.compile(
    r"\b(?:before|previously|used to|formerly|former|earlier|until|prior|anymore|any more|no longer|retired"
    r"|retiring)\b",
    re.IGNORECASE,
)  # "a retired nurse", "head of a school, retiring in july": the job before


# one newly taken on, said with where they have been till now: "Found Shane's replacement. Mitch, qualified
# joiner, he's been at Hunter Homes for six years. Starts 1 September" (Hunter Homes is where he worked before)
_RC_NEW_FROM = re.compile(
    r"^(?=.*\b(?i:replacement|new hire|hired|taken on|starts|starting|joins|joining)\b)"
    r".*\b(?i:he|she|they)(?:['’]s|\s+(?i:has|have))\s+been\s+(?i:at|with)\s+[A-ZÀ-ÞĀ-Ž]"
    r".*?\b(?i:for)\s+(?:\w+\s+)?(?i:years?|months?)\b",
    re.DOTALL,
)


def denied(text: str) -> set[str]:
    """The words a text says are not so, lower-cased: "didn't go the Hilux in the end", "not Pickles",
    "so scrap Baguio"."""
    plain = _plain(text)
    return {w for i, w in enumerate(plain) if _DENIED & set(plain[max(0, i - 3) : i])}


_DENIED = _NEGATED | word_set("not never scrap scrapped ditch ditched cancel cancelled canceled")  # "so scrap Baguio"


def superseded(notes: Sequence[Note], kind: AnswerType | None, question: str) -> set[str]:
    """Answers only older notes give when the newest note that gives one says it corrects them
    ("leaving Swansea, moving to Cardiff": Swansea is no longer the answer)."""
    typed = [n for n in sorted(notes, key=_said_order) if candidates(n.text, kind, question)]
    if not typed or not corrects(typed[-1].text):
        return set()
    newest = candidates(typed[-1].text, kind, question)
    older = set().union(*(candidates(n.text, kind, question) for n in typed[:-1]))
    # a bare "now" corrects only what it names: "Greta's gone on mat leave so I'm seeing Ben now", not
    # "…Marcus gave me a printout, and my knee bends to 120 degrees now" for the surgeon Dr Raman
    gone = _replaced(typed[-1].text, newest)
    cues = {c.casefold() for c in _CORRECTS.findall(typed[-1].text)}
    if cues <= {"now"} and not {stem(o) for o in older} & _said(typed[-1].text):
        return gone
    return (older - newest) | gone


def _replaced(text: str, found: set[str]) -> set[str]:
    """What a correcting note says is no longer so: the one after "not" or "from" ("Comet now, not
    Pickles"; "moving from Swansea to Cardiff"), else every one before the last said ("sold the
    Civic and bought a Subaru Outback": a run of words is one mention), in the sentences that say
    the change ("…switched me to Symbicort. Still carry the Ventolin": Ventolin is no correction)."""
    changed = " ".join(part for part in sentences(text) if corrects(part))
    return _stale(changed, found) or _stale(text, found)


def _stale(text: str, found: set[str]) -> set[str]:
    plain = _plain(text)
    mentions: list[list[str]] = []
    for i, w in enumerate(plain):
        if w in found:
            if mentions and mentions[-1][-1] == plain[i - 1]:
                mentions[-1].append(w)
            else:
                mentions.append([w])
    if len(mentions) < 2:
        return set()
    gone = {w for i, w in enumerate(plain) if w in found and {"not", "from", "instead"} & set(plain[max(0, i - 3) : i])}
    return gone or {w for mention in mentions[:-1] for w in mention} - set(mentions[-1])


_SUBJECT = word_set("i i'm i've i'd i'll we we're")
_WE = word_set("we we're we've we'd we'll")  # (said together: not "our oldest")


def _idf(ask: Ask, notes: Sequence[Note]) -> dict[str, float]:
    """How telling each key word is among these notes: "fee" (in one) over "club" (in ten)."""
    stems = [n.stems for n in notes]
    return {t: math.log(1 + len(stems) / (1 + sum(covers(s, t) for s in stems))) for t in ask.terms}


def _score(
    note: Note, ask: Ask, sit: Situation, idf: dict[str, float], read: str, known: Mapping[str, str]
) -> _Scored:
    plain = _WORKS_OUT.sub(" ", read)
    own = note.said | frozenset(stem(w) for w in words(f"{note.title} {note.also} {plain if read else ''}"))  # as said
    stems = note.stems | own | (kinship(read) if read else frozenset())
    speaks = bool(_SUBJECT & set(words(note.text))) or "the user " in note.text.casefold()
    # "since when have me and Ruaridh been together?": "we've been together since march 2023" says them both
    if _WE & set(words(read or note.text)):
        stems |= {stem(n) for pair in _WITH_ME.findall(sit.text) for n in pair if n}
    stems |= _compounds_said(ask.terms, stems) | _MJ_hyphened(ask, read or note.text)
    stems |= {stem("birthday")} if _AGE_ON_A_DAY.search(read or note.text) else frozenset()
    stems |= _acronyms_spelled(sit.text, read or note.text) | _mh_acronym_of_asked(sit.text, read or note.text)
    stems |= _UP_ROLE_STEMS if _UP_APPOINTED.search(read or note.text) else frozenset()
    stems |= _SU_kind_as_object(ask, sit, note.text, stems)
    return _Scored(
        note,
        frozenset(t for t in ask.hard if covers(stems, t) and not _only_my_kin(read or note.text, t, sit)),
        sum(idf.get(t, 1.0) * (1.0 if _said_as_asked(own, t) else ANOTHER_WAY) for t in ask.terms if covers(stems, t)),
        # "my partner": not "Ana's boyfriend"; "what ward am I on?": not "…check on her. she's at Ward 6A"
        not _theirs(note, sit) and not _someone_of(read or note.text, sit) and not _told_of_another(note, ask, sit),
        _owned(note, sit),
        frozenset(a for a in ask.attributes
                  if (_attribute_met(note, a, ask) and _ST_role_said_of(note.text, a, ask))
                  or (a in NAMING_STEMS and _named_as_kin(note, read, ask, sit.text))),
        frozenset(t for t in ask.terms if covers(stems, t)),
        type_level(note, ask.answer_type, sit.text),
        sit.about_me and note.source != "chunk",  # the person's own words before a document's
        sit.about_me and not sit.heads and speaks,  # "where do I work?": "I …" before "My partner …"
        all(covers(stems, t) for t in ask.terms),
        read or note.text,
        entities(read or note.text, known),
        bool(_I_ASKED.search(sit.text)),
        ask.earlier and bool(_SAID_EARLIER.search(note.text) or _RC_NEW_FROM.search(note.text)) and _about(stems, ask),
        ask.now,
        chained=sit.chain >= 2 and _chained(read or note.text, sit.heads),
        does=(bool(ask.verb) and (_does(note.text, ask.verb) or _tl_you_do(note, ask.verb)))
        or (bool(ask.named_does[0]) and not ask.now  # (what is so now: the newest, "Bamse is 22,8 kg now")
            and _does(read or note.text, ask.named_does[1], ask.named_does[0]))
        # "what's my job?": "I teach chemistry at…", not the newer "My husband Tom is a paramedic"
        or (not ask.hard and _MY_JOB_ASKED.search(sit.text) is not None and _my_role(note.text)),
    )


def _SU_kind_as_object(ask: Ask, sit: Situation, text: str, stems: frozenset[str]) -> frozenset[str]:
    """The kind a "which <kind>" question asks, and the work, when a note names it as the object of the
    question's own verb though it says no word of the kind: "which school do I teach at?" is "I teach
    chemistry at Gartcraig Academy", "which hospital do I work at?" is "…45, nurse. senior staff nurse at
    Mabini Medical Center" (the kind is seldom said beside its name; the verdict takes these as naming it)."""
    kind = ask.category
    if not kind or kind not in ask.hard or covers(stems, kind):
        return frozenset()
    if _mh_works_at(sit.text, text):
        return frozenset({kind}) | _WORK
    # (of a question that ends on its verb's preposition: not "which caterer did we use for Gogo's party?",
    # whose last word is no verb)
    return frozenset({kind}) if _SU_ENDS_ON_PREP.search(sit.text) and said_as_object(sit.text, text) else frozenset()


_SU_ENDS_ON_PREP = re.compile(r"\b(?:at|in|for|to|from|with|on)(?:\s+(?:again|now|these days|at the moment))?\W*$",
                              re.IGNORECASE)


_ST_NO_JOB = word_set("girl boy baby man woman lady guy kid child twin twins person")  # "it's a girl!"


def _ST_role_said_of(text: str, attribute: str, ask: Ask) -> bool:
    """For a job asked of someone named ("what does Juliana do for work?"), whether the note says a job of
    them: the name said last before it is theirs, or none is ("Juliana is 28, she is a dentist"), not
    "Juliana married Rafael, he works in a bank", nor "Juliana had the scan, it's a girl!"."""
    named = [t for t in ask.hard if t not in ask.things]
    if attribute not in ROLE_STEMS or not named:
        return True
    ends = [m.end() for r in (_ROLE_BARE, _ROLE_VERB, _ROLE_IN_BRACKETS, _OWN_BUSINESS, _RC_ROLE_APPOSED)
            for m in r.finditer(text)]
    ends += [m.end() for m in _ROLE_SHAPE.finditer(text) if m[1].casefold() not in _ST_NO_JOB]
    ends += [m.end() for m in re.finditer(r"[\w'’-]+", text) if covers(_said(m[0]), attribute)]
    # (only where they are named before it: "Ma Dikeledi is a retired nurse… The kids call her Gogo" is Gogo's)
    first = min((m.start() for m in re.finditer(r"[\w'’-]+", text) if any(covers(_said(m[0]), t) for t in named)),
                default=len(text))
    for end in ends:
        whose = _ST_whose(text[:end])
        if end <= first or not whose or any(covers(frozenset({stem(whose.split()[0].casefold())}), t) for t in named):
            return True
    return False


_ST_PRONOUN = re.compile(r"\b(he|she|him|her|his)\b", re.IGNORECASE)


def _ST_whose(before: str) -> str:
    """Whom the end of a text is said of: the last one named ("Juliana married Rafael, he works…": Rafael),
    but of a pronoun's sex after them where kin words tell it ("my sister Adaeze lives with her husband
    Emeka. she's an accountant": Adaeze); "" when no one is named."""
    people = people_in(before)
    if not people:
        return ""
    pronouns = _ST_PRONOUN.findall(before[max(before.rfind(p) for p in people) :])
    if pronouns:
        kin = HER_KIN if pronouns[-1].casefold() in ("he", "him", "his") else HIS_KIN  # the other sex's
        other = {m.casefold() for m in re.findall(rf"\b(?:{kin})\s+({NAME_WORD})", before, re.IGNORECASE)}
        people = [p for p in people if p.split()[0].casefold() not in other] or people
    return people[-1]


# Someone given a role: "I have been elected PRESIDENT of the residents' association", "Mereana's been made
# acting principal", "Lionel has asked me to be alto section leader": says the role, post or position asked.
_UP_APPOINTED = re.compile(
    r"\b(?:elected|appointed|been made|promoted to|took over as|taken over as|voted in as"
    r"|asked (?:me|him|her|us) to be)\s+(?:the\s+|an?\s+)?(?:new\s+)?[a-z]{3,}",
    re.IGNORECASE,
)
_UP_ROLE_STEMS = frozenset(stem(w) for w in ("role", "post", "position"))


def _acronyms_spelled(question: str, text: str) -> frozenset[str]:
    """The question's acronyms a note spells out, word by word: "when did ruaridh start at the QE?" is
    "he got the job in ICU at the queen elizabeth" (words of three letters or more, no function words)."""
    said = words(text)
    out = set()
    for acronym in set(re.findall(r"\b[A-Z]{2,4}\b", question)):
        n, letters = len(acronym), acronym.casefold()
        if any("".join(w[0] for w in said[i : i + n]) == letters
               and all(len(w) >= 3 and w not in STOP for w in said[i : i + n]) for i in range(len(said) - n + 1)):
            out.add(stem(acronym))
    return frozenset(out)


def _mh_acronym_of_asked(question: str, text: str) -> frozenset[str]:
    """The question's capitalised words a note says by their initials: "has he done the Great North Run?"
    is "he's done the GNR twice" (the reverse of `_acronyms_spelled`)."""
    asked = re.findall(r"\b[A-Z][a-z]+\b|\S+", question)
    out: set[str] = set()
    for acronym in set(re.findall(r"\b[A-Z]{2,4}\b", text)):
        n = len(acronym)
        for i in range(len(asked) - n + 1):
            run = asked[i : i + n]
            if all(w[0].isupper() and w[1:].islower() for w in run) and "".join(w[0] for w in run) == acronym:
                out |= {stem(w.casefold()) for w in run}
    return frozenset(out)


def _MJ_hyphened(ask: Ask, text: str) -> frozenset[str]:
    """The hyphened words asked that a note says as two words: "my long-run partner" is "we do the long runs
    together", a "half-marathon" a "half marathon"."""
    joined = [t for t in {*ask.terms, *ask.hard} if "-" in t and "|" not in t]
    if not joined:
        return frozenset()
    said = words(text)
    pairs = {stem(f"{a}-{b}") for a, b in itertools.pairwise(said)}
    return frozenset(t for t in joined if t in pairs)


def _compounds_said(terms: Sequence[str], stems: frozenset[str]) -> frozenset[str]:
    """The words asked that a note says in their two parts: "beehives" is "the bees!! i keep 14 hives",
    "bee colonies… so now 41 hives" (each part of three letters or more)."""
    return frozenset(t for t in terms if t not in stems and any(
        len(s) >= 3 and len(t) - len(s) >= 3 and t.startswith(s) and t[len(s):] in stems for s in stems))


# A key word said as asked weighs more than one said another way: "where does mama live?" is "…lives in
# Bearwood", not the newer "…at Marek's house in Solihull now" ("house" is of the "live" group).
ANOTHER_WAY = 0.6


def _said_as_asked(stems: frozenset[str], term: str) -> bool:
    return term in stems or root(term) in stems


def _my_role(text: str) -> bool:
    """Whether a note says the person's own job: "I teach chemistry", "I'm a nurse", "I work at Halden"."""
    return bool(_MY_ROLE_VERB.search(text) or _MY_JOB.search(text))


_MY_JOB_ASKED = re.compile(r"\bmy (?:\w+ )?(?:job|profession|occupation|work|title)\b|\bwhat do I do\b", re.IGNORECASE)
_MY_JOB = re.compile(
    r"\bI(?:['’]m|\s+am|\s+was)\s+(?:now\s+|still\s+)?(?:an?\s+)?(?:\w+\s+)?" + _JOB_WORD
    + r"\b|\bI\s+(?:now\s+)?work(?:ed|s)?\s+(?:as|at|for|in)\b",
)


def _chained(text: str, heads: Sequence[str]) -> bool:
    """Whether a text says two of the asked heads as one possessive chain ("husband's brother")."""
    pairs = set(itertools.pairwise(heads))
    for m in re.finditer(rf"\b(\w+)['’]s\s+(?:{_DESCRIBER})?([\w-]+)", text):
        x, y = stem(m.group(1).casefold()), stem(m.group(2).casefold())
        if any(x in related_stems(a) and y in related_stems(b) for a, b in pairs):
            return True
    return False


def _does(text: str, verb: str, who: str = "") -> bool:
    """Whether the person says they do it: "I live in…", "we moved to…" for "where do I live?"; with
    `who`, that one does it ("Ørjan works at…", "…, he works at…" in a note that names them)."""
    wanted = related_stems(verb)
    # (a pronoun stands for them only where they are named as themselves: in "Ma Dikeledi (Sipho's mom)
    # is a retired nurse, she worked at Bara" she is the mom)
    themselves = bool(who) and re.search(rf"\b{re.escape(who)}\b(?!['’]s)", text, re.IGNORECASE) is not None
    doer = r"i|we" if not who else rf"{re.escape(who)}|he|she|they" if themselves else re.escape(who)
    if not who and wanted & _SU_LIVE and _SU_FOUND_HOME.search(text):
        return True  # "we found a place!! A 3-bed townhouse in…": where we live now
    for m in re.finditer(rf"\b(?:{doer})(?:['’](?:ve|m|d|re|ll))?\s+(\w+)(?:\s+(\w+))?", text, re.IGNORECASE):
        # "I live", "we just moved"
        if {stem(w.casefold()) for w in m.groups() if w} & wanted and not _tl_thing_moved(m) and not (
                themselves and _MC_kin_pronoun(text, who, m)):
            return True
    return False


def _MC_kin_pronoun(text: str, who: str, m: re.Match[str]) -> bool:
    """Whether the he or she that does it is a kin of that sex said after `who` and before the pronoun, not
    `who`: "Kenji has a girlfriend! she studies architecture" (she is the girlfriend), "Ana and her husband
    Rui, he works at the port"."""
    pronoun = m[0].split()[0].casefold()
    if pronoun not in ("he", "she"):
        return False
    named = [n.end() for n in re.finditer(rf"\b{re.escape(who)}\b", text[: m.start()], re.IGNORECASE)]
    between = text[named[-1] if named else 0 : m.start()]  # (a reading may say them as "my son")
    return re.search(rf"\b(?:{HER_KIN if pronoun == 'she' else HIS_KIN})\b", between, re.IGNORECASE) is not None


_SU_LIVE = frozenset({stem("live")})
# a home found, bought or rented: "we found a place", "Marco and I finally found a flat", "we've bought a house"
_SU_FOUND_HOME = re.compile(
    r"\b(?:i|we)(?:['’]ve)?\s+(?:just\s+|finally\s+|have\s+)?(?:found|bought|rented|got)\s+(?:a|an|our|the)\s+"
    r"(?:new\s+)?(?:[\w-]+\s+)?(?:place|flat|house|home|apartment|townhouse)\b",
    re.IGNORECASE,
)
_TL_MOVE = frozenset(stem(w) for w in ("move", "moved", "moving"))


def _tl_thing_moved(m: re.Match[str]) -> bool:
    """ "we've moved it to Monday afternoons", "so we moved the rorbu to July": a thing moved to another day,
    not the person moving home (an object said after the verb: "we moved house", "moved in" still move)."""
    return stem(m[1].casefold()) in _TL_MOVE and (m[2] or "").casefold() in _SU_MOVED_A_THING


_SU_MOVED_A_THING = word_set("it them that this the our my his her their")


# a document's "you" is the person: "You are to resume duty on Monday, 4 January 2027"
_TL_YOU = re.compile(
    r"\byou(?:['’]ll|\s+(?:are|will|must|should|shall|have|need)(?:\s+(?:to|be|be\s+required\s+to))?)?\s+(\w+)",
    re.IGNORECASE,
)


def _tl_you_do(note: Note, verb: str) -> bool:
    """Whether a document tells the person they do it ("You are to resume duty…" for "when do I resume?")."""
    wanted = related_stems(verb)
    return note.source == "chunk" and any(stem(m[1].casefold()) in wanted for m in _TL_YOU.finditer(note.text))


def _about(stems: frozenset[str], ask: Ask) -> bool:
    """Whether a note says any word the question asks about."""
    return any(covers(stems, t) for t in (*ask.hard, *ask.terms, *ask.attributes))


def _someone_of(text: str, sit: Situation) -> bool:
    """For "my sister's profession": the note is about someone of hers ("my sister's boyfriend is
    Tiago, he works as a chef"), a person the question does not ask about."""
    things = [h for h in sit.heads if not any(_attribute(a) for a in h.split("|"))]
    things = things or [stem(n.split()[0]) for n in sit.names]  # "What does Gareth do?": not Gareth's wife
    if not things:
        return False
    last = related_stems(things[-1])
    # (a note that says them as themselves is about them too: "my sister Aoife's coming over w/ her husband")
    mine = rf"\b(?:[Mm]y|[Oo]ur)\s+(?:{_DESCRIBER})?([\w-]+)\b(?!['’-])"  # ("my daughter-in-law's mother")
    if any(stem(m[1]) in last for m in re.finditer(mine, text)):
        return False
    for m in re.finditer(rf"\b([\w-]+)['’]s\s+(?:{_DESCRIBER})?(\w+)", text):
        other = m.group(2).casefold()
        if stem(m.group(1)) in last and other in _PEOPLE and stem(other) not in {*sit.heads, *sit.key_terms}:
            return True
    return False


def _theirs(note: Note, sit: Situation) -> bool:
    """For "my partner": the note gives the thing to someone else by name ("Ana's boyfriend")."""
    if not sit.about_me or not sit.heads:
        return False
    wanted = related_stems(sit.heads[0])
    if any(stem(m.group(1)) in wanted for m in re.finditer(r"\b(?:[Mm]y|[Oo]ur)\s+(\w+)", note.text)):
        return False  # "Finn's birthday is 19 January. My birthday is 11 May": theirs and mine
    for m in re.finditer(r"\b([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)['’]s\s+(\w+)", note.text):
        if m.group(1) not in sit.names and stem(m.group(2)) in wanted:
            return True
    return False


def _owned(note: Note, sit: Situation) -> bool:
    """For "my birthday": the person's note says "my birthday" (or "our …"), not "my sister's birthday"."""
    if sit.chain != 1 or not sit.heads or note.source == "chunk":  # a document's "our club" is not theirs
        return False
    wanted = related_stems(sit.heads[0])
    tokens = [t.strip(".,!?;:()\"") for t in note.text.casefold().replace("’", "'").split()]
    for i, token in enumerate(tokens):
        if token in ("my", "our"):
            nxt = [t for t in tokens[i + 1 : i + 3] if t not in DESCRIBERS][:1]
            if nxt and stem(nxt[0]) in wanted and not nxt[0].endswith("'s"):
                return True
    # one of the person's people said tersely, with no "my": "manager is Priya", "dad's driving us up"
    # (a part opening with them; not "pottery win, made a mug": a thing is not owned for being said first)
    for p in parts(note.text):
        first = [t for t in p.casefold().replace("’", "'").split()[:3] if t.strip(".,!?;:()\"") not in DESCRIBERS][:1]
        word = first[0].strip(".,!?;:()\"").removesuffix("'s") if first else ""
        if word in WHO and stem(word) in wanted:
            return True
        # or the thing itself said changing, with no "my": "Charge-out goes to $92 an hour from 1 July"
        if {stem(w) for w in word.split("-")} & wanted and _CHANGES_TO.search(p):
            return True
    return False


_CHANGES_TO = re.compile(
    r"\b(?:goes|going|went|gone|is|was|now|put|moved?|changed?)\s+(?:up\s+|down\s+)?(?:to|now)\b", re.IGNORECASE
)



def _scored(sit: Situation, ask: Ask, notes: Sequence[Note], known: Mapping[str, str]) -> list[_Scored]:
    """Each note scored against the question, read as the person meant it."""
    idf = _idf(ask, notes)
    scored = [_score(n, ask, sit, idf, r, known) for n, r in zip(notes, _readings(notes, known), strict=True)]
    scored = _MJ_short_names(_DOC_about(scored, ask))
    return _was_before(_SU_before_that(scored), ask) if ask.earlier else scored


# a turn that opens on what came before the one it leans on: "Before that I was five years at a fish plant"
_SU_BEFORE_THAT = re.compile(r"^\W*(?:and\s+|so\s+)?(?:before|prior to|until)\s+(?:that|this|then)\b", re.IGNORECASE)


def _SU_before_that(scored: list[_Scored]) -> list[_Scored]:
    """Asked what came before, a turn that opens "Before that…" is about what the turn it leans on is about:
    "I work as an inspector at the Directorate", then "Before that I was five years at a fish plant in
    Myre" (which says no directorate) for "where did I work before the directorate?"."""
    by_ref = {s.note.ref: s for s in scored if s.note.source != "chunk"}
    out = []
    for s in scored:
        leaned = by_ref.get(s.note.after) if s.note.after and s.note.after != s.note.ref else None
        if leaned is not None and _SU_BEFORE_THAT.match(s.note.text):
            s = replace(s, hard=s.hard | leaned.hard, terms=s.terms | leaned.terms, does=s.does or leaned.does)
        out.append(s)
    return out


def _MJ_short_names(scored: list[_Scored]) -> list[_Scored]:
    """One named in full in one note and by a part of that name in another is the same one: "the sweets
    come from Confeitaria Kaneko" and "Kaneko need to deliver two times", "Dr. Arnaud Blanc" and "Dr.
    Blanc wants to weigh him": a note that says the whole name is also about the part other notes say
    alone, so that the two join. Not a part two whole names share ("Ana Costa", "Ana Lima": which Ana?)."""
    alone = {e for s in scored for e in s.about if " " not in e}
    whole = {e for s in scored for e in s.about if " " in e}
    parts: dict[str, set[str]] = {}
    for e in whole:
        for w in e.split():
            if w in alone and w not in STOP and not is_calendar(w) and stem(w) not in _MJ_TITLE_STEMS:
                parts.setdefault(w, set()).add(e)
    # (not a name a document says whole: its list of "Anita Raman, MD", "Lisa Okafor, PT" links to no one told)
    listed = {e for s in scored if s.note.source == "chunk" for e in s.about}
    short = {w: next(iter(es)) for w, es in parts.items() if len(es) == 1 and not es & listed}
    if not short:
        return scored
    return [replace(s, about=s.about | {w for w, e in short.items() if e in s.about}) for s in scored]


_MJ_TITLE_STEMS = frozenset(stem(w) for w in ("dr", "mr", "mrs", "ms", "prof", "doctor", "saint", "st", "the"))


# a measure or a time is said all over a document: "Danika's day job" is not "…cancel 28 days before"
_DOC_EVERYWHERE = _TIME_STEMS | {stem(w) for w in _UNITS}


def _DOC_about(scored: list[_Scored], ask: Ask) -> list[_Scored]:
    """A document's sentence says what its document is about: "Food money: NOK 450" of the kindergarten's
    letter is Sjøstjerna's food money, though the line does not name it (a word the question must meet,
    said in another recalled sentence of the same document)."""
    must = [t for t in ask.hard if t not in _DOC_EVERYWHERE]
    said: dict[str, frozenset[str]] = {}  # each document's words, by its title (its sections are notes apart)
    for s in scored:
        if s.note.source == "chunk":
            said[s.note.title or s.note.ref] = said.get(s.note.title or s.note.ref, frozenset()) | s.note.stems
    return [replace(s, hard=s.hard | {t for t in must if covers(said[s.note.title or s.note.ref], t)})
            if s.note.source == "chunk" and must else s for s in scored]


def _was_before(scored: list[_Scored], ask: Ask) -> list[_Scored]:
    """What came before, when no note says "before": a value of what is asked that a later correction of
    it replaced ("my goal is 3:45", then "change of plan, my marathon goal is now 3:30": 3:45 for "what
    was my marathon goal before?"; it was refused as "no note says what came before")."""
    said_all = [s for s in scored if s.typed and ask.terms and all(t in s.terms for t in ask.terms)]
    later = [s for s in said_all if corrects(s.note.text)]
    return [
        replace(s, earlier=True)
        if s in said_all and not s.earlier and any(_later(c.note, s.note) for c in later if c is not s)
        else s
        for s in scored
    ]


# A word glossed where it is said: "my fastlege (GP)", "rekkehus (townhouse)", "(control = inspection, …)",
# "a los (maritime pilot)": the person's own word and its English one or two, in either order.
_GLOSS = re.compile(r"\b([a-zà-ÿ][\w-]{2,})\s*\(((?:[A-Za-zÀ-ÿ][\w'-]*\s?){1,2})[,)]")
_GLOSS_EQ = re.compile(r"\(([a-zà-ÿ][\w-]{2,})\s*=\s*([a-zà-ÿ][\w-]{2,})\b")


def glossed(notes: Sequence[Note], question: str = "") -> list[Note]:
    """The notes, each that says a glossed word also saying its gloss (and the other way round): "Got the
    letter about my new fastlege" answers "who is my GP now?" once "My fastlege (GP) Dr. Larsen…" was said."""
    same: dict[str, set[str]] = {}
    for n in notes:
        for word, gloss in [*_GLOSS.findall(n.text), *_GLOSS_EQ.findall(n.text)]:
            if word.casefold() not in STOP and gloss.strip().casefold() not in STOP:
                a, b = stem(word.casefold()), " ".join(stem(w) for w in words(gloss))
                same.setdefault(a, set()).add(gloss.strip())
                same.setdefault(b, set()).add(word)
    if not same:
        return list(notes)
    out = []
    for n in notes:
        said = n.said | {" ".join(p) for p in n.phrases}
        also = {g for key, gl in same.items() if key in said for g in gl}
        out.append(replace(n, also=" ".join(sorted(also))) if also else n)
    return out


def cased(notes: Sequence[Note], question: str) -> list[Note]:
    """The notes, those typed all in lower case with the names capitalised (see capabilities.truecase):
    "my sister tash" reads as "my sister Tash". Names come from the question, the person's cased
    notes, a document's names of two words or more (one capitalised word there is often a defined
    term: "the Artist"), and the lower-case notes' own name slots. Chat shorthand is spelled out first
    ("dad = Declan": "dad is Declan"; see capabilities.shorthand)."""
    notes = [replace(n, text=spelled) if (spelled := spelled_out(n.text)) != n.text else n for n in notes]
    lower = [uncased(n.text) for n in notes]
    if not any(lower):
        return list(notes)
    names = _learned(notes, question)
    return [replace(n, text=capitalised(n.text, names)) if low else n for n, low in zip(notes, lower, strict=True)]


def _learned(notes: Sequence[Note], question: str) -> set[str]:
    """The names `cased` capitalises, from the question and the notes (spelled out)."""
    lower = [uncased(n.text) for n in notes]
    said = [question, *(n.text for n, low in zip(notes, lower, strict=True) if not low and n.source != "chunk")]
    documents = {name.casefold() for n in notes if n.source == "chunk" for name in names_in(n.text) if " " in name}
    return learned_names(said, [n.text for n, low in zip(notes, lower, strict=True) if low]) | documents


def cased_question(sit: Situation, notes: Sequence[Note]) -> Situation:
    """A question typed in lower case read with the names its notes know capitalised: "what's dev's
    last name" asks about Dev, "what uni is lily at?" about Lily."""
    if not uncased(sit.text):
        return sit
    spelled = [replace(n, text=spelled_out(n.text)) for n in notes]
    # and a name the question says that any note puts in a name's slot, even a note with capitals of its
    # own ("2 roommates, fran and tomás" for "what does fran study?"; the notes themselves are left as typed)
    asked = {w.casefold() for w in words(sit.text)}
    slotted = {n for n in learned_names([], [n.text for n in spelled if n.source != "chunk"]) if n in asked}
    text = capitalised(sit.text, _learned(spelled, sit.text) | slotted)
    return replace(sit, text=text, names=tuple(names_in(text)))


def rank(sit: Situation, notes: Sequence[Note]) -> list[Note]:
    """Notes from the most to the least likely to answer (the order `choose` weighs them in)."""
    sit = cased_question(sit, notes)
    notes = cased(notes, sit.text)
    scored = _scored(sit, read_ask(sit), notes, aliases(notes))
    return [s.note for s in sorted(scored, key=_Scored.key, reverse=True)]


# "my future daughter-in-law" is my son's fiancée (or girlfriend), "my future son-in-law" my daughter's fiancé:
# generic English, asked through the kin when the notes say the engagement (see `_through_kin`)
_KN_FUTURE = re.compile(r"\b(my|our)\s+(?:future|soon-to-be|soon\s+to\s+be)\s+(daughter|son)-in-law\b", re.IGNORECASE)
_KN_FUTURE_SAID = {"daughter": ("son's fiancée", "son's girlfriend"),
                   "son": ("daughter's fiancé", "daughter's boyfriend")}


def _KN_future_kin(sit: Situation, candidates: Sequence[Note]) -> Evidence | None:
    """A question about one's future daughter- or son-in-law, asked of one's child's fiancé(e)."""
    future = _KN_FUTURE.search(sit.text)
    if future is None:
        return None
    for i, said in enumerate(_KN_FUTURE_SAID[future[2].casefold()]):
        asked = read_message(f"{sit.text[: future.start()]}{future[1]} {said}{sit.text[future.end():]}")
        if (evidence := _through_kin(asked, candidates)) is not None:
            return replace(evidence, confidence="low") if i else evidence  # (a girlfriend: not yet said to be)
    return None


def choose(sit: Situation, candidates: Sequence[Note]) -> Evidence:
    """Pick the notes that answer the question read as `sit`, or decide that none does."""
    candidates = _LD_not_asked_again(sit, candidates)
    if (future := _KN_future_kin(sit, candidates)) is not None:
        return future
    who = WHO_IS_NAMED.match(sit.text)
    described = [n for n in candidates if who and _describes(who[1].strip(), n.text)]
    if described and (evidence := _chosen(sit, described)).verdict == "answer":
        return evidence  # "who is Rui?": "the shop manager is a guy called Rui", not "dinner with Rui"
    evidence = _chosen(sit, candidates)
    wed = _WHO_WED.match(sit.text)
    if wed:  # "who is Inês married to?" is her husband or her wife, found as kin ("dating": a partner)
        kins = ("husband", "wife") if wed[2] else ("boyfriend", "girlfriend", "partner")
        kins = ("fiancé", "fiancée", *kins) if wed[2] and wed[2].casefold().startswith("engaged") else kins
        asked = (_through_kin(read_message(f"who is {wed[1]}'s {kin}?"), candidates) for kin in kins)
        return next((e for e in asked if e is not None), evidence)
    if evidence.verdict == "answer":
        # (and an answer that only guessed who was asked of, "assumed who: dad", gives way to the one the notes
        # say: "Pieter… they have a little girl, Femke" is the dad of "my granddaughter")
        if ((_MJ_says_neither(sit, evidence, candidates) or evidence.reason.startswith(_MC_ASSUMED))
                and (kin := _through_kin(sit, candidates)) is not None):
            return kin
        return evidence
    return _through_kin(sit, candidates) or evidence


_MC_ASSUMED = "assumed who: "  # the reason `_who_unsaid` gives


def _LD_not_asked_again(sit: Situation, candidates: Sequence[Note]) -> list[Note]:
    """The notes but those that are the question itself, asked before: a person asks again ("which one of
    my kids is vice captain" typed without its mark, stored, recalled word for word), and a sentence of the
    question told beside it ("…write us up for?? i want to make sure it doesnt happen AGAIN") is no fact
    about what is asked: the reply echoed it back."""

    def said(text: str) -> tuple[str, ...]:
        return tuple(w.casefold() for w in words(spelled_out(text)))

    asked = {said(sit.text), *(said(p) for p in sentences(sit.text))} - {()}
    return [n for n in candidates if said(n.text) not in asked]


def _MJ_says_neither(sit: Situation, evidence: Evidence, candidates: Sequence[Note]) -> bool:
    """Whether an answer to "<someone>'s <kin>" says neither that kin nor that someone (by name or as the
    person calls them): "what does my granddaughter's dad do?" is not "I am Sjoerd, dairy farmer", which
    only meets "do"; then the kin found in two steps answers (see `_through_kin`)."""
    told = [n for n in candidates if n.text.strip() and not is_question(n.text)]
    asked = next(_mh_kin_asked(cased_question(sit, told).text), None)
    if asked is None:
        return False
    owner, kin = asked[1].split()[-1].casefold(), asked[2].casefold()
    known = aliases(cased(glossed(told), sit.text))
    words_for = {stem(owner), stem(kin), *([stem(known[owner])] if owner in known else [])}
    said = [n.stems | frozenset(stem(w) for w in words(n.text)) for n in evidence.notes]
    return not any(covers(stems, w) for stems in said for w in words_for)


def _describes(name: str, text: str) -> bool:
    """Whether a note says who `name` is: "Rui is the shop manager", "a guy called Rui", "his wife Marta",
    "my physio, Greta", "Greta, my physio"."""
    n = re.escape(name)
    return re.search(
        rf"\b{n}(?:['’]s|\s+is|\s+was)\s+(?:now\s+|still\s+)?(?:a|an|the|my|our|his|her|their)\b"
        rf"|\b(?:called|named)\s+{n}\b|\b(?:my|our|his|her|their)\s+(?:[a-z-]+\s+){{0,2}}[a-z-]+,?\s+{n}\b"
        rf"|\b{n},\s+(?:my|our|his|her|their|the)\s+[a-z]",
        text,
        re.IGNORECASE,
    ) is not None


def _chosen(sit: Situation, candidates: Sequence[Note]) -> Evidence:
    if (through := _through_whom(sit, candidates)) is not None:
        return through
    told = [n for n in candidates if n.text.strip() and not is_question(n.text)]
    sit = by_age(cased_question(sit, told), told)
    ask = read_ask(sit)
    notes = cased(glossed(told), sit.text)
    known = aliases(notes)
    scored = _scored(sit, ask, notes, known)
    if not scored:
        return Evidence.unknown("nothing relevant is remembered", ask.hard)
    if not ask.terms and not ask.attributes:
        best = max(scored, key=lambda s: s.note.relevance)
        if best.note.relevance >= BARE_RELEVANCE:
            return Evidence("answer", (best.note,), "medium", f"no key word; strong match {best.note.relevance:.2f}")
        return Evidence.unknown("no key word and no strong match")
    ranked = sorted(scored, key=_Scored.key, reverse=True)
    best = ranked[0]
    if not best.hard and not best.terms and not best.attributes:
        return Evidence.unknown("no remembered note mentions " + ", ".join(ask.terms), ask.hard)
    # The answer may start from any of the best notes: "Rex had a vet visit" leads nowhere, "Ana
    # adopted a dog called Rex" leads to where Ana lives.
    starts = [s for s in ranked[:JOIN_STARTS] if len(s.hard) == len(best.hard)]
    verdicts = [_mh_located_verdict(sit, ask, _join(start, ranked, ask), ranked) for start in starts]
    answers = [v for v in verdicts if v.verdict == "answer"]
    if not answers:
        said_once = (choose(read_message(plain), candidates) for plain in in_one_step(sit.text))
        answered = next((e for e in said_once if e.verdict == "answer"), None)
        return answered or _who_unsaid(sit, ask, notes, known, verdicts[0])
    # of the person's own life ("the venue where we played our first gig"), an answer in their words
    # that says as much before one made of a document's alone (the contract's "play another headline show")
    def said(v: Evidence) -> int:
        return sum(any(covers(n.stems, t) for n in v.notes) for t in ask.terms)

    told = [v for v in answers if any(n.source != "chunk" for n in v.notes) and said(v) >= said(answers[0])]
    # of a document's lines alone, the answer that says more of the question ("please send the following
    # by 15 December" with its list's "medical certificate", not a rule about interns without one)
    if not told and (fuller := max(answers, key=said)) is not answers[0] and said(fuller) > said(answers[0]):
        answers = [fuller, *answers]
    first = told[0] if sit.about_me and told else answers[0]
    if first is verdicts[0]:
        first = _mh_second_hop(sit, ask, ranked, first) or first
    evidence = _with_change(first, ranked, ask)
    evidence = _updated(_corrected(evidence, ranked, ask, sit), ranked, ask, sit, notes)
    return _MV_side_said(_moved_from(evidence, ranked, ask, sit), ranked, sit)


# "which knee did the surgeon operate on?", "which eye is being done?": a side, which people say once ("pain
# in my right knee") and after that leave unsaid ("the knee is worse, surgery is 15 January")
_MV_PARTS = (r"knee|eye|ear|hand|arm|leg|foot|hip|shoulder|wrist|ankle|elbow|lung|kidney|breast|heel|thumb|hamstring"
             r"|calf|achilles")
_MV_WHICH_SIDE = re.compile(rf"\bwhich\s+(?P<part>{_MV_PARTS})s?\b", re.IGNORECASE)
# whose the part asked is, when not the person's own: "which knee did Marta hurt", "which eye is his bad one"
_MV_OTHERS = re.compile(rf"\b(?:his|her|their|[A-Z][a-z]+['’]s)\s+(?:\w+\s+)?(?:{_MV_PARTS})")


def _MV_side_said(evidence: Evidence, ranked: Sequence[_Scored], sit: Situation) -> Evidence:
    """Asked which of the person's knees (eyes, hands…), when the notes chosen say only "the knee": the
    person's newest note that says "my right knee" (or "my left knee"), when no note says the other side."""
    which = _MV_WHICH_SIDE.search(sit.text)
    if which is None or evidence.verdict != "answer" or _MV_OTHERS.search(sit.text) or re.search(
            r"\b(?:he|she|they)\b", sit.text, re.IGNORECASE):
        return evidence
    part = re.escape(which["part"])
    side = re.compile(rf"\b(?P<side>left|right)\s+{part}s?\b|\b{part}s?\W{{1,3}}(?P<after>left|right)\b", re.IGNORECASE)
    if any(side.search(n.text) for n in evidence.notes):
        return evidence
    mine = re.compile(rf"\bmy\s+(?:left|right)\s+{part}s?\b", re.IGNORECASE)
    said = [s.note for s in ranked if s.note.source != "chunk" and mine.search(s.note.text)]
    sides = {(m["side"] or m["after"]).casefold() for s in ranked for m in side.finditer(s.note.text)}
    if not said or len(sides) != 1:
        return evidence
    return replace(evidence, notes=(*evidence.notes, max(said, key=_when)))


def _moved_from(evidence: Evidence, ranked: Sequence[_Scored], ask: Ask, sit: Situation) -> Evidence:
    """A lone answer that only moves a date, given for a question that asks no time, and the note whose
    date it moved, which says the rest: "what is my project about?" is "…the studio project is now due 19
    December" and the earlier "my studio project is due on 14 December, it's a library for a small town".
    The earlier note is said first, so that the reply leads with the change and says the rest as history."""
    if len(evidence.notes) != 1 or ask.answer_type is not None or _TIME_ASKED.search(sit.text):
        return evidence
    top = next((s for s in ranked if s.note == evidence.notes[0]), None)
    if top is None or not corrects(top.note.text) or not _DATE.search(top.note.text):
        return evidence  # (a day: not a goal moved from 3:45 to 3:30, which is the answer itself)
    moved = [s.note for s in ranked if s is not top and s.hard == top.hard and s.note.source != "chunk"
             and _later(top.note, s.note) and _DATE.search(s.note.text)]  # fmt: skip
    return replace(evidence, notes=(max(moved, key=_when), top.note)) if moved else evidence


_TIME_ASKED = re.compile(r"\b(?:when|what time|what day|which day|what date|how long|until|till)\b", re.IGNORECASE)


def _corrected(evidence: Evidence, ranked: Sequence[_Scored], ask: Ask, sit: Situation) -> Evidence:
    """The answer and a later note that puts a new value against the very one it gives: "When is my
    knee operation?" is "The operation is planned for Thursday 14 January" and "…the knee operation is
    moved. Not 14 January anymore but Thursday 4 February", even when that note shares fewer words
    with the question. The value is one a chosen note of what is asked gives (one holding as many of
    the question's hard terms as any: not Dani's town in a note joined beside the grandchild's), and the
    correction is said last, so that the reply leads with it."""
    chosen = [s for s in ranked if s.note in evidence.notes]
    if not chosen or len(evidence.notes) > MAX_NOTES:
        return evidence
    most = max(len(s.hard) for s in chosen)
    values = {s.note: candidates(s.note.text, ask.answer_type, sit.text) for s in chosen if len(s.hard) == most}

    def replaces(n: Note) -> bool:  # says a value of those is gone, and was said after the note that gave it
        gone = _replaced(n.text, candidates(n.text, ask.answer_type, sit.text) | set().union(*values.values()))
        return any(found & gone and _later(n, old) for old, found in values.items())

    later = [s.note for s in ranked if s.note not in evidence.notes and corrects(s.note.text) and replaces(s.note)]
    if not later:
        return evidence
    newest = max(later, key=_when)
    return replace(evidence, notes=(*sorted(evidence.notes, key=_said_order), newest))


def _updated(
    evidence: Evidence, ranked: Sequence[_Scored], ask: Ask, sit: Situation, said: Sequence[Note] = ()
) -> Evidence:
    """The answer and the person's later news of the same thing: "how much is the bulgogi brisket taco
    now?" is "best seller is the bulgogi brisket taco, $4.50" and the later "taco's going from $4.50 to
    $5.25 starting april 1", which says fewer of the question's words. The news tells a change, gives an
    answer of the type asked and what the chosen note that answers best meets ("name", "job"), is said
    after it, and is about what it is about (see `_same_thing`). It is said last, so that the reply leads
    with it. Unless the question asks what is so now or how it ended, the news must also say that a word
    of that note is no longer so ("what fruit is Luke allergic to?": "…allergic to strawberries", then "its
    not strawberries at all, its kiwi"; not "Miso is actually five" for "what breed is Miso?")."""
    if ask.earlier:  # (however many notes were chosen: a join and a correction make four, and news still leads)
        return evidence
    chosen = [s for s in ranked if s.note in evidence.notes]
    if not chosen:
        return evidence
    best = chosen[0]
    idf = _idf(ask, [s.note for s in ranked])
    asked_now = _NOW.search(sit.text) or _ENDED.search(sit.text) or _CURRENT.search(sit.text)
    # (asked for no type of answer, news of the one named is not news of the thing asked: "We start the
    # Henderson kitchen install…" for "what's the total price on the Henderson job now?")
    names = {stem(n.split()[0]) for n in sit.names} if ask.answer_type is None else set()
    # (a turn is read with the news headline it follows: "I have news about the shop rent", then "…the letter
    # says 6,820 but he agreed to 6,550", which says neither rent nor shop)
    heads, order = [h for h in ranked if _UD_is_headline(h.note.text)], {id(n): i for i, n in enumerate(said)}
    news = [(s, note, head) for s, note, head in (_UD_headed(r, heads, order) for r in ranked)
            if note not in evidence.notes and s.note.source != "chunk" and (s.mine or not best.mine)
            and _later(s.note, best.note) and (head is not None or tells_change(s.note.text))
            and ((s.typed > 0 and best.attributes <= s.attributes and best.hard <= s.hard
                  and ((_same_thing(s, best, idf, names)
                        and (asked_now or bool(_no_longer(s.note.text) & best.note.said)))
                       # (a day asked, news that moves the day of all the chosen note must say: "Andrei's exam
                       # got postponed to 22 April" after "Andrei's driving exam is 14 April")
                       or (ask.answer_type == "time" and bool(best.hard) and _SU_RESCHEDULED.search(s.note.text)
                           is not None)))
                 # (or it puts a new number beside the one the chosen note gave: "planned for 80 but… 120 came")
                 # (not of a sort asked: "what kind of kibble…?" is no amount)
                 or (s.typed > 0 and best.attributes <= s.attributes and _UP_value_again(s.note, best.note, sit.text)
                     and not _UD_SORT_ASKED.search(sit.text))
                 # (or, asked what is so now, it names again what the chosen note named: "NEW TRUCK. Scania…
                 # Bunica goes to Paul" after "my truck is a Volvo… I call her Bunica")
                 or (asked_now and s.typed > 0 and best.attributes <= s.attributes and best.hard <= s.hard
                     and _UP_named_again(s.note, best.note, sit))
                 or ((_denies_of_named(s, best, sit) or _denies_said(s, best))
                     and (s.typed > 0 or ask.answer_type in (None, "thing") or _UD_denies_answer(s, best, ask, sit))))]
    if not news:
        return _UD_typed_news(evidence, ranked, best) if asked_now else evidence
    _, newest, head = max(news, key=lambda n: (len(n[0].terms & best.terms), _when(n[1])))
    told = (head, newest) if head is not None and head not in evidence.notes else (newest,)
    return replace(evidence, notes=(*sorted(evidence.notes, key=_said_order), *told))


# a day moved, which no longer is the one said before: "the exam got postponed to 22 April", "the op is
# rescheduled for the 4th", "moved to Friday" (a time asked: the moved one is the answer, asked "now" or not)
_SU_RESCHEDULED = re.compile(
    r"\b(?:postponed|rescheduled|pushed back|put back|brought forward|moved|changed|shifted|delayed)\s+"
    r"(?:again\s+)?(?:to|till|until|for)\b",
    re.IGNORECASE,
)
# a sort asked, not an amount: "what kind of kibble…", "which brand of…", "what colour…"
_UD_SORT_ASKED = re.compile(r"\b(?:what|which)\s+(?:kind|sort|type|brand|make|model|colou?r|breed|flavou?r)s?\b",
                            re.IGNORECASE)


def _UD_typed_news(evidence: Evidence, ranked: Sequence[_Scored], best: _Scored) -> Evidence:
    """Asked what is so now, when the chosen note gives no answer of the type asked ("…Marcus has left the
    bistro… Fiona says it's mad busy" for "where's Fiona working these days?"): the newest of the person's
    notes that say what it says of the question and give one, when that one tells a change ("she finished
    at Leith Walk on Friday and started at the Scottish Book Trust"), said last."""
    if best.typed > 0 or not best.hard:
        return evidence
    typed = [s for s in ranked if s.typed > 0 and s.note.source != "chunk" and best.hard <= s.hard
             and best.attributes <= s.attributes and (s.mine or not best.mine)]  # fmt: skip
    newest = max(typed, key=lambda s: _when(s.note), default=None)
    if newest is None or newest.note in evidence.notes or not tells_change(newest.note.text):
        return evidence
    return replace(evidence, notes=(*sorted(evidence.notes, key=_said_order), newest.note))


def _UD_denies_answer(news: _Scored, best: _Scored, ask: Ask, sit: Situation) -> bool:
    """Whether news says no to the very answer the chosen note gives, whatever the new value is said as:
    "not De Posthoorn, it is now in the canteen of the office" after "the farewell party is in Café De
    Posthoorn" (a place in lower case is no place typed, but De Posthoorn is no longer the answer)."""
    given = {stem(w) for w in candidates(best.note.text, ask.answer_type, sit.text) if w not in STOP}
    return bool(_no_longer(news.note.text) & given)


def _UD_headed(s: _Scored, heads: Sequence[_Scored], order: Mapping[int, int]) -> tuple[_Scored, Note, Note | None]:
    """A turn as read with the news headline it follows, when it follows one of `heads`: the turn before it
    that it leans on ("I have news about the shop rent", "Another update on the race, less cheerful."), or a
    sentence said just before it in its own message ("Change in the wedding date. New muhurtha is…"; `order`:
    each note's id → its place in the order said). Its words and the headline's, the turn itself and the
    headline; else the turn as it is, itself and None."""
    at = order.get(id(s.note), -1)
    heard = next((h for h in heads if h.note is not s.note
                  and ((s.note.after and h.note.ref == s.note.after != s.note.ref)
                       or (h.note.ref == s.note.ref and at - _UD_HEADED_SENTENCES <= order.get(id(h.note), at) < at))),
                 None)  # fmt: skip
    if heard is None:
        return s, s.note, None
    read = replace(s, note=replace(s.note, text=f"{heard.note.text} {s.note.text}"), hard=s.hard | heard.hard,
                   terms=s.terms | heard.terms, attributes=s.attributes | heard.attributes)  # fmt: skip
    return read, s.note, heard.note


def _UD_is_headline(text: str) -> bool:
    """Whether a short sentence announces news of a thing, said on after it: "I have news about the
    shop rent", "Another update on the race, less cheerful.", "mum update:", "Big news!", "Change in the
    wedding date.", "Scratch that Honda Amaze plan." (twelve words at most)."""
    return len(words(text)) <= _UD_HEADLINE_WORDS and _UD_HEADLINE.search(text) is not None


_UD_HEADLINE_WORDS = 12
_UD_HEADED_SENTENCES = 2  # a message's headline heads the sentences this close after it
_UD_HEADLINE = re.compile(
    r"\b(?:news|update|updates|change|changes)\b(?:\s+(?:about|on|of|in|regarding|re|from|for|with|to)\b|\s*[:!—–-])"
    r"|\bscratch that\b",
    re.IGNORECASE,
)


_CURRENT = re.compile(r"\bcurrent\b", re.IGNORECASE)  # "what is my current goal time…?"


def _UP_value_again(news: Note, old: Note, question: str) -> bool:
    """Whether news says again a number the chosen note gave (not one the question says) beside a new
    one, as a change is told: "…in 50:48, a new personal best (the previous one was 52:30)" after "My
    personal best over 10 km is 52:30"; "cut from 300 g to 250 g"."""
    asked = set(_NUMBER.findall(question))
    before, now = set(_NUMBER.findall(old.text)) - asked, set(_NUMBER.findall(news.text)) - asked
    again = {n for n in before & now if len(n) > 1 and not _YEAR.fullmatch(n)}  # (not "2", not "2026")
    return bool(again) and bool(now - before)


def _UP_named_again(news: Note, old: Note, sit: Situation) -> bool:
    """Whether news names again the name the chosen note gave the thing, which the question does not say
    ("my truck is a Volvo… I call her Bunica", then "NEW TRUCK. Scania R 450… Bunica goes to Paul"; not
    the doctor a note names beside it)."""
    asked = {w.casefold() for n in sit.names for w in n.split()}
    given = {w.casefold() for m in _UP_GIVEN_NAME.finditer(old.text) for w in m[1].split()} - asked
    return bool(given & {w.casefold() for n in names_in(news.text) for w in n.split()})


# the name given to a thing: "I call her Bunica", "a book club called the Beach Drive Readers"
_UP_GIVEN_NAME = re.compile(r"\b(?:call|calls|called|named)\s+(?:(?:her|him|it|them)\s+)?(?:the\s+)?"
                            r"([A-ZÀ-ÞĀ-Ž][\w'’-]*(?:\s+[A-ZÀ-ÞĀ-Ž][\w'’-]*)*)")


def _denies_of_named(news: _Scored, best: _Scored, sit: Situation) -> bool:
    """Whether later news says no to a word of the chosen note about a name that note gives and the
    question does not say: "what breed is my dog?" answered by "we adopted a dog, a grey whippet called
    Fumo" is corrected by "actually Fumo is a lurcher, not a whippet", which says neither "dog" nor "breed"."""
    asked = {n.casefold() for n in sit.names}
    named = {n.casefold() for n in names_in(best.note.text)} - asked
    return bool(named & {n.casefold() for n in names_in(news.note.text)}) and bool(
        _no_longer(news.note.text) & best.note.said
    )


def _denies_said(news: _Scored, best: _Scored) -> bool:
    """Whether later news of a thing the question names says no to a word the chosen note said of it:
    "what colours did mum pick?" answered by "mum is planning colours, she wants wine and gold" is
    changed by "mum now wants emerald green and gold, not wine", which says neither "pick" nor
    "colours"; "she comes across every other sunday" by "she'll come over on saturdays instead of sundays"."""
    return bool(news.hard & best.hard) and bool(_no_longer(news.note.text) & best.note.said)


def _same_thing(news: _Scored, best: _Scored, idf: Mapping[str, float], names: set[str]) -> bool:
    """Whether a note is about what the chosen one is: it says, in the very words asked (not through a
    word's group: "cleared me for driving" is no news of the car), at least half of the question's words
    the chosen one covers, each weighed by how rare it is ("Deepa", said in few notes, before "work")."""
    shared = [t for t in best.terms & news.terms if _said_as_asked(news.note.said, t)]
    shared += [t for t in best.terms - news.terms if _UP_head_said(news.note.text, t)]  # "hives" of "beehives"
    weight = sum(idf.get(t, 1.0) for t in shared)  # (a light verb alone is no thing: "he's getting bumped to $62k")
    thing = any(t not in _LIGHT_FORMS and t not in names for t in shared)  # (and no name of `names`)
    return thing and 2 * weight >= sum(idf.get(t, 1.0) for t in best.terms)


def _UP_head_said(text: str, term: str) -> bool:
    """Whether a text says the word a compound asked ends on, its head: "so 12 hives now" says the
    "beehives" of "how many beehives have I got now?" (a word of four letters or more, after one of three)."""
    heads = {stem(w) for w in words(text) if len(w) >= 4 and w.isalpha()}  # (not "he's")
    return any(len(h) >= 3 and len(term) - len(h) >= 3 and term.endswith(h) for h in heads)


# the stems of the light verbs as a question says them ("what did we end up getting appa…")
_LIGHT_FORMS = frozenset(stem(f) for v in _LIGHT_VERBS for f in (v, f"{v}s", f"{v}ing", f"{v}{v[-1]}ing"))


def _no_longer(text: str) -> frozenset[str]:
    """The stems of the words a note says are no longer so: denied ("not a shepherd anymore", "did not
    fly in the end") or replaced ("1:52 rather than 1:50", "instead of sundays")."""
    plain = _plain(text)
    replaced = {plain[i + 2] for i in range(len(plain) - 2) if (plain[i], plain[i + 1]) in _REPLACED}
    return frozenset(stem(w) for w in denied(text) | replaced if w not in STOP)


_REPLACED = {("rather", "than"), ("instead", "of")}  # the word after them is no longer so


# how it ended: "which car did we end up buying?"
_ENDED = re.compile(r"\b(?:(?:end|ends|ended|ending) up|in the end)\b", re.IGNORECASE)


def tells_change(text: str) -> bool:
    """Whether a note says something changed (`corrects`), or tells news of a new value in the ways a
    change is told without a word of correction: "going from $4.50 to $5.25", "starting august", "she
    started at the Book Trust", "got postponed to 22 April", "1:52 rather than 1:50"."""
    return corrects(text) or _CHANGE_NEWS.search(text) is not None


_CHANGE_NEWS = re.compile(
    r"\bfrom\s+[$€£]?\d[\d.,:]*\s*\w*\s+to\s+[$€£]?\d"  # a value from one to another
    rf"|\b(?:starting|from)\s+(?:on\s+|in\s+)?(?:the\s+)?(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?)?{_DAY_MONTH}\b"
    r"|\b(?:start|starts|started|starting)\s+(?:at|in|with|on)\b"
    r"|\b(?:transferred|postponed|rescheduled|pushed back|brought forward|revised|promoted|been made|leaving"
    r"|rather than|after all|turns out|turned out|in the end|raising|raises)\b"
    r"|\b(?:for good|permanently|from now on|(?:has|have|had)\s+decided\s+to)\b"  # "decided to stay at X for good"
    r"|\bnew\s+(?:[\w-]+\s+){1,2}(?:are|were)\b"  # "new dates are nov 5-19"
    r"|\b(?:the\s+)?(?:previous|old)\s+(?:one|record|best)\s+(?:was|being)\b"  # "(the previous one was 52:30)"
    r"|\bnot\s+(?:the\s+|a\s+)?[\w$€£.,:-]+\s+(?:but|at all)\b",  # "not 20 December but 10 January"
    re.IGNORECASE,
)

_AFTER_CLAUSE = word_set("in at from to before now these days for a living with on")  # "…live in?", "…do for a living?"
_ONLY_THE_NAME = re.compile(r"\W*what(?:'s|s| is)?\s+(?:the\s+)?(?:full\s+)?name\s+of\s+", re.IGNORECASE)
_A_THING_BEFORE = word_set("the a an called named my our his her their")


def by_what_they_did(question: str) -> tuple[int, int, str] | None:
    """Where a question names someone by a relative clause, and that clause asked on its own: "what
    is the guy who bought my old hilux studying?" → (the span of "the guy … hilux", "who bought my old
    hilux?"). After "does/did" the question's own verb closes the clause ("where does the uncle who
    started me off with bees live?"); after "is/was" a last "-ing" word does ("… studying?")."""
    m = _DESCRIBED.search(question)
    if not m or (m["head"].casefold() not in _SOMEONE and m["rel"].casefold() != "who"):  # ("the joiner who…")
        return None
    spans = list(re.finditer(r"\S+", m["clause"]))  # (where each word ends: spaces may be doubled)
    clause = [w[0] for w in spans]
    folded = [w.casefold() for w in clause]
    before = question[: m.start()].casefold().split()
    closes = not question[m.end("clause") :].lstrip().startswith(",")
    cut = len(clause)
    if closes and set(before) & {"do", "does", "did", "is", "was", "are", "were"}:
        if "do" in folded[1:]:  # "… do for a living?"
            cut = folded.index("do", 1)
        else:
            while cut > 1 and folded[cut - 1] in _AFTER_CLAUSE:
                cut -= 1
            if set(before) & {"do", "does", "did"} or folded[cut - 1].endswith("ing"):
                cut -= 1
    if cut < 1:
        return None
    said = " ".join(clause[:cut])
    end = m.start("clause") + spans[cut - 1].end()
    return m.start(), end, f"{'whose' if m['rel'].casefold() == 'whose' else 'who'} {said}?"


def _through_whom(sit: Situation, candidates: Sequence[Note]) -> Evidence | None:
    """A question about someone named by what they did, answered in two steps: the one note that says
    the whole clause gives the name ("who bought my old hilux?": "the old Hilux i sold to Giorgos"),
    then the question is asked of that name ("what is Giorgos studying?"). None when the question names
    no one that way, when no note says the whole clause, or when the name leads to no answer."""
    found = by_what_they_did(sit.text)
    both = _RC_WHO_AND.match(sit.text) if found is None else None
    if both:  # "Who made the cake for the party, and what's the name of her bakery?": asked of who made it
        found = (0, both.end("clause"), f"{both['clause']}?")
    if found is None or _ONLY_THE_NAME.fullmatch(sit.text[: found[0]]):
        return None  # ("what's the name of the vet who saw Ursu?": the one named is the answer)
    start, end, clause = found
    first = choose(read_message(clause), candidates)
    terms = read_ask(read_message(clause)).terms
    said = _DESCRIBED.search(sit.text) if not both else None
    trade = said["head"] if said and said["head"].casefold() not in _SOMEONE else ""
    if trade:  # "the joiner who…": the note that names them says so
        terms = (*terms, stem(trade))
    lead = next((n for n in first.notes if all(covers(n.stems, t) for t in terms)), None)
    doer = _RC_doer(clause, first) if lead is None and first.verdict == "answer" and not trade else None
    if doer is not None:
        lead, _ = doer
    if first.verdict != "answer" or lead is None:
        return None
    asked = {n.casefold() for n in names_in(sit.text)}
    named = [n for n in dict.fromkeys(names_in(lead.text))
             if n.casefold() not in asked and n.casefold() not in clause.casefold() and not is_calendar(n)]  # fmt: skip
    # (nor a name that ends on one the clause says: "Found Shane's replacement" read as "Found Shane")
    named = [n for n in named if n.split()[-1].casefold() not in words(clause)]
    seen = {n: _said_as_someone(lead.text, n) for n in named}
    people = sorted((n for n in named if seen[n] is not False),
                    key=lambda n: (seen[n] is None, _words_apart(lead.text, n, terms)))  # fmt: skip
    people = [doer[1]] if doer is not None else people
    # what is asked of them is first sought beyond the notes that say the clause ("i keep 14 hives at dad's
    # place in Jucu… started with 3 hives my uncle Nelu gave me" tells no place of Nelu's)
    others = [n for n in candidates if not all(covers(n.stems, t) for t in terms)]
    for name in people[:2]:
        asked_of = read_message(_asked_of(sit.text, start, end, name))
        then = choose(asked_of, others)
        then = then if then.verdict == "answer" else choose(asked_of, candidates)
        if then.verdict == "answer":
            notes = tuple(dict.fromkeys((lead, *then.notes)))[: MAX_NOTES + 1]
            did = _RC_WHO_FIRST.sub("", clause).rstrip("?")
            return replace(then, notes=notes, reason=f"{name} {did}; {then.reason}")
    return None


_RC_WHO_FIRST = re.compile(r"^(?i:who)\s+")
# a question about who did something, then about them by a pronoun: "Who fixed the boiler, and where is he
# based?" (not "Who fixed the boiler, and when?": nothing is asked of them)
_RC_WHO_AND = re.compile(
    r"^\W*(?P<clause>(?i:who)\s+[^,?]+?),?\s+(?i:and)\s+(?=(?i:what|where|which|how|when|who)\b[^?]*\b(?i:he|she|they"
    r"|his|her|their|him|them)\b)"
)


def _RC_doer(clause: str, first: Evidence) -> tuple[Note, str] | None:
    """When no note says the whole clause, the note that names who did its deed, as the deed's subject:
    "who stayed with my dad after his eye op?" is Daniela in "Daniela stayed with him 3 nights after",
    which goes on from "dad's op went fine" (the clause's own answer, whose notes together say what it
    names). Not one named elsewhere in the note ("bought the Navara! … Manolis says…"), nor one the deed
    was done to ("i sold it to Giorgos")."""
    said = words(clause)
    ask = read_ask(read_message(clause))
    minded = re.match(rf"\W*who\s+{_RC_MINDING}\s+(?:after\s+)?({NAME_WORD})\b", clause, re.IGNORECASE)
    if minded:  # "who dog-sat Biscuit…?": "Biscuit stayed with my best friend Patty" (whom one was left with)
        left_with = re.compile(rf"\b{re.escape(minded[1])}\s+(?:\w+\s+)?(?:stayed|stays|was staying|is staying"
                               rf"|went|goes|is going)\s+(?:with|to)\s+(?:[a-z'’]+\s+){{0,4}}({NAME_WORD})\b")
        return next(((n, m[1]) for n in first.notes for m in [left_with.search(n.text)] if m), None)
    if len(said) < 2 or stem(said[1]) not in (*ask.terms, *ask.hard) or stem(said[1]) in _RC_LIGHT:
        return None
    deed = stem(said[1])
    if not all(any(covers(n.stems, t) for n in first.notes) for t in ask.hard):
        return None
    for note in first.notes:
        for m in re.finditer(rf"\b({NAME_WORD})\s+(?:(?:is|was|has|had|will|also|just|already|\w+ly)\s+){{0,2}}"
                             rf"([a-z][\w'’-]*)", note.text):
            if (covers(frozenset({stem(m[2])}), deed) and not is_calendar(m[1]) and m[1].casefold() not in STOP
                    and m[1] in names_in(note.text)):
                return note, m[1]
    return None


# minding a pet, a child or a house while its people are away
_RC_MINDING = r"(?:(?:dog|pet|cat|baby|house)-?(?:sat|sit|sits|sitting)|minded|minds|mind|looked|looks|look|watched)"
_RC_LIGHT = frozenset(stem(w) for w in ("is", "was", "are", "were", "has", "had", "got", "get", "gets", "did", "does"))


def _through_kin(sit: Situation, candidates: Sequence[Note]) -> Evidence | None:
    """A question about someone named as another's kin, answered in two steps when no note says it in
    one: whom the notes call that ("Ørjan's mum Gunvor"; "my boss" first read as the name the person
    calls so), then the question asked of that name ("where does Gunvor live?"). A question asking only
    the name ("what's Femke's mum called?") is answered by the note that gives it."""
    told = [n for n in candidates if n.text.strip() and not is_question(n.text)]
    sit = cased_question(sit, told)
    kin_asked = (m for m in _mh_kin_asked(sit.text) if m[1].casefold() not in STOP
                and (stem(m[2]) in _KIN_STEMS or _kin_steps(stem(m[2])) or m[2].casefold() in _MH_OWNER))
    # (or "mother-in-law": in two steps; or "Pickle's owner": see `_mh_owner_of`)
    asked = next(kin_asked, None)
    if asked is None:
        return None
    name, kin = asked[1], asked[2].casefold()
    if name.split()[0].casefold() in ("my", "our"):
        known = aliases(cased(glossed(told), sit.text))
        mine = known.get(name.split()[-1].casefold())
        if mine is None:  # ("my daughter": the one she/he of the kids the notes list, see `child_by_pronoun`)
            child = child_by_pronoun(name.split()[-1].casefold(), told, known)
            if child is None:
                return None
            mine = child[1]
        name = mine.title()
    called = aliases(told)
    readings = _readings(told, called)
    said = [(n, w) for n, r in zip(told, readings, strict=True) for t in (n.text, r) for w in kin_named(name, kin, t)]
    who = {w.casefold() for _, w in said}
    said = said if len(who) == 1 else _kin_of_alias(name, kin, told, called)
    said = said or _kin_in_two_steps(name, kin, told, readings)
    said = said or _mh_parent_of_alias(name, kin, told, called)
    said = said or _mh_their_child(name, kin, told)
    said = said or _mh_owner_of(name, kin, told, readings)
    said = said or _mh_by_surname(name, kin, told, readings)
    said = said or _mh_parent_said(name, kin, told, readings)
    said = said or _MJ_parents_naming(name, kin, told, readings)
    said = said or _MJ_couple_child(name, kin, told, readings)
    if not said and kin in _PARENT_WORDS:
        return _mh_through_sibling(sit, asked, name, told, candidates)
    if not said:
        return None
    lead, person = said[0]
    rest = sit.text[: asked.start()] + " " + re.sub(r"^['’]s\b", "", sit.text[asked.end() :])  # "…husband's name"
    if set(words(rest)) <= _NAME_ONLY:
        return Evidence("answer", (lead,), "medium", f"{person}, {name}'s {kin}")
    # asked first of the other notes: the one that says whose kin they are seldom says more of them
    # ("Naoko, the daughter of tia Kazuko. she live in Hamamatsu" is where Naoko lives)
    question = read_message(f"{sit.text[: asked.start()]}{person}{sit.text[asked.end():]}")
    giving = {n.ref for n, _ in said}
    then = choose(question, [n for n in candidates if n.ref not in giving])
    then = then if then.verdict == "answer" else choose(question, candidates)
    if then.verdict != "answer":
        return None
    notes = tuple(dict.fromkeys((lead, *then.notes)))[: MAX_NOTES + 1]
    return replace(then, notes=notes, reason=f"{person}, {name}'s {kin}; {then.reason}")


def _mh_through_sibling(
    sit: Situation, asked: re.Match[str], name: str, told: Sequence[Note], candidates: Sequence[Note]
) -> Evidence | None:
    """One's brother's or sister's mum or dad is one's own: "which city does Hemi's mum live in?" asked
    as "… Mereana's mum …" when a note says "Mereana's brother Hemi"."""
    sibling = _mh_sibling_of(name, told)
    if sibling is None:
        return None
    lead, person = sibling
    question = read_message(f"{sit.text[: asked.start()]}{person}'s {asked[2]}{sit.text[asked.end():]}")
    then = choose(question, candidates)
    if then.verdict != "answer":
        return None
    notes = tuple(dict.fromkeys((lead, *then.notes)))[: MAX_NOTES + 1]
    return replace(then, notes=notes, reason=f"{name}, {person}'s sibling; {then.reason}")


def _said_as_someone(text: str, name: str) -> bool | None:
    """Whether a note says `name` as a person ("my friend Patty": True), as a thing ("the Stramash",
    "my leopard gecko Noodle" is a pet, so a person here; "Marek's old Ford Focus": False), or neither."""
    first = words(name)[0]
    verdict: bool | None = None
    # (read within its sentence: "Found Shane's replacement. Mitch Ropata, …" says no thing of Shane's called Mitch)
    for said, i in ((part, i) for part in map(words, sentences(text)) for i, w in enumerate(part) if w == first):
        before = said[max(0, i - 3) : i]
        if set(before) & WHO:
            return True
        if before and (before[-1] in _A_THING_BEFORE or any(w.endswith("'s") for w in before)):
            verdict = False
    return verdict


def _words_apart(text: str, name: str, terms: Sequence[str]) -> int:
    """How few words stand between `name` and a word of the clause in the note ("Dev's on nights")."""
    said = words(text)
    at = [i for i, w in enumerate(said) if w == words(name)[0]]
    hits = [i for i, w in enumerate(said) if any(covers(frozenset({stem(w)}), t) for t in terms)]
    return min((abs(i - j) for i in at for j in hits), default=len(said))


def _asked_of(question: str, start: int, end: int, name: str) -> str:
    """The question asked of `name` instead of the one it described; a question that starts with the
    one described ("The lad who set up this tablet for me, where does he work now?") asks it of the
    pronoun that stands for them."""
    if question[:start].strip():
        return question[:start] + name + question[end:]
    rest = re.sub(r"^and\s+", "", question[end:].lstrip(" ,—–-"), flags=re.IGNORECASE)
    rest = re.sub(r"\b(?:his|her|their)\b", lambda _: f"{name}'s", rest, count=1, flags=re.IGNORECASE)
    return re.sub(r"\b(?:he|she|they)\b", lambda _: name, rest, count=1, flags=re.IGNORECASE)


def _with_change(evidence: Evidence, ranked: Sequence[_Scored], ask: Ask) -> Evidence:
    """The answer and the person's later news of the kind of thing asked, when a question asks what is
    so now: "what dose of levothyroxine do I take?" is "I take levothyroxine 50 mcg" and "Actually my dose
    was raised to 75 mcg last week", which shares no word with it but the dose."""
    if not (ask.now and ask.category and ask.answer_type) or len(evidence.notes) >= MAX_NOTES:
        return evidence
    news = [s for s in ranked if s.note not in evidence.notes and s.mine and s.typed and s.note.source != "chunk"
            and covers(s.note.said, ask.category) and corrects(s.note.text)
            and all(_later(s.note, n) for n in evidence.notes)
            # (a time asked is of something: "what day do we fly to Porto?" is not "no more nights, only days")
            and (_TYPE_NOUNS.get(ask.category) != "time" or any(covers(s.note.said, t) for t in ask.terms
                                                                 if t != ask.category))]  # fmt: skip
    if not news:
        return evidence
    newest = max(news, key=lambda s: _when(s.note)).note
    return replace(evidence, notes=tuple(sorted((*evidence.notes, newest), key=_said_order)))


def _join(best: _Scored, ranked: Sequence[_Scored], ask: Ask) -> list[_Scored]:
    """The best note, plus notes linked to the chosen ones that add what is still missing: a hard
    term, the answer's type, an attribute, or another key word (in that order of worth). Of notes
    that add as much the newest joins: "my sister moved to Porto" corrects "Ana lives in Lisbon"."""
    chosen = [best]
    while len(chosen) < MAX_NOTES:
        linked = [s for s in ranked if s not in chosen and any(_linked(s, c) for c in chosen)]
        gains = [(_gain(s, chosen, ask), s) for s in linked]
        # A correction need not name anyone: "hockey moved, we're Thursdays at 8 pm now" corrects
        # "I play hockey Wednesday nights" through a word they share (the person's own, for "I").
        sharing = [
            s for s in ranked
            if s not in chosen and s not in linked
            and (s.hard & best.hard or (s.subject and s.terms & best.terms) or len(s.terms & best.terms) >= 2
                 # "the holiday is in july not june": a value put against the one chosen, of a word asked
                 or (s.terms & best.terms and _CONTRAST.search(s.note.text) is not None))
        ]  # fmt: skip
        gains += [(g, s) for s in sharing if (g := _gain(s, chosen, ask))[1] or _puts_against(s, chosen)
                  or _mh_names_the_one(s, g, best, ask)]
        # When none of those gives the answer in the very form asked, a note that does joins through
        # any word asked, for that alone ("what time…": the letter's "arrive at 7.30am" for "the
        # hospital letter came through with a date").
        if max((s.typed for _, s in gains), default=0) < 2 > max(c.typed for c in chosen):
            for s in ranked:
                if s not in chosen and s not in linked and s.typed == 2 and s.terms & best.terms:
                    hard, _, *rest = _gain(s, chosen, ask)
                    gains.append(((hard, False, *rest), s))  # pyright: ignore[reportArgumentType]
        # a document's sentences stand alone: one joins for what the answer needs, not for a shared word
        # ("…the superintendent, who lives in Unit 1" adds nothing to "comes with one parking space, stall 7")
        # (and a later "it's 380 not 420" puts an amount against the one chosen, though it says it bare)
        useful = [(g, s) for g, s in gains
                  if any(g[:4]) or (any(g) and s.note.source != "chunk")
                  or (ask.answer_type == "number" and _LD_AGAINST.search(s.note.text) and _puts_against(s, chosen))]
        if _says_all(chosen, ask):  # then only a correction, the turn a chosen one's pronoun needs, or
            # the person's own note of all that is asked in the very form asked ("10 March" for "in March")
            useful = [(g, s) for g, s in useful
                      if g[1] or any(_leans_on(c.note, s.note) or _MJ_names_whom(s, c, chosen) for c in chosen)
                      or (g[2] and s.typed == 2 and s.mine and s.hard == set(ask.hard))]  # fmt: skip
        if not useful:
            return chosen
        # the newest of notes that add as much; leaning on a chosen one counts only between equals, and
        # before the time when neither corrects ("It's white" goes on about the new car; a newer
        # "…a brown mixed-breed girl" only shares a word with it)
        # (a document's sentences are as new as each other: the best ranked of them)
        # (of corrections, the one that says more of what is asked: "new guitarist is Shae", not the
        # newer "band's moved rehearsals now", for "who plays guitar in the band now?")
        newest = [(g[:-1], len(s.terms | s.hard) if g[1] else 0, 0 if g[1] else g[-1],
                   _when(s.note) if s.note.source != "chunk" else 0.0, g[-1], s.key()) for g, s in useful]  # fmt: skip
        chosen.append(useful[newest.index(max(newest))][1])
    return chosen


_MH_HOP_STARTS = 8  # how many of the best notes may be the second step of a chain from the best one


def _mh_second_hop(sit: Situation, ask: Ask, ranked: Sequence[_Scored], first: Evidence) -> Evidence | None:
    """The answer reached from a lower ranked note that leads back to the best one through a rare name
    the question does not say, when the best one's own chain never took that step: the discharge table's
    "Apixaban (Eliquis) | 2.5 mg…" joins "I really dislike the blood thinner — it's that Eliquis" for
    "what dose of that blood thinner I hated was I prescribed?", though from the best note it adds no
    word asked. The chain must start at a note the best one's chain lacks, hold the best note, and say
    as much of the question in as good a form."""
    def said(v: Evidence) -> tuple[int, int]:  # the question's key words the chosen notes say, and the answer's form
        return (sum(any(covers(n.stems, t) for n in v.notes) for t in ask.terms),
                max((s.typed for s in ranked if s.note in v.notes), default=0))  # fmt: skip

    best = ranked[0]
    # only when no chosen note that says something asked gives a value of the kind asked ("New guitarist is
    # Shae", "Actually my sister Ana moved to Porto"): the value came with a note joined for nothing asked
    if ask.answer_type is None or any(s.typed and (s.terms or s.hard) for s in ranked if s.note in first.notes):
        return None
    asked = frozenset(ask.terms) | frozenset(ask.hard)
    for start in ranked[1:_MH_HOP_STARTS]:
        # (a step through what the question does not name: "Dr Kalaitzaki", not "Dr Vardakis" asked)
        # (and a rare one, said in at most 3 notes: not the daughter named in every note of her baby)
        bridges = {n for n in start.about & best.about if not all(covers(asked, stem(w)) for w in n.split())}
        if start.note in first.notes or not any(sum(n in s.about for s in ranked) <= _MH_BRIDGE_NOTES for n in bridges):
            continue
        if not start.typed:
            continue  # (it gives a value of the kind asked: not "Ana adopted a dog called Rex")
        chain = _join(start, ranked, ask)
        if best not in chain:
            continue
        hop = _mh_located_verdict(sit, ask, chain, ranked)
        if hop.verdict == "answer" and all(a >= b for a, b in zip(said(hop), said(first), strict=True)):
            return hop
    return None


_MH_WHERE_NOUNS = _PLACE_NOUNS | word_set("street road area part")
_MH_BRIDGE_NOTES = 3  # at most this many notes name what leads from one note to the next


def _mh_located_verdict(sit: Situation, ask: Ask, chosen: list[_Scored], ranked: Sequence[_Scored]) -> Evidence:
    """The verdict on the chosen notes, with the note of where the place they give is when it answers as
    well (see `_mh_located`): a second step adds to an answer, it never makes one."""
    first = _verdict(sit, ask, chosen)
    located = _mh_located(chosen, ranked, ask, sit.text) if first.verdict == "answer" else chosen
    then = _verdict(sit, ask, located) if located is not chosen else first
    return then if then.verdict == "answer" else first


def _mh_located(chosen: list[_Scored], ranked: Sequence[_Scored], ask: Ask, question: str) -> list[_Scored]:
    """For "which town…", when no chosen note names a place as asked but one gives the place as someone
    or something named ("we stay in the house of Naoko", "bought it from Van der Meer Agri", "2 doors up
    from Lucia"): the best ranked note that names that one beside another place ("…Naoko… she live in
    Hamamatsu") joins, as the second step of the answer, in place of a joined note that leads to neither."""
    noun = next((m[1].casefold() for m in _WHICH_PLACE.finditer(question) if m[1].casefold() in _MH_WHERE_NOUNS), "")
    if not noun or ask.answer_type != "place" or any(c.typed == 2 for c in chosen):
        return chosen
    said = [set(_plain(s.note.text)) for s in ranked]
    asked = set(ask.terms) | set(ask.hard)
    # (a bridge is a rare name, not asked: not "Japan", said in every note of the trip)
    given = {w for c in chosen for w in candidates(c.note.text, "place", question)
             if stem(w) not in asked and sum(w in words_of for words_of in said) <= _MH_BRIDGE_NOTES}  # fmt: skip
    for s, words_of in zip(ranked, said, strict=True):
        bridge = given & words_of
        if s in chosen or not bridge or not candidates(s.note.text, "place", "") - given - set(_plain(question)):
            continue  # (its places said anywhere: not only beside the words asked)
        kept = [c for i, c in enumerate(chosen) if i == 0 or bridge & set(_plain(c.note.text))]
        kept += [c for c in chosen if c not in kept][: MAX_NOTES - 1 - len(kept)]
        return [c for c in chosen if c in kept] + [s] if len(kept) < MAX_NOTES else chosen
    return chosen


def _puts_against(s: _Scored, chosen: Sequence[_Scored]) -> bool:
    """Whether a later note says a number or a name a chosen note gives is no longer so, though the
    question asks no type of answer: "correction about Ike, he's in 400 level not 300" for "Ikenna is in
    300 level… at FUTO" (see `_replaced`)."""
    if not corrects(s.note.text):
        return False

    def values(text: str) -> set[str]:  # its numbers and one-word names
        return {w for w in _plain(text) if any(ch.isdigit() for ch in w)} | {
            n.casefold() for n in names_in(text) if " " not in n}  # fmt: skip

    said = values(s.note.text)
    for c in chosen:
        given = values(c.note.text)
        if _later(s.note, c.note) and _replaced(s.note.text, given | said) & given:
            return True
    return False


def _says_all(chosen: Sequence[_Scored], ask: Ask) -> bool:
    """Whether the chosen notes already say everything asked: more would only be read into the answer
    ("Priya is a pharmacist" and "Priya's mother… was a dentist" became "She's a dentist")."""
    said = frozenset().union(*(c.terms for c in chosen)) | frozenset().union(*(c.hard for c in chosen))
    met = frozenset().union(*(c.attributes for c in chosen))
    # (a time in the very form asked: "the ceremony yesterday" is no date for "when was the wedding?")
    typed = ask.answer_type is None or any(c.typed >= (2 if ask.answer_type == "time" else 1) for c in chosen)
    return set(ask.hard) | set(ask.terms) <= said and set(ask.attributes) <= met and typed


def _gain(s: _Scored, chosen: Sequence[_Scored], ask: Ask) -> tuple[int, int, int, int, int, int]:
    """What a note adds to the chosen ones: hard terms, a newer answer of the asked type that says
    it corrects ("now", "moved", "anymore"), the type (or its very form asked), attributes, key words;
    and last, the turn a chosen one leans on or that leans on it ("We're moving! … Dartmouth" and
    "It's the upper flat…")."""
    hard = frozenset().union(*(c.hard for c in chosen))
    attributes = frozenset().union(*(c.attributes for c in chosen))
    terms = frozenset().union(*(c.terms for c in chosen))
    typed = max(c.typed for c in chosen)
    # (of two that correct, one about the very one answered first: "NEW TRUCK. Scania… Bunica goes to Paul"
    # for "my truck is a Volvo… I call her Bunica", not "the ferry for 2 cars… Sozopol instead")
    answered = _answer_names(chosen, ask)
    shared = bool(s.about & answered)
    correction = 1 + shared if (
        # it gives an answer: not "switched bouldering to Mondays" for "where do I go climbing?"; a name
        # beside the answer it drops is of that answer's type ("so scrap Baguio… now he wants Ilocos instead")
        (s.typed > 0 or (shared and bool(s.about - answered)))
        and (ask.now or (ask.answer_type is not None and typed > 0))
        and corrects(s.note.text)
        and all(_later(s.note, c.note) for c in chosen)
        # it changes the answer itself ("Greta's gone on mat leave so I'm seeing Ben now" for "seeing Greta
        # at Northside Physio"; "Finally finished The Shipping News"), or it says what is asked in its own
        # words (not "he runs the program" read as work, for "who do I work for?") and, of what the person
        # does, the doing or the kind of answer asked ("hockey moved, we're Thursdays now" for "which
        # night…"): not "band's moved rehearsals" for "what do I play in the band?"
        # news of the person's own answer is told by the person: not "Cathal got a new job, he's moving to a
        # school in Galway" for "where am I from?" ("I'm from Braga… lived in Galway for nine years")
        and (s.mine or not chosen[0].subject)
        and (shared
             # (and of whoever the answer is of: not news of the partner for "where does my partner's sister
             # live?", nor for "where does Priya's fiancé work?")
             or (_LD_of_the_one(s, chosen[0], ask)
                 # (not "bought" alone)
                 and any(covers(_moving_said(s.note), t) for t in (s.terms | s.hard) - {ask.verb})
                 and (not ask.verb or covers(s.note.stems, ask.verb) or ask.answer_type is not None)
                 # and of the thing asked, not only of the one named ("the new adviser is Sir Tolentino"
                 # for "who's Migo's ninang?")
                 and (not ask.things
                      or any(t not in set(ask.hard) - set(ask.things) for t in (s.terms | s.hard) - {ask.verb}))))
    ) else 0
    leans = any(_leans_on(c.note, s.note) or _leans_on(s.note, c.note, own_name=True) for c in chosen)
    # (before a turn it leans on, the one that names whom a chosen one's pronoun means: "Claire's parents
    # live in Annecy" for "It was she who chose the name Zaatar", read through "For her birthday…")
    names = any(_MJ_names_whom(s, c, chosen) for c in chosen)
    return (len(s.hard - hard), correction, max(0, s.typed - typed), len(s.attributes - attributes),
            len(s.terms - terms), 2 if names else int(leans))  # fmt: skip


def _MJ_names_whom(s: _Scored, c: _Scored, chosen: Sequence[_Scored]) -> bool:
    """Whether a note names, in its own words, one whom a chosen note says only by a pronoun (its
    reading names them: see `people.reading`), in the chain of turns that chosen note leans on, and
    no chosen note names them yet (one note that names them is enough)."""
    if not c.note.after:
        return False
    said = " ".join(n.note.text for n in chosen).casefold()
    # (named in its reading: not one it says as "my daughter", a word for them)
    meant = {e for e in c.about if e not in said and e in s.note.text.casefold()
             and re.search(rf"\b{re.escape(e)}\b", c.read, re.IGNORECASE)}  # fmt: skip
    return bool(meant) and any(e in {n.casefold() for n in names_in(s.note.text)} for e in meant)


def _moving_said(note: Note) -> frozenset[str]:
    """A note's words, without its moving when only a thing moved: "the flights moved, we now fly on the
    20th" is no news of where the person lives, "we moved to York" is."""
    if _THING_MOVED.search(note.text) and not _PERSON_MOVED.search(note.text):
        return note.said - _TL_MOVE
    return note.said


# "the flights moved", "our appointment has been moved", "rehearsals got moved"; and the person moving:
# "we moved", "I'm moving", "Ana moved to Porto" (a name: a capital not opening the text)
_THING_MOVED = re.compile(
    r"\b(?:the|our|my|his|her|their|its)\s+(?:[\w-]+\s+){0,2}?(?:(?:has|have|had|was|were|got|been|is|are)\s+)*"
    r"(?:moved|moving)\b",
    re.IGNORECASE,
)
_PERSON_MOVED = re.compile(
    r"\b(?:(?i:i|we|he|she|they)(?:['’](?:ve|m|re|s|d))?|(?<!^)[A-Z][a-z]+)\s+(?:(?i:just|finally|have|has|are|is|am|were)\s+)*"
    r"(?i:moved|moving|move)\b(?!\s+(?i:it|them|the|our|my|his|her|their)\b)"
)


_LD_AGAINST = re.compile(r"\d(?:\s*[a-z€$£%]+)?[,;]?\s+not\s+[€$£]?\d")  # "380 not 420", "£45, not £40"


def _LD_of_the_one(news: _Scored, best: _Scored, ask: Ask) -> bool:
    """Whether news is of whoever the best note's answer is of: the one whose it is asked ("Priya's fiancé":
    Priya), and the last of a chain of kin ("my partner's sister": the sister), as far as the best says them."""
    whose = [o for o in ask.owners if o in best.hard]
    last = [ask.things[-1]] if len(ask.things) >= 2 and ask.things[-1] in best.hard else []
    if all(t in news.hard for t in (*whose, *last)):
        return True
    # news that names no one else may be of them: "Swimming moved too, she went up a level…", "ANDREI
    # PASSED!!! first try, 22 April", "Handball has changed after the summer" (a word asked is no one)
    theirs = {n.casefold() for n in people_in(best.note.text)}
    return not [n for n in people_in(news.note.text) if n.casefold() not in theirs
                and not is_calendar(n.casefold()) and stem(n.casefold()) not in ask.terms]


def _answer_names(chosen: Sequence[_Scored], ask: Ask) -> frozenset[str]:
    """Who and what the chosen notes name, in the sentences that say what is asked ("I'm slowly reading
    The Shipping News": the book; not "we rehearse at Bunker" for "what do I play?"), that the question
    does not (lower-cased)."""
    asked = set(ask.hard) | set(ask.terms)
    names: set[str] = set()
    for i, c in enumerate(chosen):
        said = [p for p in sentences(c.note.text) if any(covers(_said(p), t) for t in asked)]
        # (the best note names its answer whatever words it says it in; a note joined only as the turn
        # another leans on names none: "Cathal's sister is minding the cat while we're away" is no answer
        # to "what day do we fly to Porto?")
        said = said or ([c.note.text] if i == 0 else [])
        # (whose it is is not what is answered: "Cathal's sister Niamh… lives in Salthill" answers with
        # Niamh, and news of Cathal's job corrects nothing of hers)
        names |= {n.casefold() for p in said for n in names_in(p) if not _LD_only_owner(n, p)}
    return frozenset(n for n in names if stem(n) not in asked and not is_calendar(n))


def _LD_only_owner(name: str, text: str) -> bool:
    """Whether a name is said in a text only as whose kin someone is ("Cathal's sister Niamh"; not "Kuba's
    football mad": Kuba is)."""
    said = [m.end() for m in re.finditer(rf"\b{re.escape(name)}\b", text)]
    return bool(said) and all(
        (m := re.match(r"['’]s\s+([a-z]+)", text[e:])) and stem(m[1]) in _KIN_STEMS for e in said
    )


def _who_unsaid(
    sit: Situation, ask: Ask, notes: Sequence[Note], known: Mapping[str, str], refused: Evidence
) -> Evidence:
    """When the only words no note says are who the question is about ("where does Lili's fiance work?"
    where the notes say "she's seeing Marius, a customs officer at Bors"), the answer read without them,
    at low confidence, with those words as `missing` so the reply says who it took them to be.

    People are often told by name and asked by relation: the link ("Marius is her fiance") is the one
    thing never said. Not when the relation is itself what is asked ("what's Pavlos' wife called?",
    "who is…") or an amount hangs on it ("the dog's vet bill"): there an answer would be a guess at the
    very thing asked; nor when nothing else the question must say is said ("what does my sister do?" when
    no sister was ever told: someone else's job). Measured on the replay of seventeen personas: five more
    right, no abstention lost.
    """
    missing = set(refused.missing)
    if not refused.reason.startswith("nothing remembered about") or not missing:
        return refused
    # (a name asked of a thing of theirs is no guess at who they are: "what's my brother-in-law's boat called?")
    thing_named = bool(sit.heads) and sit.heads[-1] not in {p for m in missing for p in m.split("|")} and stem(
        sit.heads[-1]) not in _RELATIONS | _KIN_STEMS  # fmt: skip
    # (kin by marriage only when a thing of theirs is asked: not "where do my parents-in-law live?")
    if not all(all(p in _RELATIONS or stem(p) in _RELATIONS or (_MJ_in_law(p) and thing_named) for p in m.split("|"))
               for m in missing):  # fmt: skip
        return refused
    if len(missing) == len(ask.hard):
        return refused  # "what does my sister do?" with no sister told: nobody the question is anchored on
    if (set(ask.attributes) & NAMING_STEMS and not thing_named) or ask.answer_type in ("person", "number"):
        return refused  # "what's Pavlos' wife called?": the wife is what is asked, not who it is asked of
    loose = replace(ask, hard=tuple(h for h in ask.hard if h not in missing))
    scored = _scored(sit, loose, notes, known)
    if not scored:
        return refused
    ranked = sorted(scored, key=_Scored.key, reverse=True)
    untold = {m for m in missing if not any(m in n.stems for n in notes)}  # (not "Easter at dad's")
    found = _verdict(_unheaded(sit, untold), loose, _join(ranked[0], ranked, loose))
    reads = dict(zip(notes, _readings(notes, known), strict=True))
    if found.verdict != "answer" or not _of_a_name(sit, missing, [*found.notes, *(
            replace(n, text=reads[n]) for n in found.notes if n in reads)]):  # ("His boat's…" read: "Liam's boat's…")
        return refused
    return Evidence("answer", found.notes, "low", _MC_ASSUMED + ", ".join(sorted(missing)), refused.missing)


def _MJ_in_law(word: str) -> bool:
    """Whether a word is kin by marriage: "brother-in-law", "daughters-in-law"."""
    head, _, rest = word.partition("-")
    return rest.startswith("in-law") and stem(head) in _RELATIONS


def _unheaded(sit: Situation, missing: set[str]) -> Situation:
    """The question read without the relations no note ties to anyone: "my godson's birthday" asks then
    for a birthday told of one named ("Paolo's birthday is on Sept 21"), not one told of the godson."""
    heads = tuple(h for h in sit.heads if h not in missing)
    mine = sit.about_me and (not sit.heads or sit.heads[0] not in missing)  # not "my birthday" either
    return replace(sit, heads=heads, chain=sit.chain - (len(sit.heads) - len(heads)), about_me=mine)


def _of_a_name(sit: Situation, missing: set[str], notes: Sequence[Note]) -> bool:
    """Whether what the question asks of an untold relation is said of someone named, who may be them
    ("my godson's birthday": "Paolo's birthday is on Sept 21"), not of another relation ("mom's bday")."""
    at = [i for i, h in enumerate(sit.heads[:-1]) if h in missing]
    if not at:
        return True
    thing = sit.heads[at[-1] + 1]
    return any(stem(m[2].casefold()) == thing and stem(m[1].casefold()) not in _KIN_STEMS
               for n in notes for m in re.finditer(rf"\b({NAME_WORD})['’]s\s+(?:{_DESCRIBER})?(\w+)", n.text))


def who_assumed(question: str, missing: Sequence[str]) -> str:
    """What a reply answered by `_who_unsaid` adds: which of the question's words no note ties to
    anyone ("Where does Lili's fiance work?" → "(Nothing you told me says who Lili's fiance is, …)")."""
    tokens = re.findall(r"[\w'’-]+", question)
    bare = [t.casefold().replace("’", "'").removesuffix("'s").removesuffix("'") for t in tokens]
    unsaid = {p for m in missing for p in m.split("|")}
    at = [i for i, b in enumerate(bare) if stem(b) in unsaid or b in unsaid]
    if not at:
        return "(Nothing you told me says who you mean, so I may have the wrong person.)"
    end = at[-1]
    while end + 1 < len(bare) and stem(bare[end + 1].split("-")[0]) in _RELATIONS:
        end += 1  # "future father-in-law": the person, not the describer alone
    start = at[0]
    while start and (bare[start - 1] in DESCRIBERS or tokens[start - 1].endswith(("'s", "’s", "s'", "s’"))):
        start -= 1  # "my old boss", "my kumare's fiance", "Lili's fiance": said whole
    before = bare[start - 1] if start else ""
    owner = "your " if before in ("my", "our") else "" if tokens[start][0].isupper() else "the "
    phrase = " ".join(t.removesuffix("?") for t in tokens[start:end + 1])
    verb = "are" if bare[end].endswith("s") and not bare[end].endswith("ss") else "is"
    return f"(Nothing you told me says who {owner}{phrase} {verb}, so I may have the wrong person.)"
