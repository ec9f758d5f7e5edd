"""Names in text typed all in lower case ("my sister tash is married to dev"), found without a model.

Every judgement about people and places reads capitals: "Tash" is a name, "tash" is a word. A person
who types in lower case would otherwise have no names at all. So the names are learned from where
they are certain: capitalised in any cased text (the question, a document, other notes), and in the
slots English puts a name in ("my sister tash", "partner's marco", "ziggy's my greyhound", "a band
called the loose units", "fitz's cousin"); then each lower-case note says them capitalised. A note
with capitals of its own is left as typed. Generic English, tuned to no persona.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from capabilities.situation import CATEGORIES, DESCRIBERS, STOP, names_in, word_set

# Words a name is said to be (kin, friends, roles and pets) ("my cousin lou", "teacher's ines").
WHO = word_set(
    "boyfriend girlfriend bf gf husband wife partner fiance fiancee fiancé fiancée son daughter kid child friend "
    "mate bestie brother sister sibling mum mom mother dad father parent nan nana gran grandma grandpa grandad "
    "granddaughter grandson aunt auntie uncle cousin niece nephew colleague boss manager neighbour neighbor "
    "roommate flatmate housemate bandmate teammate teacher coach physio doctor gp dentist vet therapist landlord "
    "landlady drummer guitarist bassist singer trainer tutor"
) | frozenset().union(*(CATEGORIES.get(c, frozenset()) | {c} for c in ("pet", "dog", "cat")))
_DESCRIBER = "(?:(?:" + "|".join(sorted(DESCRIBERS | {"baby"})) + r")\s+)?"
_KIND = "(?:" + "|".join(sorted(WHO, key=len, reverse=True)) + ")"
# Common words that follow those slots and are not names ("my mate said", "partner's been", "mum's 60th").
_NOT_NAMES = word_set(
    "said says reckons reckon thinks think wants got gets went goes came comes just always never still also keeps "
    "told asked bought made took gave sent moved started lives works loves hates is was has had been being put "
    "set let cut hit run ran saw found left kept gone going doing coming getting who and but so or btw lol tho "
    "though too again here there now then today tonight tomorrow yesterday week weekend place house home work job "
    "birthday wedding party cafe shop car van hold nights days mornings "
    # what follows a role as one thing ("my dentist appointment", "the vet bill"), not a name
    "appointment appointments appt visit bill bills fees meeting session sessions class lesson lessons course "
    "check checkup check-up training practice trip stuff thing things "
    # a meal or a medicine of someone's ("mum's lunch club", "my father's medications and appointments")
    "breakfast lunch lunchtime dinner supper brunch meds medication medications medicine medicines tablets pills "
    "prescription prescriptions "
    "new old big little best first last own whole other one two three four five six seven eight nine ten "
    # how someone is ("the vet was happy", "mum's tired"): said after is/was where a name also goes
    "happy sad tired fine good great ok okay sick ill busy away off out up down over late early right wrong sure "
    "annoyed upset delighted thrilled chuffed gutted worried nervous excited pregnant retired lovely nice "
    "amazing brilliant awful grand back not very really so too quite pretty super"
)
_SLOTS = (
    # my sister tash, my leopard gecko noodle, a cat, bovril
    # (or counted: "2 roommates, fran and tomás")
    re.compile(rf"\b(?:my|our|his|her|their|\w+'s|a|an|\d+|two|three|four)\s+(?:[a-z]+\s+)?{_DESCRIBER}{_KIND}s?,?\s+"
               r"([a-z][\w-]*)"),
    # dr sandhu, mr whyte, ms kaur: a title before a name
    re.compile(r"\b(?:dr|mr|mrs|ms|miss|prof)\.?\s+([a-z][\w-]*)"),
    # me and ruaridh, ruaridh and i
    re.compile(r"\b(?:me|myself) and ([a-z][\w-]*)|(?<!\ba )(?<!\ban )(?<!\bthe )(?<!\bmy )(?<!\bour )(?<!\bhis )"
               r"(?<!\bher )\b([a-z][\w-]*) and (?:me|i)\b"),  # (not "im a nurse and i didnt")
    re.compile(rf"\b([a-z][\w-]*)'s\s+(?:my|our)\s+{_DESCRIBER}{_KIND}\b"),  # ziggy's my greyhound
    re.compile(rf"(?:^|[.!?,;]\s+){_DESCRIBER.removesuffix('?')}{_KIND}\s+([a-z][\w-]*)"),  # little brother callum
    re.compile(rf"\b{_KIND}(?:'s|\s+is|\s+was)\s+([a-z][\w-]*)"),  # partner's marco, new guitarist is shae
    re.compile(rf"\b([a-z][\w-]*)'s\s+(?:[a-z]+\s+)?{_DESCRIBER}{_KIND}s?\b"),  # fitz's cousin, eilidh's maths teacher
    re.compile(r"\b(?:married to|engaged to|dating|going out with|split up with|broke up with|seeing|visiting"
               r"|catching up with|caught up with)\s+([a-z][\w-]*)"),  # i'm seeing ben at northside
    # gp's put me on flixotide, switched me to symbicort
    re.compile(r"\b(?:put (?:me|him|her|us|them) on|switched (?:me |him |her |us )?(?:over )?to)\s+([a-z][\w-]*)"),
)
# A place after at/in/from ("2 bed in coburg", "lives in perth"), not a common noun ("in bed", "at work").
_PLACE = re.compile(r"\b(?:in|at|from|near)\s+([a-zß-ÿ][a-zß-ÿ-]{3,})\b")  # (viña)
_COMMON_PLACES = word_set(
    "time love town work home hospital school church class general fact case mind trouble charge heaps person "
    "advance total touch front back side middle start beginning process line shape pain tears bits hand months "
    "years days weeks ages city country office pub shop store studio house flat room kitchen garden traffic "
    "queue bed uni college court centre center morning evening afternoon night arvo least most all once "
    "full half sync order place life shock agony awe practice rehearsal training lunch dinner"
)
# called velvet stray, they called him oscar
_CALLED = re.compile(r"\b(?:called|named)\s+(?:(?:him|her|them|it)\s+)?(?:the\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})")
# a name in quotes after what says it is one: his racing name was 'blue moon rocket'
_QUOTED_NAME = re.compile(r"\b(?:called|named|name (?:is|was)|known as|nicknamed)\s+['\"‘“]([a-z][\w -]{1,40}?)['\"’”]")
_TITLE_WORD = re.compile(r"^[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]")


def uncased(text: str) -> bool:
    """Whether a text was typed without capitals: no word but a sentence's first starts with one."""
    said = re.findall(r"(?<![.!?]\s)(?<!^)\b[A-Za-zÀ-ÿ][\w'-]*", text.strip())
    return not any(_TITLE_WORD.match(w) and w not in ("I", "I'm", "I've", "I'd", "I'll") for w in said)


