"""Who is who in the notes: the names a person gives their people ("my sister Ana": `aliases`), kin said
in one or two steps ("my wife's brother", `kin_hops`), children by age (`by_age`), and the one a
pronoun or a nickname points at (`reading`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace

from capabilities.evidence.words import (
    _DESCRIBER,
    _KIN_TABLE,
    _KINSHIP,
    _MY_ROLE_VERB,
    _PEOPLE,
    _PEOPLE_STEMS,
    _ROLE_BARE,
    _ROLE_SHAPE,
    _ROLE_VERB,
    _SPOUSE,
    _SUBJECT_PRONOUN,
    _WEEKDAYS,
    NAMING_STEMS,
    Ask,
    Note,
    _name_first,
    _said_order,
    _Scored,
    is_calendar,
    kinship,
    people_in,
)
from capabilities.situation import (
    CATEGORIES,
    DESCRIBERS,
    NAME_WORD,
    STOP,
    Situation,
    names_in,
    related_stems,
    stem,
    word_set,
    words,
)
from capabilities.situation import read as read_message
from memory.formation.patterns import NATIONALITY, sentences

# "my sister Ana", "The user's friend Carla": who the person calls by that word.
# (also "I have a younger sister Bing", "we've got a dog, Choco": having one is calling them so)
_ALIAS = re.compile(
    r"\b(?:[Mm]y|[Oo]ur|[Tt]he user['’]s|(?:[Ii]|[Ww]e)\s+(?:have|['’]ve\s+got)\s+an?)\s+(?:" + _DESCRIBER
    + r")?([a-z]+(?:-[a-z]+)*)(?:,|\s+(?:is|was)(?:\s+called)?|['’]s)?\s+"
    + r"(?!(?:Dr|Mr|Mrs|Ms|Miss|Prof)\b|" + NATIONALITY + r"\b)([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)"
)  # "my sister Ana", "my partner is Ruaridh", "my mum's Peggy", "my sister is called Ana"
# "my wife's brother Liam", "my daughter's best friend's dad is Kwame": a chain of words in a reading.
_CHAIN_ALIAS = re.compile(
    r"\b[Mm]y\s+((?:(?:" + _DESCRIBER + r")?[a-z]+['’]s\s+)+(?:" + _DESCRIBER + r")?[a-z-]+)(?:,|\s+is|\s+was)?\s+"
    r"([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)"
)
# Kin said without "my", as people do ("Little brother Callum lives in Perth", "Mum's Denise, dad's
# Graham"): at a sentence's or a clause's start, the word is the person's own.
_OWN_KIN = re.compile(
    (r"(?:^|[.!?,;]\s+)(?i:(?:(?:" + _DESCRIBER + r")(KIN)|(?:" + _DESCRIBER + r")?(KIN)(?:['’]s|\s+is)))\s+("
     + NAME_WORD + r")\b").replace(
        "KIN", "mum|mom|mother|dad|father|brother|sister|partner|wife|husband|boyfriend|girlfriend|son|daughter|friend"
        "|boss"  # ("boss is Vasile Pop, he's ok")
    )
)  # a describer or "'s" says it is kin, not a title ("Sister Act"); "Best friend is Tone"
# "My older sister Tash is married to Dev": Dev is my sister's husband (a sister's spouse is her
# husband, a brother's his wife, for naming the kin only: "brother-in-law").
_MARRIED_TO = re.compile(
    r"\b(?:[Mm]y|[Oo]ur)\s+(?:" + _DESCRIBER + r")?([a-z]+),?\s+[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+\s+(?:is|was|got|just got)\s+"
    r"(?:married|engaged)\s+to\s+([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)"
)
_FEMALE_KIN = word_set("sister daughter mum mom mother aunt niece grandmother cousin")
# The same said a clause later, or of someone of theirs, in one sentence: "My brother Geir lives in
# Bodø, he is married to Linda" (Geir's wife), "my sister Maren is 31, she … lives with her boyfriend
# Jonas" (my sister's boyfriend); the pronoun must fit the kin ("her boyfriend" is no brother's).
_THEN_MARRIED = re.compile(
    r"\b(?:[Mm]y|[Oo]ur)\s+(?:" + _DESCRIBER + r")?([a-z]+),?\s+" + NAME_WORD + r"\b[^.!?]{0,80}?,\s*(he|she)\s+"
    r"(?:is|was|got|just got)\s+(?:married|engaged)\s+to\s+(" + NAME_WORD + ")"
)
_THEN_THEIR = re.compile(
    r"\b(?:[Mm]y|[Oo]ur)\s+(?:" + _DESCRIBER + r")?([a-z]+),?\s+" + NAME_WORD + r"\b[^.!?]{0,90}?\b(his|her)\s+"
    r"((?:" + _DESCRIBER + r")?[a-z]+),?\s+(" + NAME_WORD + ")"
)
# "Geir and Linda drive up with their boy Sander": the son of each of them the person calls by a word
_THEIR_CHILD = re.compile(
    r"\b(" + NAME_WORD + r") and (" + NAME_WORD + r")\b[^.!?]{0,60}?\btheir\s+(?:(?:little|baby|eldest|oldest|"
    r"youngest|older|younger)\s+)?(boy|girl|son|daughter)\s+(" + NAME_WORD + ")"
)
_CHILD_WORD = {"boy": "son", "girl": "daughter", "son": "son", "daughter": "daughter"}
_MARRIED = re.compile(
    r"\b([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+) and I (?:got |were |have been |had been )?married\b"
    r"|\bI married ([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)"
    r"|\bI(?:['’]m| am| have been| was) married to ([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)"  # "I am married to Claire Martin"
)
# one's kin said after their name: "a little girl, Femke, she is 4, our only grandchild", "Greta, my
# cousin" (a short clause may come between); a grandchild or child said a girl or a boy is also so called
_MJ_APPOSED = re.compile(
    rf"\b({NAME_WORD}),\s+((?:[^,.!?]{{1,20}},\s+)?)(?:[Mm]y|[Oo]ur)\s+(?:{_DESCRIBER})?"
    r"(grandchild|granddaughter|grandson|grandkid|daughter|son|child|kid|niece|nephew|cousin|sister|brother"
    r"|godchild|goddaughter|godson|stepson|stepdaughter)\b(?!['’-])"
)
_MJ_SEXED = {"grandchild": ("granddaughter", "grandson"), "grandkid": ("granddaughter", "grandson"),
             "child": ("daughter", "son"), "kid": ("daughter", "son"), "godchild": ("goddaughter", "godson")}
ALIAS_STEPS = 3  # how many links of a chain of notes a name is followed through
_MY_WORD = re.compile(r"\b(?:[Mm]y|[Oo]ur|[Tt]he user['’]s)\s+(?:" + _DESCRIBER + r")?([a-z]+)(?![a-z-])")  # (not
# the "daughter" of "my daughter-in-law")


def roles(text: str) -> set[str]:
    """The role words a text gives ("I'm now an instructor": instructor), lower-cased."""
    found = [*_ROLE_SHAPE.finditer(text), *_ROLE_VERB.finditer(text), *_ROLE_BARE.finditer(text),
             *_MY_ROLE_VERB.finditer(text)]
    return {w.casefold() for m in found for w in m.group(1).split() if w.casefold() not in STOP}


def _kin_steps(term: str) -> list[tuple[str, str]]:
    """The two steps a kin word (a stem) is said in: ("sister|brother", "son") for a nephew."""
    return [(first, second) for first, second, kin in _KIN_TABLE if stem(kin) == term]


def kin_words(term: str) -> list[str]:
    """The two steps a kin word is said in, for searching ("nephew": sister, brother, son)."""
    steps = _kin_steps(term)
    return list(dict.fromkeys(w for first, second in steps for w in (*first.split("|")[:2], second.split("|")[0])))


def kin_hops(term: str, notes: Sequence[Note]) -> list[str]:
    """Searches that may find a kin: the one a note says in two steps ("their son Rhys" of "my
    brother's wife Nia"), else the first step's name and the second step ("Gareth son")."""
    steps = _kin_steps(term)
    if not steps:
        return []
    known = aliases(notes)
    seconds = "|".join(second for _, second in steps)
    named = re.compile(rf"\b(?:{seconds})s?\s+([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)")
    hops = [m.group(1) for read in _readings(notes, known) if term in kinship(read) for m in named.finditer(read)]
    hops += [f"{known[w].title()} {second.split('|')[0]}" for first, second in steps
             for w in first.split("|") if w in known]  # fmt: skip
    return list(dict.fromkeys(hops))


# a child named by their place among the children, then said to be a he or a she ("Then there's my youngest,
# Euan. He went out to Canada…"; "my eldest Kenji, he…")
_MH_NTH_CHILD = re.compile(
    r"\b(?i:my)\s+((?i:youngest|eldest|oldest|middle))(?:\s+one)?,?\s+([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)\b"
    r"[.,;!]?\s+((?i:he|she))\b"
)


def aliases(notes: Sequence[Note]) -> dict[str, str]:
    """Who the person calls by a word ("my sister Ana": sister → ana), when only one name is so called.

    Read again with what was learned, a chain of notes names more: "my wife Hannah" and "Hannah's
    brother Liam" make Liam "wife's brother" and, in two steps, "brother-in-law"; then "Her best
    friend Zara", "Zara's dad is Kwame" make Kwame "daughter's best friend's dad".
    """
    named: dict[str, set[str]] = {}

    def add(word: str, name: str) -> None:
        if word not in STOP and name.casefold() not in STOP and not is_calendar(name):
            named.setdefault(word, set()).add(name.casefold())

    for note in notes:
        for word, name in _ALIAS.findall(note.text):
            add(word, name)
        for name, word in _name_first(note.text):  # "Biscuit's our beagle"
            add(word, name)
        for described, said, name in _OWN_KIN.findall(note.text):
            add((described or said).casefold(), name)
        for kin, name in _MARRIED_TO.findall(note.text):
            add(f"{kin}'s {'husband' if kin in _FEMALE_KIN else 'wife'}", name)
        for kin, pronoun, name in _THEN_MARRIED.findall(note.text):
            if _fits(kin, pronoun):
                add(f"{kin}'s {'husband' if pronoun == 'she' else 'wife'}", name)
        for kin, pronoun, theirs, name in _THEN_THEIR.findall(note.text):
            if _fits(kin, pronoun) and stem(theirs.split()[-1]) in _PEOPLE_STEMS:
                add(f"{kin}'s {theirs}", name)
        for home, name in _MH_SHARES.findall(note.text):  # "i share a flat with my padi Halima": my flatmate
            add(_MH_MATE[home.casefold()], name)
        for name in (n for pair in _MARRIED.findall(note.text) for n in pair if n):
            for word in _SPOUSE.split("|"):  # "Douglas and I got married in 1979": he is "my husband"
                add(word, name)
        for name, between, word in _MJ_APPOSED.findall(note.text):  # "Femke, she is 4, our only grandchild"
            add(word.casefold(), name)
            sex = _MJ_SEXED.get(word.casefold())
            said = f"{note.text[: note.text.find(name)][-25:]} {between}".casefold()
            if sex and (girl := re.search(r"\b(?:girl|she)\b", said)) != bool(re.search(r"\b(?:boy|he)\b", said)):
                add(sex[0] if girl else sex[1], name)
        for nth, name, pronoun in _MH_NTH_CHILD.findall(note.text):  # "my youngest, Euan. He…": youngest son
            add(f"{nth.casefold()} {'son' if pronoun.casefold() == 'he' else 'daughter'}", name)
        for first, second, pronoun in _MH_SPLIT.findall(note.text):  # "me and Jo split up… she's got": my ex-wife
            add("ex", first or second)
            if pronoun:
                add("ex-wife" if pronoun.casefold() == "she" else "ex-husband", first or second)
    known = _unique(named)
    for note in notes:
        for first, second, child, name in _THEIR_CHILD.findall(note.text):
            for word in (w for w, n in known.items() if n in (first.casefold(), second.casefold()) and " " not in w):
                add(f"{word}'s {_CHILD_WORD[child]}", name)
    known = _unique(named)
    for _ in range(ALIAS_STEPS):
        names = list(known.values())
        picks = max((names.count(n) for n in names), default=1)  # someone called by several words: each in turn
        surnames = _mh_surnames(notes, known)
        for read in (r for pick in range(picks) for r in _readings(notes, known, pick)):
            for chain, name in _CHAIN_ALIAS.findall(read):
                if name.casefold() not in surnames:
                    add(re.sub(r"\s+", " ", chain.casefold().replace("’", "'")), name)
            for term, name in _kin_named(read):
                if name.casefold() not in surnames:
                    add(term, name)
        learned = _unique(named)
        if learned == known:
            break
        known = learned
    return known


# One the person split up with is their ex, and their ex-wife or ex-husband by the pronoun said next in the
# sentence: "me and Jo split up a while back, the divorce went through…, she's got a new bloke"
_MH_SPLIT = re.compile(
    rf"\b(?:(?i:me|i)\s+and\s+({NAME_WORD})|({NAME_WORD})\s+and\s+(?i:i|me))\s+(?:(?i:have|had|got)\s+)?"
    r"(?i:split up|broke up|separated|divorced|got divorced)\b(?:[^.!?]*?\b((?i:he|she))\b)?"
)
# One the person shares a home with is their flatmate: "so i share a 2 bedroom flat in Independence Layout
# with my padi Halima", "I share a house with Tom"
_MH_SHARES = re.compile(
    r"\b(?i:i|we)\s+(?i:share)\s+(?i:a|an|the|my|our)\s+(?:[\w-]+\s+){0,3}?((?i:flat|house|apartment))\b"
    rf"[^.!?]{{0,40}}?\b(?i:with)\s+(?:(?i:my)\s+(?:[a-z]+\s+)?)?({NAME_WORD})\b"
)
_MH_MATE = {"flat": "flatmate", "apartment": "roommate", "house": "housemate"}


def _mh_surnames(notes: Sequence[Note], known: Mapping[str, str]) -> set[str]:
    """The names said right after a known one's first name ("Tomasz Wójcik"): read as "my daughter's
    husband Wójcik" once the first name is read as who he is, a surname is no second person."""
    firsts = {n for n in known.values() if " " not in n}
    return {m[2].casefold() for note in notes for m in re.finditer(rf"\b({NAME_WORD})\s+({NAME_WORD})\b", note.text)
            if m[1].casefold() in firsts}


def _fits(kin: str, pronoun: str) -> bool:
    """Whether "he"/"his" or "she"/"her" can be the kin said ("my sister …, she": yes; "…, he": no)."""
    his, hers = kin in HIS_KIN.split("|"), kin in HER_KIN.split("|")
    return (his or hers) and (his if pronoun in ("he", "his") else hers)


def _unique(named: Mapping[str, set[str]]) -> dict[str, str]:
    return {word: next(iter(names)) for word, names in named.items() if len(names) == 1}


def _kin_named(read: str) -> list[tuple[str, str]]:
    """The kin a reading names in two steps from the person ("my wife's brother Liam": brother-in-law,
    Liam; "my brother's wife Nia and their son Rhys": nephew, Rhys)."""
    out = []
    for (_, _, term), (pattern, _) in zip(_KIN_TABLE, _KINSHIP, strict=True):
        for m in pattern.finditer(read):
            name = re.match(r"(?:,|\s+is|\s+was)?\s+(" + NAME_WORD + ")", read[m.end() :])  # "my son's wife is Priya"
            if name and re.search(r"\b(?:my|our)\s+(?:\w+\s+)?$", read[: m.start()], re.IGNORECASE):
                out.append((term, name.group(1)))
    return out


def entities(text: str, known: Mapping[str, str]) -> frozenset[str]:
    """Who and what a note is about: the names it says (not a month or a day: "married in March" is
    not about a contract "signed 3 March"), and the ones it says as "my sister"."""
    said = {n.casefold() for n in names_in(text) if not is_calendar(n)}
    return frozenset(said | {known[w] for w in _MY_WORD.findall(text) if w in known})


def reading(note: Note, before: str, called: Mapping[str, Sequence[str]], pick: int | None = None) -> str:
    """A note as the person meant it: a leading "His"/"Her" is the first one named in the turn it
    leans on ("My brother Gareth…" then "His wife Nia…"), and a name is also who they are to the
    person ("Hannah's mum" is "my wife's mum" when "my wife Hannah" was said). `called`: each known
    name → the words the person calls them by (see `_called`); `pick`: only the pick-th of those
    words (a chain is read whole: "my son's wife Priya")."""
    text = named = _MJ_named(note.text, before)
    for name, said in called.items():  # "my wife's brother / my brother-in-law": every word for them
        said = said if pick is None else said[min(pick, len(said) - 1) :][:1]
        as_mine = " / ".join(f"my {word}" for word in said)
        text = re.sub(rf"\b{re.escape(name)}\b(?!\s*,)", as_mine, text, flags=re.IGNORECASE)
    text += "".join(f" [{name}]" for name in _the_one(note.text, called))
    return text if text == named else f"{text} ({named})"  # both: "my daughter's best friend" and Maeve's


def _MJ_named(text: str, before: str) -> str:
    """The text with its leading pronoun read as the one it means in `before` (see `reading`); a pronoun
    after a short opener leads as well: "So his diet changes", "It was she who chose the name", "For her
    birthday I intend…" (not "For her to…": there "her" is no one's thing)."""
    lead = _MJ_LEAD.match(text)
    if lead and lead["opener"] and lead["next"].casefold() in STOP:
        lead = None
    kin = None if lead else _KIN_OF_PRONOUN.search(text)  # "he's engaged!! his fiancee…", not "Fitz and his…"
    if kin and _SUBJECT_PRONOUN.search(text[: kin.start()]) and not people_in(text[: kin.start()]):
        lead = kin
    subject = None if lead else _MJ_SUBJECT.match(text)  # "She turns 70 on 2 January"
    said = lead or subject
    if not said or not before:
        return text
    pronoun = said["pronoun"] if "pronoun" in said.groupdict() else said.group()
    first = _tl_referent(before, pronoun.strip(" \t\n'\"").casefold())
    if not first:
        return text
    start, end = said.span("pronoun") if "pronoun" in said.groupdict() else said.span()
    opened = "opener" in said.groupdict() and said["opener"]
    if lead and opened and re.search(rf"\b{re.escape(pronoun.strip())}\b", before, re.IGNORECASE):
        return text  # the turn before already says "her" of someone: "Trisha watches her in the day" then
        # "and her birthday is this friday" is the one watched, not Trisha
    head = text[:start] if opened or said is kin else ""
    if lead:
        return f"{head}{first[0]}'s {text[end:].lstrip()}"
    return f"{head}{first[0]}{text[end:]}"


# a pronoun that still leads its sentence after a short opener: "So his…", "For her birthday…", "It was she who…"
_MJ_LEAD = re.compile(r"^\W*(?P<opener>(?i:so|and|but|also|then|now|for|after|since|on|at)\s+)?"
                      r"(?P<pronoun>(?i:his|her|their))\s+(?P<next>[\w'’-]+)")
_MJ_SUBJECT = re.compile(r"^\W*(?P<opener>(?i:so|and|but|also|then|now|it\s+was|it['’]s)\s+)?"
                         r"(?P<pronoun>(?i:she|he))\b")


HIS_KIN = "brother|husband|son|dad|father|uncle|nephew|boyfriend|grandfather|grandson|fiance|fiancé"
HER_KIN = "sister|wife|daughter|mum|mom|mother|aunt|niece|girlfriend|grandmother|granddaughter|fiancee|fiancée"


def _referent(before: str, pronoun: str) -> list[str]:
    """Whom a leading pronoun means in the turn before: the first one named, unless the turn says
    them of the other sex ("Mereana's side… Her brother Hemi runs…" then "His wife Claire…": Hemi)."""
    people = _mh_people(before)
    male = {m.casefold() for m in re.findall(rf"\b(?:{HIS_KIN})\s+([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)", before, re.IGNORECASE)}
    female = {m.casefold() for m in re.findall(rf"\b(?:{HER_KIN})\s+([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)", before, re.IGNORECASE)}
    wanted, other = (male, female) if pronoun in ("his", "he") else (female, male) if pronoun in ("her", "she") else (
        set(), set())  # fmt: skip
    fits = [p for p in people if p.casefold() in wanted] or [p for p in people if p.casefold() not in other]
    return (fits or people)[:1]


# a name that is a place, not a person: "born at the old Dudley Road hospital"
_TL_PLACE_NAME = re.compile(
    r"\s(?:Road|Street|Avenue|Lane|Drive|Hospital|School|Park|Club|Church|Station|Square|Hall|Centre|Center|Clinic)$"
)
# a kin word said as a name, with no "my"/"her"/"the" before it: "rang mama tonight", "mum update:"
_TL_AS_NAME = r"(?<!\bmy )(?<!\bour )(?<!\bhis )(?<!\bher )(?<!\btheir )(?<!\byour )(?<!\bthe )(?<!\ba )(?<!['’]s )"
_TL_HER_KIN = re.compile(rf"{_TL_AS_NAME}\b(?:{HER_KIN}|mama|nana|granny|grandma)\b", re.IGNORECASE)
_TL_HIS_KIN = re.compile(rf"{_TL_AS_NAME}\b(?:{HIS_KIN}|papa|grandpa)\b", re.IGNORECASE)


def _tl_referent(before: str, pronoun: str) -> list[str]:
    """`_referent`, where a place's name is no one, and where the turn before names no one, the kin it
    calls by a kin word as a name, of the pronoun's sex ("rang mama tonight… born at the old Dudley Road
    hospital" then "her birthday's 12 January": mama's; not "my sister moved…" then "She got a job…")."""
    for place in (p for p in people_in(before) if _TL_PLACE_NAME.search(p)):
        before = before.replace(place, place.casefold())
    first = _referent(before, pronoun)
    kin = {"her": _TL_HER_KIN, "she": _TL_HER_KIN, "his": _TL_HIS_KIN, "he": _TL_HIS_KIN}.get(pronoun)
    said = kin.search(before) if kin and not first else None
    return [said.group()] if said else first


def _mh_people(text: str) -> list[str]:
    """The names in a text that may be people, but a day of the week, a month said with its day or a
    place said after a place's preposition: "Her farewell party is on Friday 26 March in Café De
    Posthoorn in Dokkum" names no one a next "Her sister Geeske…" could mean."""
    dated = {m.casefold() for m in re.findall(r"\d\s+([A-Z][a-z]+)|([A-Z][a-z]+)\s+\d", text) for m in m if m}
    return [p for p in people_in(text) if p.casefold().removesuffix("s") not in _WEEKDAYS
            and not (is_calendar(p) and p.casefold() in dated)  # ("June" may be a name; "26 March" is not)
            and not re.search(rf"\b(?:at|in|to|from|near|into)\s+{re.escape(p)}\b", text)]  # "… in Dokkum"


def _called(known: Mapping[str, str]) -> dict[str, list[str]]:
    """Each known name → the words the person calls them by, shortest first ("liam": "wife's
    brother", "brother-in-law")."""
    called: dict[str, list[str]] = {}
    for word, name in sorted(known.items(), key=lambda wn: len(wn[0])):
        called.setdefault(name, []).append(word)
    return called


def _the_one(text: str, called: Mapping[str, Sequence[str]]) -> list[str]:
    """The known one a category word in the text must mean: "a pet deposit … for one dog" is about
    Biscuit when Biscuit is the only dog the person has named ("Biscuit's our beagle")."""
    said = {w.casefold() for w in words(text)}
    out = []
    for category, members in CATEGORIES.items():
        if category in said:
            kinds = members | {category}
            ones = [name for name, words_for in called.items() if any(w in kinds for w in words_for)]
            out += ones if len(ones) == 1 and ones[0] not in text.casefold() else []
    return out


def _readings(notes: Sequence[Note], known: Mapping[str, str], pick: int | None = None) -> list[str]:
    """Each note as meant: a sentence of a long message leans on the sentences before it ("Then
    there's my youngest, Euan. … His girlfriend Chantal…"), a message's first on the turn before."""
    called = _called(known)
    initials = _initials(notes)
    if initials:
        notes = [replace(n, text=_INITIAL.sub(lambda m: initials.get(m.group(1), m.group(1)), n.text)) for n in notes]
    if nicks := _mh_nicknames(notes):  # "Pippa telephoned…": Philippa, "whom everyone calls Pippa"
        nick = re.compile(r"\b(" + "|".join(map(re.escape, nicks)) + r")\b", re.IGNORECASE)
        notes = [replace(n, text=nick.sub(lambda m: nicks[m[1].casefold()], n.text)) for n in notes]
    said: dict[str, list[str]] = {}  # each message's sentences, in the order said
    leans: dict[str, str] = {}  # each message → the one it leans on
    for n in notes:
        said.setdefault(n.ref, []).append(n.text)
        leans.setdefault(n.ref, n.after)

    def leaned_on(ref: str, depth: int = 4) -> str:
        # what a message's first sentence leans on: the message before it, and the one before that
        # while none names anyone ("She's deputy head at…" after "She's 74…" after "my mum is Peggy…"),
        # whatever order the notes were recalled in; each as read in its turn ("It was she who chose the
        # name" after "For her birthday…" after "Claire's parents…": Claire, not the restaurant named between)
        # (a turn that opens on the same pronoun as the one before it, "A word about Zaatar." then "He came
        # from the SPA de Lyon…" then "He currently eats…", needs no rule of its own: the turn before is
        # read as meant, "Zaatar came from…", so it names Zaatar, not Lyon)
        before = " ".join(as_read(leans.get(ref, ""), depth - 1))
        if before and not _mh_people(before) and depth > 1:
            before = f"{leaned_on(leans[ref], depth - 1)} {before}".strip()
        return before

    read: dict[str, list[str]] = {}

    def as_read(ref: str, depth: int) -> list[str]:  # a message's sentences, each with its pronoun read
        if ref not in read:
            read[ref] = said.get(ref, [])  # (as said, while it is being read: a chain may loop)
            out: list[str] = []
            for text in said.get(ref, []):
                out.append(_MJ_named(text, " ".join(out) or (leaned_on(ref, depth) if depth > 0 else "")))
            read[ref] = out
        return read[ref]

    out = []
    for n in notes:
        earlier = as_read(n.ref, 4)[: said[n.ref].index(n.text)]
        out.append(reading(n, " ".join(earlier) or leaned_on(n.ref), called, pick))
    return out


# A person called by their initial: "K's birthday is 3rd nov", "K and I", "K wants me to try bouldering"
# (not "I", not the article "A", not "T-shirt").
_INITIAL = re.compile(r"(?<![\w.'’-])([B-HJ-Z])(?=['’]s\b|\s+(?:and|&)\s|\s+[a-z]+s\b)")


# "a daughter, Philippa, whom everyone calls Pippa", "my sister Joanne — everybody calls her Jo", "my mate Dave
# Harrington - everyone calls him Tank": one person said by a second name
_MH_NICKNAME = re.compile(
    rf"\b({NAME_WORD})(?:\s+{NAME_WORD})?,?\s+(?:[-—–]\s+|but\s+)?(?:(?i:whom|who)\s+)?(?i:everyone|everybody|we|people)"
    rf"\s+(?i:calls?)\s+(?:(?i:her|him|them)\s+)?({NAME_WORD})\b"
)


# the name on paper said after the one a person goes by: "Kuba, well Jakub on the register", "Bex (Rebecca
# officially)", "Sasha, short for Aleksandr": one person, read by the name on paper
_MR_FULL_NAME = re.compile(
    rf"\b({NAME_WORD}),?\s+\(?(?:(?:(?i:well|or|or rather),?\s+)?({NAME_WORD})\s+(?:(?i:on\s+(?:the|his|her|their)"
    r"\s+(?:register|passport|papers?|forms?|birth\s+certificate))|(?i:officially|in\s+full|on\s+paper))"
    rf"|(?i:short\s+for)\s+({NAME_WORD}))\b"
)
# …and said after it: "Aleksandr, Sasha for short"
_MR_FOR_SHORT = re.compile(rf"\b({NAME_WORD}),?\s+\(?({NAME_WORD})\s+(?i:for\s+short)\b")


def _mh_nicknames(notes: Sequence[Note]) -> dict[str, str]:
    """Each second name the notes say someone is called by → their first name, lower-cased key
    ("pippa" → "Philippa"), when the second name is said of one person only."""
    named: dict[str, set[str]] = {}
    for n in notes:
        pairs = _MH_NICKNAME.findall(n.text) + [(a or b, nick) for nick, a, b in _MR_FULL_NAME.findall(n.text)]
        pairs += _MR_FOR_SHORT.findall(n.text)
        for name, nick in pairs:
            if nick.casefold() != name.casefold() and not is_calendar(nick):
                named.setdefault(nick.casefold(), set()).add(name)
    return {nick: next(iter(names)) for nick, names in named.items() if len(names) == 1}


def _initials(notes: Sequence[Note]) -> dict[str, str]:
    """Each initial the notes use for a person → the one name it can be: the only name with that
    initial among the people the notes name ("boyfriend is Kieran" and "K's birthday…": K is Kieran)."""
    if not any(_INITIAL.search(n.text) for n in notes):
        return {}
    named: dict[str, set[str]] = {}
    for n in notes:
        for name in people_in(n.text):
            first = name.split()[0]
            if len(first) > 2 and not is_calendar(first):
                named.setdefault(first[0], set()).add(first)
    return {letter: next(iter(names)) for letter, names in named.items() if len(names) == 1}


def _only_my_kin(text: str, term: str, sit: Situation) -> bool:
    """For "Fiona's daughter": a note that says the kin word only as the person's own ("my daughter",
    which Fiona is) does not say Fiona's daughter ("Their wee girl Isla" does)."""
    if term not in _PEOPLE_STEMS or not any(
        stem(m[1]) == term for name in sit.names for m in re.finditer(rf"\b{re.escape(name)}['’]s\s+(\w+)", sit.text)
    ):
        return False
    wanted = related_stems(term)
    tokens = [t.casefold().replace("’", "'") for t in re.findall(r"[\w'’-]+", text)]
    owners = [next((o for o in reversed(tokens[:i]) if o not in DESCRIBERS), "")
              for i, t in enumerate(tokens) if stem(t.removesuffix("'s")) in wanted]  # fmt: skip
    return bool(owners) and all(o in ("my", "our", "user's") for o in owners)


_KIN_OF_PRONOUN = re.compile(r"\b(?:his|her|their)\s(?=(?:" + "|".join(sorted(_PEOPLE)) + r")\b)", re.IGNORECASE)

# "what sport does my oldest play?", "how old is my youngest?": the child asked by age, when "my
# oldest" stands alone (not "my oldest friend", "my youngest son"; "one"/"child"/"kid" may follow)
_MY_BY_AGE = re.compile(
    r"\b[Mm]y\s+(?:(oldest|eldest|youngest)(?:\s+(?:one|child|kid|son|daughter|boy|girl))?"
    r"|(older|elder|younger)\s+(?:one|child|kid|son|daughter|boy|girl))\b"  # ("my older brother": a sibling)
    r"(?=['’]s|\s*[?.!]*\s*$|\s+[a-z]+\s*(?:[?.!]*\s*$|\s(?:to|in|at|for|on|with|from|into|like)\b))"
)
_KIDS = re.compile(r"\b(?:kids|children|sons|daughters|boys|girls|lads)\b", re.IGNORECASE)
_AGED = re.compile(
    r"\b(" + NAME_WORD + r")(?:\s+(?:who\s+)?(?:is|turned|turns|was)\s+|\s*\(|,\s+)(\d{1,2})\b"
    r"(?!\s*(?:kg|km|%|cm|[.,]\d))"
)


def asks_by_age(text: str) -> bool:
    """Whether a question asks about a child as "my oldest"/"my youngest" (see `by_age`)."""
    return _MY_BY_AGE.search(text) is not None


def by_age(sit: Situation, notes: Sequence[Note]) -> Situation:
    """The question with "my oldest"/"my youngest" said as the child's name, when a message that speaks of
    the kids gives each an age ("our two kids. Ingeborg is 9…, Mats is 2"): a question about one of them."""
    asked = _MY_BY_AGE.search(sit.text)
    if not asked:
        return sit
    messages: dict[str, list[str]] = {}
    for n in sorted(notes, key=_said_order):
        messages.setdefault(n.ref, []).append(n.text)
    ages: dict[str, int] = {}
    for text in (" ".join(dict.fromkeys(texts)) for texts in messages.values()):
        if _KIDS.search(text):
            ages |= {name: int(age) for name, age in _AGED.findall(text)
                     if not is_calendar(name) and name.casefold() not in STOP}  # fmt: skip  (not "He is 41")
    if len(ages) < 2:
        return sit
    pick = (min if (asked[1] or asked[2]).startswith("young") else max)(ages, key=lambda name: ages[name])
    return read_message(f"{sit.text[: asked.start()]}{pick}{sit.text[asked.end():]}")


# Kinship asked in two steps that a person says in one, a generic English fact: "my niece's dad" is my
# brother-in-law (or my brother), "my son's grandma" my mum (or my mother-in-law); the likelier first.
_CHILD_OF = "son|daughter|kid|child|boy|girl"
_IN_ONE_STEP = (
    ("niece|nephew", "mum|mom|mother", ("sister", "sister-in-law")),
    ("niece|nephew", "dad|father", ("brother-in-law", "brother")),
    ("grandson|granddaughter|grandchild|grandkid", "mum|mom|mother", ("daughter", "daughter-in-law")),
    ("grandson|granddaughter|grandchild|grandkid", "dad|father", ("son", "son-in-law")),
    (_CHILD_OF, "mum|mom|mother", ("wife", "partner")), (_CHILD_OF, "dad|father", ("husband", "partner")),
    (_CHILD_OF, "grandma|granny|gran|nan|nana|grandmother", ("mum", "mother-in-law")),
    (_CHILD_OF, "grandpa|grandad|granddad|grandfather", ("dad", "father-in-law")),
    (_CHILD_OF, "aunt|auntie", ("sister", "sister-in-law")), (_CHILD_OF, "uncle", ("brother", "brother-in-law")),
    (_CHILD_OF, "cousin", ("niece", "nephew")),
    ("husband|wife|partner", "mum|mom|mother", ("mother-in-law",)),
    ("husband|wife|partner", "dad|father", ("father-in-law",)),
    ("husband|wife|partner", "brother", ("brother-in-law",)), ("husband|wife|partner", "sister", ("sister-in-law",)),
    ("brother|sister", "mum|mom|mother", ("mum",)), ("brother|sister", "dad|father", ("dad",)),  # one's own
)  # fmt: skip
# (any case: a question read with the names its notes know may say "my niece's Dad" after "Dad launched…")
_TWO_STEPS = tuple(
    (re.compile(rf"\b(my|our)\s+(?:{_DESCRIBER})?(?:{first})['’]s\s+(?:{second})\b", re.IGNORECASE), said)
    for first, second, said in _IN_ONE_STEP
)


# the same of one's children said together, whose they are said by "the" too: "the kids' grandma" is my mum
_MH_PLURAL_STEPS = tuple(
    (re.compile(rf"\b(?:my|our|the)\s+(?:{_DESCRIBER})?(?:kids|children|boys|girls|sons|daughters)(?:['’]|['’]s)\s+"
                rf"(?:my\s+)?(?:{second})\b", re.IGNORECASE), said)
    for first, second, said in _IN_ONE_STEP if first == _CHILD_OF
)


def in_one_step(question: str) -> list[str]:
    """The question with kin it asks in two steps said in one ("what does my niece's dad do?" → "what
    does my brother-in-law do?", then "… my brother do?"), for when no note says the two steps."""
    return [pattern.sub(lambda m, kin=kin: f"{m[1]} {kin}", question, count=1)
            for pattern, said in _TWO_STEPS if pattern.search(question) for kin in said] + [
            pattern.sub(f"my {kin}", question, count=1)
            for pattern, said in _MH_PLURAL_STEPS if pattern.search(question) for kin in said]  # fmt: skip


_WHO_WED = re.compile(rf"^\W*(?i:who)(?:['’]s|\s+(?i:is|was))\s+({NAME_WORD})\s+"
                      rf"(?:((?i:married|engaged)\s+to)|(?i:dating|seeing|going out with))\W*$")

# "the guy who bought my old hilux", "the friend whose wedding we went to": someone named by what they did
_DESCRIBED = re.compile(
    r"\b(?:the|that|this)\s+(?:[a-z-]+\s+)?(?P<head>[a-z-]+)\s+(?P<rel>who|that|whose)\s+(?P<clause>[^,?—–]+)",
    re.IGNORECASE,
)

# "Ørjan's mum", "my boss's wife": someone named as another's kin, found in two steps (`_through_kin`)
_KIN_ASKED = re.compile(
    rf"\b({NAME_WORD}|(?i:my|our)\s+(?:{_DESCRIBER})?[a-z-]+)(?:['’]s|(?<=s)['’])\s+(?:{_DESCRIBER})?([a-zß-ÿ-]+)\b"
)  # ("fiancé")
_TITLE = r"(?:(?i:dr|mr|mrs|ms|prof|sr|sra|dra)\.?\s+|(?i:tia|tio|tía|tío|aunt|auntie|uncle)\s+)?"
_PARENT_WORDS = word_set("mum mom mother dad father parent")
_SPOUSE_WORDS = word_set("wife husband partner spouse fiance fiancee fiancé fiancée")

_NAME_ONLY = word_set("what what's whats who who's whos is was the name first called of")


def kin_named(name: str, kin: str, text: str) -> list[str]:
    """Whom a text says is `name`'s `kin`: "Ørjan's mum Gunvor", "Gunvor, Ørjan's mum", for a parent
    "Naoko, the daughter of tia Kazuko", for a spouse "Aoife … married to a lovely man called Ronan"."""
    n, k = re.escape(name), rf"(?i:{re.escape(kin)})s?"
    forms = [
        rf"\b{n}['’]s\s+(?i:{_DESCRIBER})?{k}(?:,|\s+(?i:is|was|called|named))?\s+{_TITLE}({NAME_WORD})",
        rf"\b({NAME_WORD}),?\s+(?:(?i:who\s+is|is|was)\s+)?{n}['’]s\s+(?i:{_DESCRIBER})?{k}\b",
    ]
    if kin in _PARENT_WORDS:
        forms.append(rf"\b{n},?\s+(?i:is\s+|was\s+)?(?i:the\s+|a\s+)?(?i:son|daughter|child|kid|boy|girl)\s+of\s+"
                     rf"{_TITLE}({NAME_WORD})")
    if kin in _KN_FIANCE:
        forms += _KN_fiance_forms(n)
    if kin in _SPOUSE_WORDS:
        forms.append(rf"\b{n}\b[^.!?]{{0,60}}?\b(?i:married|engaged)[!.]*\s+to\s+(?:[a-z]+\s+){{0,4}}?"
                     rf"(?:called\s+|named\s+)?({NAME_WORD})")
    if kin in _SPOUSE_WORDS - _KN_FIANCE:  # "Ana and Rui got married in June" (not "are getting married")
        forms += _KN_couple_forms(n, r"(?:\s+(?i:have|had|been|are|were|just|finally|got|recently))+\s+(?i:married)\b")
    # "Her younger sister Usha is in Chennai, with her husband Sridhar": the one said last before "her"
    forms.append(rf"\b{n}\b((?:(?![.!?]).){{0,80}}?)\b(?i:her|his|their)\s+(?i:{_DESCRIBER})?{k},?\s+{_TITLE}({NAME_WORD})")
    found = [m.groups()[-1] for form in forms for m in re.finditer(form, text)
             if len(m.groups()) == 1 or not people_in(m[1])]
    return [f for f in found if f.casefold() != name.casefold() and f.casefold() not in STOP and not is_calendar(f)]


# A fiancé or fiancée said by the proposal or the engagement (generic English): "Josh proposed to Tessa", "Tessa
# proposed to Josh", "Tessa … — she proposed to Josh", "Tessa's engaged! Josh proposed…", "Manolis is engaged!! her
# name is Sofia" ("engaged to" is a spouse's form, in `kin_named`)
_KN_FIANCE = word_set("fiance fiancee fiancé fiancée")
_KN_PROPOSED = r"(?:(?i:finally|just|has|had|has\s+just|had\s+just)\s+)?(?i:proposed)"
_KN_ENGAGED = r"(?:['’]s|\s+(?i:is|got|just\s+got|has\s+got|has\s+just\s+got))\s+(?i:engaged)\b[^.!?]{0,40}[.!?]+\s+"


def _KN_couple_forms(n: str, wed: str) -> list[str]:
    """ "Ana and Rui <wed>", "Rui & Ana <wed>": the other one of the couple `n` is in, as the last group."""
    return [rf"\b{n}\s+(?:and|&)\s+({NAME_WORD}){wed}", rf"\b({NAME_WORD})\s+(?:and|&)\s+{n}{wed}"]


def _KN_fiance_forms(n: str) -> list[str]:
    """The forms that say whom `n` (escaped) is engaged to, each with the fiancé(e) as its last group."""
    return [
        *_KN_couple_forms(n, r"(?:\s+(?i:have|are|were|just|finally|got|officially|recently))*\s+"
                             r"(?i:engaged|getting\s+married)\b"),  # "Tessa and Josh just got engaged"
        rf"\b({NAME_WORD})\s+{_KN_PROPOSED}\s+(?i:to)\s+{n}\b",
        rf"\b{n}\s+{_KN_PROPOSED}\s+(?i:to)\s+({NAME_WORD})",
        rf"\b{n}\b((?:(?![.!?]).){{0,80}}?)\b(?i:he|she)\s+{_KN_PROPOSED}\s+(?i:to)\s+({NAME_WORD})",
        rf"\b{n}{_KN_ENGAGED}({NAME_WORD})\s+{_KN_PROPOSED}\b",
        rf"\b{n}{_KN_ENGAGED}(?i:his|her|their)\s+(?i:name)\s+(?i:is|was)\s+({NAME_WORD})",
    ]


# the person's children said together, then each by name with an age and a she or a he ("Two kids. Tessa's 25 and a
# vet nurse, she…"; "the children. Wietske is our oldest, 36, she…"): the only one so said a she is the daughter
_KN_KIDS = re.compile(r"\b(?:kids|children)\b", re.IGNORECASE)
_KN_OURS = re.compile(r"\b(?:(?:my|our)|(?:we|i)\s+(?:have|had|got|['’]ve\s+got))\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_KN_THEIRS = re.compile(r"\b(?:he|she|they|his|her|their|they['’]ve)\b|['’]s\b", re.IGNORECASE)


def _KN_mine(before: str) -> bool:
    """Whether the words before "kids" say the kids are the person's: "our two", "we have three", or a few words
    that name no one else ("Two", "Let me tell you about the"; not "My brother Piet has two", "their")."""
    if _KN_OURS.search(before):
        return True
    said = before.split()
    return len(said) <= 8 and not _KN_THEIRS.search(before) and not any(w[:1].isupper() for w in said[1:])
_KN_CHILD_SAID = re.compile(
    rf"^\W*({NAME_WORD})(?:['’]s|\s+(?i:is|was|has|have|turned|turns)|,)\s+(?P<said>[^.!?]*)"
)
_KN_CHILD = frozenset(stem(w) for w in word_set("daughter son kid child boy girl oldest eldest youngest middle"))
_KN_AGE_OR_RANK = re.compile(r"\b(?:\d{1,2}|oldest|eldest|youngest|middle)\b", re.IGNORECASE)


def child_by_pronoun(kin: str, told: Sequence[Note], known: Mapping[str, str]) -> tuple[Note, str] | None:
    """The person's only daughter (or son) when the notes list the children and name each with an age and a
    she or a he (see `_KN_CHILD_SAID`); None when none or more than one is so said. One the person calls by
    another word (`known`: "my wife Rose") is no child."""
    others = {who for word, who in known.items() if " " not in word and "'" not in word and stem(word) not in _KN_CHILD}
    wanted = {"daughter": "she", "son": "he"}.get(kin)
    if wanted is None:
        return None
    messages: dict[str, list[Note]] = {}
    for n in sorted(told, key=_said_order):
        messages.setdefault(n.ref, []).append(n)
    found: dict[str, tuple[Note, str]] = {}
    for said in messages.values():
        parts = [(n, p) for n in said for p in sentences(n.text)]
        kids = next(((i, m) for i, (_, p) in enumerate(parts) if (m := _KN_KIDS.search(p))), None)
        if kids is None or not _KN_mine(parts[kids[0]][1][: kids[1].start()]):
            continue  # ("my brother Piet has two kids. Anna is 5, she…": his)
        for note, part in parts[kids[0] + 1 :]:
            m = _KN_CHILD_SAID.match(part)
            if not m or m[1].casefold() in STOP | others or is_calendar(m[1]) or not _KN_AGE_OR_RANK.search(m["said"]):
                continue
            pronoun = re.search(r"\b(he|she)\b", m["said"], re.IGNORECASE)
            if pronoun and not people_in(m["said"][: pronoun.start()]) and pronoun[1].casefold() == wanted:
                found.setdefault(m[1].casefold(), (note, m[1]))
    return next(iter(found.values())) if len(found) == 1 else None


def _mh_kin_asked(text: str) -> Iterator[re.Match[str]]:
    """Each "<someone>'s <word>" a question says, from every word on: "What's my boss's wife called?"
    says "my boss's wife" though "What's my" is read first."""
    return (m for i in range(len(text)) if (m := _KIN_ASKED.match(text, i)))


def _kin_in_two_steps(name: str, kin: str, told: Sequence[Note], readings: Sequence[str]) -> list[tuple[Note, str]]:
    """Whom the notes call `name`'s kin in the two steps the kin word means, when each step is said
    once: "Graham's mother-in-law" is "Priya's mother, Lakshmi" after "My son Graham's wife is Priya"."""
    texts = [(n, t) for n, r in zip(told, readings, strict=True) for t in (n.text, r)]
    for first, second in _kin_steps(stem(kin)):
        between = {m.casefold(): m for w in first.split("|") for _, t in texts for m in kin_named(name, w, t)}
        if len(between) != 1:
            continue
        (middle,) = between.values()
        said = [(n, w) for word in second.split("|") for n, t in texts for w in kin_named(middle, word, t)]
        if len({w.casefold() for _, w in said}) == 1:
            return said
    return []


def _kin_of_alias(name: str, kin: str, told: Sequence[Note], known: Mapping[str, str]) -> list[tuple[Note, str]]:
    """Whom the notes call the kin of one the person calls by a word (`known`, the notes' `aliases`):
    "Inês's husband" is Carlos when the notes say "my sister Inês" and "my sister's husband Carlos"; the
    note that names him leads."""
    called = [w for w, n in known.items() if n == name.casefold() and "'" not in w and " " not in w]
    who = {known[f"{w}'s {kin}"] for w in called if f"{w}'s {kin}" in known}
    if len(who) != 1:
        return []
    person = who.pop()
    naming = [n for n in told if person in n.text.casefold() and kin in n.text.casefold()]
    return [(naming[0], person.title())] if naming else []


_MH_CHILD_OF = re.compile(r"^([a-z-]+)'s (?:boy|girl|son|daughter|kid|child)$")
_MH_MALE_KIN = word_set("brother son dad father husband uncle nephew grandfather boyfriend")


def _mh_parent_of_alias(name: str, kin: str, told: Sequence[Note], known: Mapping[str, str]) -> list[tuple[Note, str]]:
    """The mum or dad of a child the notes name as the child of one the person calls by a word: "Jake's
    mum" is Marthese when the notes say "my sister Marthese" and "Marthese's boy Jake" (a sister is a
    mum, not a dad); the note that names them both leads."""
    if kin not in _PARENT_WORDS:
        return []
    female = kin in ("mum", "mom", "mother")
    parents = {known[m[1]] for w, n in known.items() if n == name.casefold() and (m := _MH_CHILD_OF.match(w))
               and m[1] in known and (m[1] in _FEMALE_KIN if female else m[1] in _MH_MALE_KIN)}  # fmt: skip
    if len(parents) != 1:
        return []
    person = parents.pop()
    naming = [n for n in told if person in n.text.casefold() and name.casefold() in n.text.casefold()]
    return [(naming[0], person.title())] if naming else []


def _mh_their_child(name: str, kin: str, told: Sequence[Note]) -> list[tuple[Note, str]]:
    """The mum or dad of a child said as a couple's: "His wife is Sanne and they have a little girl,
    Femke" makes Sanne Femke's mum (a wife is a mum, a husband a dad)."""
    if kin not in _PARENT_WORDS:
        return []
    spouse = "wife" if kin in ("mum", "mom", "mother") else "husband"
    couple = re.compile(rf"\b(?i:his|her|my|our)\s+(?i:{spouse})(?:\s+(?i:is)|,)?\s+({NAME_WORD})\b[^.!?]{{0,40}}?"
                        rf"\b(?i:they|we)\s+(?i:have|had)\s+(?:(?i:an?)\s+)?(?:[a-z]+\s+)?(?i:girl|boy|son|daughter|"
                        rf"baby|child|kid)s?,?\s+(?:(?i:called|named)\s+)?{re.escape(name)}\b")  # fmt: skip
    said = [(n, m[1]) for n in told for m in couple.finditer(n.text)]
    return said if len({p.casefold() for _, p in said}) == 1 else []


def _mh_by_surname(name: str, kin: str, told: Sequence[Note], readings: Sequence[str]) -> list[tuple[Note, str]]:
    """Whom the notes call the kin of one said by a surname: "my boss's wife" is Carmen when the notes
    say "boss is Vasile Pop" and "Pop's wife Carmen" (the one surname said after the first name)."""
    texts = [(n, t) for n, r in zip(told, readings, strict=True) for t in (n.text, r)]
    surnames = {m[1] for _, t in texts for m in re.finditer(rf"\b{re.escape(name)}\s+({NAME_WORD})\b", t)
                if m[1].casefold() not in STOP and not is_calendar(m[1])}
    if len(surnames) != 1:
        return []
    (surname,) = surnames
    said = [(n, w) for n, t in texts for w in kin_named(surname, kin, t) if w.casefold() != name.casefold()]
    return said if len({w.casefold() for _, w in said}) == 1 else []


_MH_CHILD_SAID = (r"\b({name})['’]s\s+(?:(?:wee|little|baby|eldest|oldest|youngest|older|younger)\s+)?"
                  r"(?i:boy|girl|son|daughter|kid|child)\s+{child}\b")


def _mh_parent_said(name: str, kin: str, told: Sequence[Note], readings: Sequence[str]) -> list[tuple[Note, str]]:
    """The mum or dad of a child said as someone's: "Isla's dad" is Marcus when a note says "Their wee
    girl Isla", read "Marcus's wee girl Isla", and the notes say Marcus is a man ("… is Marcus. He's a
    chef"); a mum is asked of a woman."""
    if kin not in _PARENT_WORDS:
        return []
    child = re.compile(_MH_CHILD_SAID.format(name=NAME_WORD, child=re.escape(name)))
    said = [(n, m[1]) for n, r in zip(told, readings, strict=True) for t in (n.text, r) for m in child.finditer(t)
            if m[1].casefold() not in STOP]
    if len({p.casefold() for _, p in said}) != 1:
        return []
    wanted = "she" if kin in ("mum", "mom", "mother") else "he"
    return said if _mh_sex(said[0][1], told) == wanted else []


def _mh_sex(name: str, told: Sequence[Note]) -> str:
    """ "he" or "she": the pronoun the notes follow a name with, where it is the only one named ("Her
    partner is Marcus. He's a chef"), or "" when they say none or both."""
    n = re.escape(name)
    then = re.compile(rf"\b{n}\b[^.!?]{{0,60}}?(?:[.!?]\s+|,\s+)(he|she)\b", re.IGNORECASE)
    found = {m[1].casefold() for note in told for m in then.finditer(note.text) if people_in(m[0]) == [name]}
    return found.pop() if len(found) == 1 else ""


def _MJ_parents_naming(name: str, kin: str, told: Sequence[Note], readings: Sequence[str]) -> list[tuple[Note, str]]:
    """The mum or dad of a child two people named: "Juliana and Rafael decided on Hana", "she and Rafael
    chose the name Yumi" make them the child's parents; the dad is the one said as "he" or whom the notes
    follow with "he" (or the other of one said as a woman), a mum the other way round."""
    if kin not in _PARENT_WORDS or kin == "parent":
        return []
    wanted = "she" if kin in ("mum", "mom", "mother") else "he"
    named = re.compile(_MJ_NAMED_BY.format(who=rf"(?:{NAME_WORD}|(?i:he|she))", child=re.escape(name)))
    found: dict[str, Note] = {}
    for n, r in zip(told, readings, strict=True):
        for m in (m for t in (n.text, r) for m in named.finditer(t)):
            pair = [m[1], m[2]]
            sexes = [p.casefold() if p.casefold() in ("he", "she") else _mh_sex(p, told) for p in pair]
            ones = [p for p, x in zip(pair, sexes, strict=True) if x == wanted]
            if not ones:  # the other one is said to be of the other sex
                ones = [p for p, x in zip(pair, sexes, strict=True) if x == ""] if any(
                    x not in ("", wanted) for x in sexes) else []
            for one in ones[:1] if len(ones) == 1 else []:
                if one.casefold() not in ("he", "she", name.casefold()):
                    found.setdefault(one.casefold(), n)
    if len(found) != 1:
        return []
    ((person, note),) = found.items()
    return [(note, next(p for p in [*names_in(note.text), person.title()] if p.casefold() == person))]


def _MJ_couple_child(name: str, kin: str, told: Sequence[Note], readings: Sequence[str]) -> list[tuple[Note, str]]:
    """The mum or dad of a couple's child, the couple said as one's spouse: "His wife is Sanne and they have a
    little girl, Femke", read "Pieter's wife is Sanne and…", makes Pieter Femke's dad and Sanne her mum."""
    if kin not in _PARENT_WORDS or kin == "parent":
        return []
    mum = kin in ("mum", "mom", "mother")
    couple = re.compile(rf"\b({NAME_WORD})['’]s\s+(?i:(wife|husband))(?:\s+(?i:is)|,)?\s+({NAME_WORD})\b[^.!?]{{0,40}}?"
                        rf"\b(?i:they|we)\s+(?i:have|had)\s+(?:(?i:an?)\s+)?(?:[a-z]+\s+)?(?i:girl|boy|son|daughter|"
                        rf"baby|child|kid)s?,?\s+(?:(?i:called|named)\s+)?{re.escape(name)}\b")  # fmt: skip
    said = [(n, m[1] if (m[2].casefold() == "wife") != mum else m[3])
            for n, r in zip(told, readings, strict=True) for t in (r, _MJ_sentences_read(n.text))
            for m in couple.finditer(t)]  # fmt: skip
    return said if len({p.casefold() for _, p in said}) == 1 else []


def _MJ_sentences_read(text: str) -> str:
    """A note's sentences, each with its leading pronoun read as the first one named in those before it
    ("Pieter is 33… His wife is Sanne": Pieter's wife)."""
    said = sentences(text)
    return " ".join(_MJ_named(p, " ".join(said[:i])) for i, p in enumerate(said))


# two people naming a child: "Juliana and Rafael decided on Hana", "she and Tom chose the name Lily", "Ana and
# Rui named her Beatriz", "Ana and Rui call him Tiago" (a few words may come between: "finally", "in the end")
_MJ_NAMED_BY = (r"\b({who})\s+(?:and|&)\s+({who})\s+(?:[a-z]+\s+){{0,3}}?"
                r"(?i:named|name|called|call|chose|choose|chosen|picked|pick|decided|decide|went\s+with|go\s+with|"
                r"settled|settle)\s+(?:(?i:on|for)\s+)?(?:(?i:the\s+name|her|him|the\s+baby|it)\s+)?{child}\b")


_MH_OWNER = word_set("owner owners")
_MH_HAS_A = (r"\b({name})\s+(?i:has|had|owns|owned|got)\s+(?i:an?|the)\s+(?:[a-z]+\s+){{0,2}}?"
             r"(?i:called|named)\s+{pet}\b")


def _mh_owner_of(name: str, kin: str, told: Sequence[Note], readings: Sequence[str]) -> list[tuple[Note, str]]:
    """The owner of a pet or a thing the notes name as had by someone: "Pickle's owner" is Kieran when a
    note says "he has a whippet called Pickle", read "Kieran has a whippet called Pickle"."""
    if kin not in _MH_OWNER:
        return []
    has = re.compile(_MH_HAS_A.format(name=NAME_WORD, pet=re.escape(name)))
    said = [(n, m[1]) for n, r in zip(told, readings, strict=True) for t in (n.text, r) for m in has.finditer(t)
            if m[1].casefold() not in STOP]
    return said if len({p.casefold() for _, p in said}) == 1 else []


def _mh_sibling_of(name: str, told: Sequence[Note]) -> tuple[Note, str] | None:
    """The one the notes call `name` the brother or sister of, and the note that says it: "Mereana's
    brother Hemi", or "Mereana's side first… Her brother Hemi runs a mussel farm" (the leading "Her" is
    the first one named in the sentence before)."""
    sib = rf"(?i:{_DESCRIBER})?(?i:brother|sister),?\s+{re.escape(name)}\b"
    found: dict[str, Note] = {}
    for note in told:
        for m in re.finditer(rf"\b({NAME_WORD})['’]s\s+{sib}", note.text):
            found.setdefault(m[1].casefold(), note)
        said = sentences(note.text)
        for before, part in itertools.pairwise(said):
            people = _mh_people(before)
            if people and re.match(rf"\W*(?i:her|his)\s+{sib}", part):
                found.setdefault(people[0].split()[0].casefold(), note)
    found.pop(name.casefold(), None)
    if len(found) != 1:
        return None
    ((sibling, note),) = found.items()
    return note, sibling.title()


def _mh_names_the_one(s: _Scored, gain: tuple[int, int, int, int, int, int], best: _Scored, ask: Ask) -> bool:
    """Whether a note joins for the name asked that the chosen ones never give, through a word asked
    they share that it names: "what is the name of the physiotherapist treating my calf?" is "I strained
    my left calf… the physiotherapist prescribes two weeks of rest" and "The physiotherapist is Mathilde
    Roux" (not "chukwudi is his brother" for "my older brother's name")."""
    if not gain[3] or not set(ask.attributes) & NAMING_STEMS:
        return False
    return any(re.search(rf"\b(?i:the|my|our)\s+(?i:{re.escape(word)})\w*(?:\s+(?i:is|was)|,)?\s+{_TITLE}{NAME_WORD}",
                         s.note.text) for word in s.hard & best.hard)  # fmt: skip