def learned_names(cased: Iterable[str], lower: Iterable[str]) -> set[str]:
    """The names (lower-cased, one or more words) said capitalised in `cased` texts or in a name's
    slot in `lower` ones."""
    cased, lower = list(cased), list(lower)
    names = {n.casefold() for text in cased for n in names_in(text)}
    slotted: set[str] = set()
    for text in lower:
        for slot in _SLOTS:
            slotted.update(w for m in slot.finditer(text) for w in m.groups() if w and plausible_name(w))
    names |= slotted - _TP_common_nouns(slotted, [*cased, *lower])
    for text in lower:
        names.update(m.group(1) for m in _PLACE.finditer(text) if plausible_name(m.group(1))
                     and m.group(1) not in _COMMON_PLACES)  # fmt: skip
        names.update(m.group(1) for m in _QUOTED_NAME.finditer(text)
                     if all(plausible_name(w) for w in m.group(1).split()))  # fmt: skip
        for m in _CALLED.finditer(text):
            kept = []
            for w in m.group(1).split():
                if not plausible_name(w):
                    break
                kept.append(w)
            names.update([" ".join(kept)] if kept else [])
    return {n for n in names if n and n not in STOP and n not in DESCRIBERS}  # ("30-04-2025: New car delivered")


# A word said after an article or a possessive is a common noun, not a name: "mum's lunch club" is no
# one called Lunch when "her lunch club" is said too, nor "my father's medications" when "the other
# medications" is. Not after "its" or "that"/"this", which chat types for "it's" and as a conjunction
# ("its marcus's 32nd bday today!!", "told her that marcus…"), nor a word owning something ("X's"): that
# is a name's place.
_TP_DETERMINED = re.compile(
    r"\b(?i:a|an|the|her|his|their|your|these|those|some|any|every|each)\s+(?:other\s+|same\s+)?"
    r"([a-z][\w-]*)(?![\w'’-])"
)


def _TP_common_nouns(words: set[str], texts: Iterable[str]) -> set[str]:
    """Of the words a name's slot found, those some text says in lower case after an article or a
    possessive ("her lunch club", "the other medications")."""
    if not words:
        return set()
    return {w for text in texts for w in _TP_DETERMINED.findall(text) if w in words}


def plausible_name(word: str) -> bool:
    """Whether a word typed in lower case may be a name ("marisol"), not a common word ("nice", "said")."""
    w = word.casefold().strip("-")
    return (len(w) >= 2 and w.isalpha() and w not in STOP and w not in _NOT_NAMES and w not in WHO
            and w not in DESCRIBERS and not (len(w) > 4 and w.endswith(("ing", "ed", "ly"))))  # fmt: skip


def capitalised(text: str, names: set[str]) -> str:
    """A lower-case text with the names capitalised, and "i" as "I"."""
    text = re.sub(r"\bi\b", "I", text)  # "i", "i'm"
    text = re.sub(r"\bim\b", "I'm", text)
    for name in sorted(names, key=len, reverse=True):  # "loose units" before "units"
        # (a whole word: not the "marathon" of "half-marathon" because "Semi-Marathon" is a name)
        pattern = r"(?<![\w-])" + r"\s+".join(re.escape(w) for w in name.split()) + r"(?![\w-])"
        text = re.sub(pattern, lambda m: " ".join(w[:1].upper() + w[1:] for w in m.group(0).split()), text)
    return text
