"""Which remembered notes answer a question, and how sure to be: decided without a model.

SmolLM2-135M cannot abstain (asked about a brother never mentioned, it answered "Your brother's
name is Ana.") and calls invented answers "high" confidence. So before the model says anything,
the question is read for what any answer must be about (`Ask`), and the notes are checked:

- **Hard terms** must each be held by a chosen note (the word, or a word of its generic-English
  group: "job" covers "work"; a category covers its members, but "cat" never covers "dog"):
  what follows "my" or a name's "'s" ("my sister's dog" → sister, dog; "Priya's birthday" →
  priya, birthday), the noun a "which/what" asks about ("which hospital"), a name the question is
  about ("does Jonas…"), and a year or number it states. A near miss ("my brother", "Jonas's
  hospital") therefore finds no answer.
- **Attributes** asked of something ("name", "profession", "age") are rarely said in those words:
  a name is satisfied by a note that names ("my mum Renate", "called Miso", "I'm Lena"), a
  profession by one that says what someone is or does ("she's a nurse", "works as a chef").
- **The answer's type** follows the question word: where → a place after at/in/from/to, when →
  a date, day, month, year or time, who → a name, how old/many/much/long → a number. Notes that
  hold one are preferred, and a note that covers the question but lacks it is joined to another.
- **Joining** (two or three hops): a note that shares a name with a chosen one is added when it
  covers a missing hard term or brings the missing answer type ("the colleague who bakes
  sourdough" → "My colleague Priya… bakes sourdough" + "Priya is originally from Bangalore").
- **Someone named by what they did** ("what is the guy who bought my old hilux studying?") is found
  first ("who bought my old hilux?": "the old Hilux i sold to Giorgos"), then asked about by name
  ("what is Giorgos studying?"), when one note says the whole clause (`_through_whom`). So is
  **someone named as another's kin** when no note says it in one step ("Naoko's mother": "Naoko, the
  daughter of tia Kazuko", then "where does Kazuko live?"; `_through_kin`).
- **The person**: a question about "my …" needs a chosen note that speaks as the person ("My cat…",
  "We have…", "The user's…"); "Ana adopted a dog" alone does not answer "my dog".
- **Corrections**: among notes that cover as much, the newest wins.

No answer passes → "I don't know", said without calling the model. Confidence: high when every
key word of the question is covered by notes the best of which was recalled at `SURE_RELEVANCE` or
more, and the question asks no amount (that is where answers were measured right three times in four
on personas nobody had read); medium otherwise; low for "I don't know".
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from capabilities.shorthand import spelled_out
from capabilities.situation import (
    CATEGORIES,
    DESCRIBERS,
    NAME_WORD,
    STOP,
    Situation,
    introduced,
    is_first_person,
    key_terms,
    names_in,
    related_stems,
    root,
    stem,
    word_set,
    words,
)
from capabilities.situation import read as read_message
from capabilities.truecase import WHO, capitalised, learned_names, plausible_name, uncased
from memory.formation.patterns import DAY_DOT, NATIONALITY, NOT_AN_END, sentences
from memory.formation.plan import asks

HIGH_RELEVANCE = 0.6
# "high" confidence is earned, not given (measured on five personas before their misses were read: held10-14,
# each on the code of its first run; docs/benchmarks.md, eleventh session): of 240 answers, 53% were right;
# those that say every key word asked from a note recalled at >= SURE_RELEVANCE, for anything but an amount,
# 47 of 62 (76%); the rest 79 of 178 (44%); an amount asked 8 of 45 (mostly sums and differences no note says)
SURE_RELEVANCE = 0.95
BARE_RELEVANCE = 0.8  # with no key word at all ("what was that?"), only a strong recall match answers
MAX_NOTES = 3
JOIN_STARTS = 3  # how many of the best notes a chain of notes may start from
_QUESTION = re.compile(
    r"^\W*(?:what|who|where|when|why|how|which|do|does|did|is|are|can|could|would)\b.*\?\s*$", re.I | re.S
)

AnswerType = Literal["place", "time", "person", "number", "thing"]  # thing: a member of the category asked
Verdict = Literal["answer", "unknown"]

# Attributes asked of something, satisfied by the note's shape rather than by the word itself.
NAMING = word_set("name names named called nickname")  # ("names" stems to "nam")
NAMING_STEMS = frozenset(stem(w) for w in NAMING)
ROLE = word_set("profession occupation job work title")
ROLE_STEMS = frozenset(stem(w) for w in ROLE)
AGE = word_set("age old")
SURNAME = stem("surname")  # ("last name", "family name" are read as it: see `read_ask`)
_ATTRIBUTE_STEMS = NAMING_STEMS | ROLE_STEMS | frozenset(stem(w) for w in AGE) | {SURNAME}
# A pronoun that needs the turn before it ("His wife Nia…")
_PRONOUN = re.compile(r"\b(?:he|she|him|his|her|it|its|they|them|their|there)\b", re.IGNORECASE)
# Nouns after which/what that only say the answer's type ("which city", "what year").
_TYPE_NOUNS: dict[str, AnswerType] = {
    **dict.fromkeys(("city", "town", "country", "place", "neighbourhood", "neighborhood", "area", "village",
                     "suburb", "district", "county", "street", "address", "state", "region", "port", "harbour",
                     "harbor", "lake", "river", "beach", "island", "mountain", "park", "coast", "bay"), "place"),
    **dict.fromkeys(("day", "date", "time", "year", "month", "evening", "morning", "afternoon", "night",
                     "week", "weekday", "season", "deadline"), "time"),
    **dict.fromkeys(("person", "one"), "person"),
    **dict.fromkeys(("dose", "dosage", "amount", "price", "cost", "number", "size", "distance", "weight", "height",
                     "length", "temperature", "speed"), "number"),  # "which distance did I run": "the 10 km"
}  # fmt: skip
# Nouns after which/what whose answer is a name, and which a note must still mention ("which company":
# "Halden Robotics", not "I got promoted").
_NAMED_NOUNS = word_set(
    "company employer firm organisation organization school university college hospital clinic club team shop store "
    "restaurant cafe bar bank gym church band choir agency airline hotel inn insurer broker dealership garage"
)
_TYPE_STEMS = frozenset(stem(w) for w in (*_TYPE_NOUNS, *_NAMED_NOUNS))  # "which city…": what is asked, not about
# Nouns after which/what that ask for a description no note names as such ("what breed is Miso?").
_DESCRIPTIVE = word_set("breed kind type sort colour color model brand make size shape style")
# Nouns after which/what that only point at the answer ("which part do I sing?": alto).
_VAGUE = word_set("part bit piece thing one ones")
# Verbs a question opens on, "what" their subject ("what happened to my bike?"): no noun a note must say
_WH_VERBS = word_set("happen happened happens happening went goes changed changes broke hurts hurt")
KIND = "kind"  # the attribute a descriptive question asks: met by a description ("Miso, a grey British shorthair")
_KIND_SHAPE = re.compile(
    r"(?:,|\b(?:is|was|are|were)|['’]s)\s+(?:an?|our|my)\s+(?!lot\b|bit\b|few\b|couple\b)[a-z]", re.IGNORECASE
)


def described(text: str) -> set[str]:
    """The words of the descriptions a note gives, lower-cased: "Our dog Biscuit, a very stubborn
    nine-year-old basset hound, thinks…" → very, stubborn, basset, hound… (what "what breed is
    Biscuit?" must be answered with)."""
    found: set[str] = set()
    for m in _KIND_SHAPE.finditer(text):
        tail = re.split(r"[,.;:!?()]", text[m.end() - 1 :], maxsplit=1)[0]
        found |= {w for w in words(tail) if w not in STOP and len(w) > 2}
    return found


_BRANDS = word_set("brand make model")  # asked as a name said beside the thing: "a new refrigerator, Gelopar"


def _beside_terms(text: str, terms: Sequence[str], starts: Sequence[int]) -> bool:
    """Whether any of `starts` (offsets in the text) comes within three words after a word asked."""
    ends = [m.end() for t in terms for m in re.finditer(rf"\b{re.escape(t)}\w*", text, re.IGNORECASE)]
    return any(0 <= len(text[end:start].split()) <= 3 and start >= end for start in starts for end in ends)


_KIND_BEFORE = r"\b(?:an?|my|our|his|her|their)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+(?:called|named)\s+{}\w*"
_EMOJI = re.compile(r"[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200D]+")  # (not a dash: "the baby — Gogo screamed")
_FILLERS = word_set("though too also btw lol haha tbh honestly there here")  # said between a thing and its name
_BEFORE_NAME = word_set("is was a an the dr dr. mr mr. mrs mrs. ms ms. prof prof.")  # "the vet is a Dr. Brandt"
_NAME_FIRST = re.compile(
    r"\b([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)(?:'s|\s+is|(?:\s+is\s+\d{1,3})?,(?:\s*\d{1,3},)?)\s+(?:our|my)\s+([a-z]+(?:-[a-z]+)*)"
    r"(?:\s+([a-z]+))?"
)
# The place a place is in: "which neighbourhood of Leipzig" (the answer need not say Leipzig).
_CONTAINER = re.compile(
    r"\b(?:neighbou?rhood|part|area|district|suburb|side|corner|street|region|village|town)\s+of\s+([A-ZÀ-ÞĀ-Ž][\w-]+)"
)
_DID = re.compile(r"\b(?:do|does|did)\s+(?:i|we)\s+(?:\w+ly\s+)?([a-z]+)", re.IGNORECASE)
_NAMED_DID = re.compile(r"\b(?:does|did)\s+([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)\s+(?:\w+ly\s+)?([a-z]+)\b")
_LIGHT_VERBS = word_set(
    "go get have make take keep need want like tell say mention talk speak write ask remember know think see"
)  # said in too many ways to require ("do I see the physio": "physio is Thurs at 4:30"), or about the telling
_NOW = re.compile(
    r"\b(?:now|these days|currently|at the moment|right now|nowadays|still|anymore|at present|finally|eventually"
    r"|in the end|this (?:year|summer|winter|spring|autumn|fall|season|term)|latest|most recent|newest)\b",
    re.I,
)
# What came before: asked ("before my current job", "my previous flat") and said ("Before that I…").
_PRESENT = re.compile(r"\b(?:do|am|are)\s+(?:i|we)\b", re.IGNORECASE)  # "what preventer am I on?": what is so now
_EARLIER = re.compile(r"\b(?:before|previous|previously|used to|former|formerly|prior)\b", re.IGNORECASE)
_SAID_EARLIER = re.compile(
    r"\b(?:before|previously|used to|formerly|former|earlier|until|prior|anymore|any more|no longer|retired"
    r"|retiring)\b",
    re.IGNORECASE,
)  # "a retired nurse", "head of a school, retiring in july": the job before
# A note that corrects what was said: "We moved! … now, not the Südvorstadt anymore."
_CORRECTS = re.compile(
    r"\b(?:now|anymore|any more|no longer|actually|moved|changed|switched|instead|correction|not \w+ anymore|"
    r"sold|bought|replaced|left|renamed|quit|ended up|cancelled|called off|given up|gave up|"
    r"new (?:[\w-]+ ){1,3}(?:(?:from|since|as of|starting) (?:[\w.]+ ){1,2})?(?:is|was)|"
    r"(?:saw|met|see|meet|got|have) (?:the|a|my|our) new \w+|retired|found a (?:new )?place|"
    r"(?:get|got) the keys|headhunted|got the job|(?:offered|took) (?:me )?(?:the|a) (?:new )?(?:job|role|position)|"
    r"(?:a|my) new (?:job|role|position)|(?:i|we) start(?:ed)? (?:on|at|in|next|there))\b"
    # a value changed: "raised the amlodipine to 10 mg", "went up to 40 lei" (not "went up to Leeds");
    # news said as a heading: "NEW TRUCK. Scania R 450"
    r"|\b(?:raised|increased|upped|lowered|reduced|bumped|put up|(?:went|gone|goes|going|go) (?:up|down)|came down"
    r"|dropped|cut|fell|rose) (?:\w+ ){0,3}?"
    r"to\s+[$€£]?\d|^\W*new \w+\s*[.!:]",  # (a heading opens the message: not "Party at the new flat.")
    re.IGNORECASE,
)
_MONTHS = word_set(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_WEEKDAYS = word_set("monday tuesday wednesday thursday friday saturday sunday weekend")
_NUMBER_WORDS = word_set(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred half dozen"
)
_COUNTED = _NUMBER_WORDS | word_set("once twice")  # "twice a day": a number, for "how often…" (not an age)
def corrects(text: str) -> bool:
    """Whether a note says something changed ("moved", "instead", "not … anymore"), or puts one value
    against another ("the holiday is in july not june", "Tuesdays, not Thursdays")."""
    return _CORRECTS.search(text) is not None or _CONTRAST.search(text) is not None


# a value said against the one it replaces: a name, a number, a month or a day after "not"
_CONTRAST = re.compile(
    r"[\w€$£%][,;]?\s+not\s+(?:in\s+|on\s+|at\s+|the\s+)?(?:[€$£]?[A-ZÀ-ÞĀ-Ž0-9][\w:.]*"
    r"|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|(?i:mon|tues|wednes|thurs|fri|satur|sun)days?)\b"
)


_NEGATED = word_set("can't cannot don't doesn't didn't won't shouldn't wouldn't isn't aren't wasn't")
_LOCATIVE = word_set("at in from to near on into")
# A clock time as one token ("8:15", "7.30am"); the voice finds it whole in a reply the same way.
CLOCK_TIME = re.compile(r"\d{1,2}[:.]\d{2}(?:am|pm)?", re.IGNORECASE)
_HOURS = frozenset(str(n) for n in range(1, 13)) | word_set(
    "one two three four five six seven eight nine ten eleven twelve"
)
_AT_TIME = word_set("at by from until till around about half quarter")
_TIME_WORDS = word_set("yesterday today tomorrow ago last next since")
_ROLE_SHAPE = re.compile(
    r"\b(?:(?:works?|worked|working|job)\s+(?:\w+\s+)?as(?:\s+an?)?|(?:years?|decades?|career|retired|trained|qualified)\s+as\s+an?"
    r"|(?:is|she's|he's|i'm|was|am)\s+(?:now\s+|still\s+|actually\s+)?(?:been\s+)?an?"
    r"|(?:['’]s|\bis|\bwas)\s+\d{1,3}(?:\s*,|\s+and)\s+an?)"  # "Tessa's 25 and a vet nurse"
    r"\s+((?:senior\s+|junior\s+|head\s+|chief\s+)?\w+)",
    re.IGNORECASE,
)

# A job said with no article, as people writing a second language often do ("she is pharmacist", "her
# husband Stavros is accountant", "Dimitris is taxi driver"): only words shaped as jobs (a doer's ending,
# not a comparative: "is older"), or a few common jobs that have none. (With an article, `_ROLE_SHAPE`.)
_JOB_WORD = (
    r"(?:\w+(?:ist|ician|arian|itian|ountant|sultant|sistant|tendant|geant)"
    r"|(?!(?:bett|bigg|long|old|young|fast|high|larg|small|low|lat|oth|eith|neith|nev|rath|wheth|togeth|anoth"
    r"|prop|clev|und|ov|aft|ev|eag|bitt|sob|sup|tend|tough|clos|furth|quiet|easi|hard|smart|sick|thinn|fatt|tall"
    r"|near|clean|strong|weak|happi|busi|earli|cheap|rich|poor|warm|cold|cool|dark|light|short)er\b)\w{4,}er"
    r"|\w{4,}or|nurse|cook|chef|vet|pilot|judge|midwife|medic|barista|waitress"
    r"|(?:post|police|fisher|fire|sales|handy|business|delivery|camera)(?:wo)?man|soldier)"
)
_ROLE_BARE = re.compile(
    r"\b(?:is|was|she's|he's|i'm|am)\s+(?:now\s+|still\s+)?(?!an?\s|the\s)((?:\w+\s+)?" + _JOB_WORD + r")\b",
    re.IGNORECASE,
)
# Someone named said to be a job-shaped word: "Sipho is a civil engineer at…" is about his work (not
# "Miso is a grumpy tabby").
_NAMED_ROLE = re.compile(
    r"\b[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+\s+(?i:is|was)\s+(?i:now\s+)?(?i:an?\s+)((?i:\w+\s+)?(?i:" + _JOB_WORD + r"))\b"
)
# A job said as what someone does: "He fishes lobster out of Lunenburg", "she teaches maths".
_ROLE_VERB = re.compile(
    r"\b(?:he|she|they|i|[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)\s+(?:now\s+|still\s+|also\s+)?"
    r"((?:teach|fish|farm|nurse|lecture|tutor|coach|preach|practis|practic)(?:es|s)?\s+\w+"
    r"|(?:drives?|runs?|owns?|manages?)\s+(?:a|an|the|his|her|their)\s+(?:\w+\s+)?\w+"
    # "drives trams", "fixes bikes"
    r"|(?:drive|fix|repair|build|design|sell|deliver|install)(?:es|s)\s+(?!it\b|them\b|me\b|us\b)\w+s\b"
    r"|works?\s+(?:at|for|in)\s+(?:the\s+)?\w+)",
)
# The person's own job said as what they do: "I teach chemistry at Lakeside High", "I now teach at…" (not
# "I drive a blue Škoda", "I run a half marathon": the person's own driving and running are not a job).
_MY_ROLE_VERB = re.compile(
    r"\bI\s+(?:now\s+|still\s+|also\s+)?((?:teach|lecture|tutor|coach|nurse|farm|fish|preach|practis|practic)\w*\s+\w+"
    # "I drive buses for Midland Citybus", "I fix boilers for a firm in Leeds": a trade plied for someone
    r"|(?:drive|fix|repair|build|deliver|install|clean)\s+(?!it\b|them\b)\w+s\s+for\s+(?:an?\s+|the\s+)?[A-Z\w]\w*)"
)
# A business of one's own is a job: "my dad jorge has a mechanic shop there, Taller Rojas" (whoever has it).
_OWN_BUSINESS = re.compile(
    r"\b(?:has|have|had|opened)\s+(?:a|an|his|her|their|our|my)\s+(?:own\s+)?(?:\w+\s+)?((?:shop|business|company"
    r"|restaurant|caf[eé]|bakery|farm|garage|firm|practice|store|salon|clinic|workshop|studio))\b",
    re.IGNORECASE,
)
# A person's job said without the word "work" ("I'm now an instructor…"): it is about work.
_WORKS_AS = re.compile(
    r"\b(?:i'm|i am|he's|he is|she's|she is|they're)\s+(?:now\s+|still\s+)?an?\s+"
    r"(?!lot\b|bit\b|few\b|couple\b|little\b)\w+",
    re.IGNORECASE,
)
# Work said by where and how it is done: "he's FIFO on a mine site", "night shifts", "on the tools".
_AT_WORK = re.compile(
    r"\b(?:FIFO|fly[- ]in,? fly[- ]out|on (?:a|the) (?:\w+ )?(?:site|rig|tools)|(?:night|day|early|late) shifts?"
    r"|(?:i|he|she|we) (?:was|were|spent) (?:\w+ )?(?:years?|decades?) (?:in|at|with))\b",  # "I was five years in…"
    re.IGNORECASE,
)
_WORK = frozenset({stem("work")})
# "name is Jonas", "called Miso", a group's "we're the Tuesday Night Readers"
_NAMING_SHAPE = re.compile(  # (also "we named it 'Sri Guru Nilaya'")
    r"\b(?:name (?:is|was)|name['’]s|named|called|(?i:we['’]re|we are)\s+the)\s+"
    r"(?:(?:it|him|her|them)\s+)?(?:the\s+)?['‘\"“]?[A-ZÀ-ÞĀ-Ž]"
)
# "what's my name?": "I'm Lena" (`situation.introduced`), or the fact formed from it
_USER_NAMED = re.compile(rf"\b(?i:the user(?:'s name)? is)\s+(?!{NATIONALITY}\b)[A-ZÀ-ÞĀ-Ž]")
# (and the head of a compound before the verb: "which law firm does…" asks for a firm)
_WH_NOUN = re.compile(
    r"\b(?:which|what)\s+(?:kind of\s+|sort of\s+|type of\s+)?([a-zà-ÿ'’]+(?:-[a-zà-ÿ]+)*)"
    r"(?:\s+([a-zà-ÿ'’]+)(?=\s+(?:do|does|did|is|was|are|were|has|have|had|will|can)\b))?",
    re.IGNORECASE,
)
# "the name of the (animal) clinic"; not "of my band": its own name
# The noun a which/what question asks about, the last before its verb ("which basketball team do…").
_WH_HEAD = re.compile(
    r"\b(?:which|what)\s+(?!(?:do|does|did|is|are|was|were|have|has|had|will|would|can|could|should)\b)"
    r"(?:[a-zà-ÿ'’-]+\s+){0,2}?([a-zà-ÿ'’-]+)\s+(?:do|does|did|is|are|was|were|have|has|had)\b",
    re.IGNORECASE,
)
_NAME_OF = re.compile(r"\bname of (?:the|that|this)\s+((?:[a-z]+\s+){0,2}[a-z]+)\b", re.IGNORECASE)
# (a whole word: not "Phil" of "PhilHealth")
_SUBJECT_NAME = re.compile(r"\b(?:does|did|is|was|has|do|are|were)\s+([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)\b")
_NUMBER = re.compile(r"\b\d+(?:[.,:]\d+)?\b")
_CLOCK = re.compile(
    r"\b\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\b(?:noon|midday|midnight)\b", re.I
)  # "7.30am", "8 pm", "11:30"
_DAY_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
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
_DESCRIBER = "(?:" + "|".join(sorted(DESCRIBERS)) + r")\s+"
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
ALIAS_STEPS = 3  # how many links of a chain of notes a name is followed through
_MY_WORD = re.compile(r"\b(?:[Mm]y|[Oo]ur|[Tt]he user['’]s)\s+(?:" + _DESCRIBER + r")?([a-z]+)")
# Kinship said in two steps, a generic English fact: "Mum moved … to be closer to her sister" is
# about an aunt, "my dad's brother" is an uncle, "my wife's side first… Her brother Hemi" a
# brother-in-law (the next sentence's leading "Her" is the one just said).
_PARENT = "mum|mom|mother|dad|father"
_SIBLING = "sister|brother"
_CHILD = "son|daughter|child|kid"
_SPOUSE = "wife|husband|partner|spouse"
_KIN_TABLE = (
    (_PARENT, "sister", "aunt"), (_PARENT, "brother", "uncle"),
    (_PARENT, "mum|mom|mother", "grandmother"), (_PARENT, "dad|father", "grandfather"),
    (_SIBLING, "daughter", "niece"), (_SIBLING, "son", "nephew"),
    ("aunt|uncle", _CHILD, "cousin"), (_CHILD, _CHILD, "grandchild"),
    (_CHILD, "son", "grandson"), (_CHILD, "daughter", "granddaughter"),
    (_SPOUSE, "mum|mom|mother", "mother-in-law"), (_SPOUSE, "dad|father", "father-in-law"),
    (_SPOUSE, "brother", "brother-in-law"), (_SPOUSE, "sister", "sister-in-law"),
    ("brother", "wife", "sister-in-law"), ("sister", "husband", "brother-in-law"),
    ("son", "wife|partner", "daughter-in-law"), ("daughter", "husband|partner", "son-in-law"),
    (_SPOUSE, "parent", "parents-in-law"),
)  # fmt: skip
_KINSHIP = tuple(
    (re.compile(rf"\b(?:{first})(?:['’]s|\b[^.!?]{{0,90}}?\b(?:her|his|their)|\b[^.!?]{{0,90}}[.!?]\s+(?:her|his|their))"
                rf"\s+(?:{_DESCRIBER})?(?:{second})s?\b", re.I), stem(term))
    for first, second, term in _KIN_TABLE
)  # fmt: skip


@dataclass(frozen=True)
class Note:
    """One remembered piece of text a question might be answered from."""

    ref: str
    text: str
    created_at: datetime | None = None
    relevance: float = 0.0
    source: str = "turn"  # the memory's kind: "turn" or "fact" (the person's words), "chunk" (a document)
    after: str = ""  # the ref of the turn this one leans on ("We got her…" after "Biscuit's our beagle")
    title: str = ""  # a document's title, which each of its sentences is about ("… — The Marigold Hotel")
    also: str = ""  # words the person said mean the same as one of its own ("fastlege (GP)": GP; see `glossed`)

    @functools.cached_property
    def said(self) -> frozenset[str]:
        """The stems of its own words, and of the doers they name ("guitarist": guitar)."""
        return _said(self.text)

    @functools.cached_property
    def phrases(self) -> frozenset[tuple[str, str]]:
        """Two content words said together ("crooked fox", "ziggy's vet"): a thing named the same in two
        notes, whatever its casing ("first ever gig was at the crooked fox" and "the crooked fox shut
        down in 2022")."""
        pairs = set()
        for clause in re.split(r"[.,!?;:()\n]", self.text):
            said = [w if len(w) > 2 and w not in STOP and not is_calendar(w) and w not in _TIME_WORDS else ""
                    for w in words(clause)]  # fmt: skip
            pairs |= {(a, b) for a, b in itertools.pairwise(said) if a and b}
        return frozenset(pairs)

    @functools.cached_property
    def stems(self) -> frozenset[str]:
        """The stems of its words and its document's title, and the kinship it says in two steps ("her
        sister" of Mum: aunt): "how many drink tokens in the Marigold deal?" is the Marigold contract's."""
        title = frozenset(stem(w) for w in words(f"{self.title} {self.also}"))
        said = self.said | title | frozenset(root(s) for s in title) | kinship(self.text)
        said |= {MEDICINE} if _DRUG.search(self.text) else frozenset()
        at_work = (_WORKS_AS.search(self.text) or _ROLE_VERB.search(self.text) or _MY_ROLE_VERB.search(self.text)
                   or _OWN_BUSINESS.search(self.text) or _AT_WORK.search(self.text)
                   or _NAMED_ROLE.search(self.text) or _mh_started_at(self.text))
        return said | _WORK if at_work else said


# A job begun at a named place is work: "on Monday he started at Lely in Leeuwarden" (not "start in February")
_MH_STARTED_AT = re.compile(r"\b(?:started|starts|starting|start)\s+(?:work\s+)?(?:at|in)\s+([A-ZÀ-ÞĀ-Ž][\w'’-]+)")


def _mh_started_at(text: str) -> bool:
    return any(not is_calendar(m[1]) for m in _MH_STARTED_AT.finditer(text))


# A medicine is known by its name's ending (the international nonproprietary names' stems: amlodipine,
# bisoprolol, ramipril, atorvastatin, apixaban, furosemide…) or is one of the few everyday ones that have
# none: "what tablets am I taking for my blood pressure?" is "the doctor put me on amlodipine".
_DRUG = re.compile(
    r"\b(?:[a-z]{2,}(?:dipine|olol|pril|sartan|statin|cillin|mycin|cycline|floxacin|azole|xaban|gatran|formin|"
    r"semide|thiazide|tidine|oxetine|pram|azepam|azolam|profen|olone|isone|caine|gliptin|gliflozin|dronate|lukast|"
    r"terol|zosin|triptan|setron|afil|codone|thyroxine|mazepine|triptyline|trigine|apine|peridone|traline|farin|"
    r"parin|vudine|ciclovir|clovir)|paracetamol|acetaminophen|aspirin|insulin|codeine|morphine|metformin|"
    r"levothyroxine|lithium|warfarin|antibiotics?|antihistamines?|inhaler)\b",
    re.IGNORECASE,
)
MEDICINE = stem("medicine")


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


def kinship(text: str) -> frozenset[str]:
    """The kin a text names in two steps ("Mum … her sister": aunt; "my wife's mum": mother-in-law; a
    birth is a child: "my sister Ruth just had a baby boy": nephew)."""
    text = _BORN.sub(lambda m: f"{m[1]} their {'son' if m[2].casefold() == 'boy' else 'daughter'}", text)
    return frozenset(term for pattern, term in _KINSHIP if pattern.search(text))


_BORN = re.compile(r"\b(had|has|having|welcomed)\s+an?\s+(?:(?:new|baby|little|beautiful)\s+)*(boy|girl)\b", re.I)


@dataclass(frozen=True)
class Ask:
    """What any answer to a question must be about (see the module docstring)."""

    hard: tuple[str, ...]
    attributes: tuple[str, ...]
    answer_type: AnswerType | None
    terms: tuple[str, ...]
    own_name: bool = False  # "what's my name?"
    earlier: bool = False  # "where did I work before?": a note that says what came before is preferred
    now: bool = False  # "where do I live these days?": the newest of the person's complete notes is preferred
    verb: str = ""  # "which university did I study at?": what the person did, which a note must say
    things: tuple[str, ...] = ()  # the hard terms that are no name: "the ship Manolis works on" → ship
    category: str = ""  # the noun the answer is a kind of, as a stem: "what dose…" → dose
    # "where does Ørjan work?": who is asked doing what (casefolded name, verb stem); only ranks notes
    # that say that one does it ("Ørjan is electrician, he works at Nordlys Elektro") before those
    # that merely name both ("Ørjan's holiday got changed because of the UNN job")
    named_does: tuple[str, str] = ("", "")
    owners: tuple[str, ...] = ()  # the names asked as another's owner: "Meghna's mother's name" → meghna


@dataclass(frozen=True)
class Evidence:
    """The notes chosen to answer, the verdict and the confidence, with the reason."""

    verdict: Verdict
    notes: tuple[Note, ...]
    confidence: Literal["high", "medium", "low"]
    reason: str
    missing: tuple[str, ...] = ()


def covers(note_stems: frozenset[str], term: str) -> bool:
    """Whether a note's stems include a term or a word of its group."""
    return bool(related_stems(term) & note_stems)


def is_question(text: str) -> bool:
    """Whether a stored text is itself a question (it states no fact), with or without its question mark
    ("what team is my boyfriend into", stored before the write-time filter knew it)."""
    return bool(_QUESTION.match(text.strip())) or asks(text)  # (not "…, isn't she cute?": a told fact ends so)


def _singular(noun: str) -> str:
    """A plural answer-type noun as its singular ("what nights…", "which cities…"); other words as they are."""
    for plural, one in (("ies", "y"), ("s", "")):
        if noun.endswith(plural) and (single := noun[: -len(plural)] + one) in (*_TYPE_NOUNS, *_DESCRIPTIVE):
            return single
    return noun


def answer_type(question: str) -> AnswerType | None:
    """The kind of thing an answer names, from the question word (None: anything)."""
    q = question.casefold().replace("’", "'")
    wh = _WH_NOUN.search(q)
    if wh and _singular(wh.group(1)) in _TYPE_NOUNS:
        return _TYPE_NOUNS[_singular(wh.group(1))]
    if re.search(r"\b(?:which|what) (?:part|side|end|bit) of\b", q):  # "which part of Newcastle": a place
        return "place"
    if _named_noun(q):
        return "person"  # a name
    if wh and wh.group(1) in CATEGORIES:
        return "thing"  # "what car do we drive?": a Subaru, a Civic
    if re.search(r"\bwhere\b", q):
        return "place"
    if _HOW_WHEN.match(q):  # "how much did she weigh when she was born?": a weight, not a time
        return "number"
    if re.search(r"\b(?:when|since when|what time|how long ago)\b", q) or _TL_DEADLINE.match(q):
        return "time"
    if re.search(r"\bhow (?:old|many|much|long|often)\b", q) or _NUMBER_ASKED.search(q) or _PRICE_ASKED.search(q):
        return "number"
    if WHO_IS_NAMED.match(question):
        return None  # "who is Ruth?" asks who she is to the person ("my sister Ruth"), not for a name
    if re.search(r"^\W*(?:who|whom)\b", q):
        return "person"
    return None


# "what's the deadline to accept…?": a day
_TL_DEADLINE = re.compile(r"^\W*what(?:'s|\s+is|\s+was)\s+the\s+deadline\b")
# "who is Ruth?", "Who's Dr Okafor?": the name asked (group 1)
WHO_IS_NAMED = re.compile(r"^\W*(?i:who)(?:['’]s|\s+(?i:is|was))\s+((?:[A-ZÀ-ÞĀ-Ž][\w'’-]*\s*){1,3}?)\W*$")
# a question that asks an amount, then says when ("how old was I when…", "how much did she weigh when…")
_HOW_WHEN = re.compile(r"^\W*how (?:old|many|much|often|long(?! ago))\b(?=.*\bwhen\b)")


# "what did I pay for the Navara?", "what am I charging for…", "what did I get for the Duster?": an amount
_PRICE_ASKED = re.compile(
    r"^\W*what\s+(?:did|do|does|will|would|am|are|is|was)\s+(?:\w+\s+){1,2}?(?:\w+ly\s+)?"
    r"(?:pay|paid|charg(?:e|es|ed|ing)|cost|spen[dt]|spending|(?:get|got|getting)\s+for\s+the)\b"
)
# "what's my mom's room number at…", "what number do I ring…": a number, not "the dining room"
_NUMBER_ASKED = re.compile(r"^\W*(?:what|which)\b(?:['’]s|\s+is|\s+was)?(?:\s+[\w'’-]+){0,4}?\s+number\b")
_NUMBER_OF = re.compile(
    r"\b(?!what\b|which\b)([a-z]+)\s+number\b|\bnumber of (?:the|my|our|his|her)\s+(?:\w+\s+)?([a-z]+)", re.I
)  # the thing numbered: "room number", "the number of the parking bay"
# (the head of a compound: "what's the interest rate on our mortgage" asks for the rate)
_WHAT_THE = re.compile(
    r"^\W*what(?:['’]s|\s+is|\s+was|\s+were|\s+are)\s+the\s+([a-z]+)\b"
    r"(?:\s+([a-z]+)(?=\s+(?:on|of|for|at|in|with|now|these|this|today)\b|\s*[?.!]*\s*$))?",
    re.IGNORECASE,
)
_ORDINARY = word_set(
    "latest news deal story plan point matter thing best first last next new old usual current date time"
)  # "what's the latest…", "what's the date…": no thing a note must name


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
    container = {w.casefold() for w in _CONTAINER.findall(text)}
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
    unsaid |= {stem(w) for w in _CONTAINER.findall(text)}  # "which neighbourhood of Leipzig": where to look
    unsaid |= placed
    unsaid |= {stem(w) for w in re.findall(rf"\bmy\s+({'|'.join(DESCRIBERS)})\b", text, re.IGNORECASE)}  # "my late"
    ends = [stem("end")] if re.search(r"\b(?:until|till)\b", text, re.IGNORECASE) else []  # "until what date…?"
    asked = dict.fromkeys([*sit.key_terms, *hard, *ends])
    terms = _distinct(t for t in asked if t not in attributes and t not in unsaid)
    earlier = bool(_EARLIER.search(text))
    now = bool(_NOW.search(text) or _PRESENT.search(text))
    did = _DID.search(text)
    verb = stem(did.group(1)) if did and did.group(1).casefold() not in STOP | _LIGHT_VERBS else ""
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


def _name_chains(text: str) -> list[str]:
    """'Priya's birthday' → priya, birthday; "Jonas's workshop" → jonas, workshop."""
    out: list[str] = []
    for m in re.finditer(r"\b(" + NAME_WORD + r")['’]s\s+(?:(?:favourite|favorite|new|old|best)\s+)?([a-zà-ÿ]+)", text):
        if m.group(1).casefold() not in STOP | _WH and m.group(2) not in STOP:
            out += [stem(m.group(1)), stem(m.group(2))]
    return out


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
        if any(noun in n.casefold().split() for n in names_in(note.text)):
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
_PARTS = re.compile(rf"(?<=[.!?;]){NOT_AN_END}\s+|\s+[—–]\s+|\s+-\s+|\s*\n\s*")


def parts(text: str) -> list[str]:
    """A message's sentences, split also at semicolons and dashes: "we got married on June 13th, 1987
    — and we're thinking of a weekend in Savannah" is two things said. A part with no subject of its
    own goes on with the one before ("i started pottery!! tuesday nights at clay corner")."""
    out: list[str] = []
    for p in (p for p in _PARTS.split(text) if p.strip()):
        first = re.match(r"\W*([\w'’]+)\s*(\w*)", p)
        word, then = (first.group(1), first.group(2).casefold()) if first else ("", "")
        own = (word.casefold().replace("’", "'").removesuffix("'s") in _OPENS | WHO or then in _IS
               or (word[:1].isupper() and not is_calendar(word) and word.casefold() not in _DID_ALONE))  # fmt: skip
        if out and not own:
            out[-1] += " " + p
        else:
            out.append(p)
    return out


_IS = word_set("is was are were has had will can")  # "manager is Priya": a subject of its own
# Past verbs a message opens a sentence with when its subject is the one before's: "we're adopting a
# dog!! Went to the Sandton SPCA yesterday" (capitalised, yet no name).
_DID_ALONE = word_set("went got took saw met came made found bought booked did left moved started finished spent")
# Words a part opens with when it says something of its own: a subject, a determiner, a conjunction.
_OPENS = word_set(
    "i i'm i've i'd i'll we we're we've we'd he he's she she's they they're it it's you you're my our his her "
    "their its this that these those there there's the a an and but so or then also plus mum mom dad"
)


_INSTEAD = re.compile(r"\b(?:instead|rather)\b", re.IGNORECASE)


_WHO_ROLE = re.compile(r"^\W*who(?:['’]s|\s+is|\s+was|\s+are)\s+(?:the|my|our|his|her|their|\w+['’]s)\s+([a-z]+)\b")


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


def _named_noun(question: str, direct: bool = False) -> str:
    """The noun a name is asked for: "which company…", "the name of the (animal) clinic…" (lower-cased);
    `direct`: only right after "the name of the"."""
    q = question.casefold()
    asked = [w for m in (_WH_NOUN.search(q), _NAME_OF.search(q)) if m
             for w in [*m.group(1).split(), *m.groups()[1:]][: 1 if direct else 3] if w]  # fmt: skip
    return next((noun for noun in asked if noun in _NAMED_NOUNS), "")  # "the animal hospital": hospital


def candidates(text: str, kind: AnswerType | None, question: str, near_only: bool = False) -> set[str]:
    """The words of a text that could be the answer's type (lower-cased), none the question says.

    Of a person, a place or a thing, those said beside what is asked about when there are any (see
    `_near`, `headed`), else all; with `near_only`, only those beside it (none when none is)."""
    if kind is None:
        return set()
    asked = {w.casefold() for w in words(question)}
    tokens = re.sub(r"\bout of\b", "out from", text.replace("’", "'")).split()  # "fishes out of Lunenburg"
    plain = [_bare(t) for t in tokens]
    if kind == "time":
        found = {
            w for w in plain
            if w in _MONTHS or w.rstrip("s") in _WEEKDAYS or w in _TIME_WORDS or re.fullmatch(r"(?:19|20)\d\d", w)
            or CLOCK_TIME.fullmatch(w) or re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)", w)
        }  # fmt: skip
        found |= _slash_dates(plain)
        if re.search(r"\b(?:what|which) year\b", question, re.IGNORECASE):  # "what year…": 2021, not Thursday
            found = {w for w in found if re.fullmatch(r"(?:19|20)\d\d", w)}
        elif re.search(r"\bwhat time\b", question, re.IGNORECASE):  # "what time…": 8:15, "at 6", not "March 27th"
            clock = {w for i, w in enumerate(plain) if CLOCK_TIME.fullmatch(w) or re.fullmatch(r"\d{1,2}(?:am|pm)", w)
                     or w in ("noon", "midday", "midnight")
                     or (re.fullmatch(r"\d{1,2}", w) and i and plain[i - 1] in _AT_TIME)
                     # "half ten", "quarter past eight", "seven o'clock"
                     or (w in _HOURS and i and plain[i - 1] in ("half", "past", "to"))
                     or (w in _HOURS and i + 1 < len(plain) and plain[i + 1] in ("o'clock", "oclock", "thirty"))}
            found = clock  # (a day is no time of day: "saturday" for "what time does our flight leave?")
        elif re.search(r"\b(?:what|which) month\b", question, re.IGNORECASE):
            found &= _MONTHS
    elif kind == "number":  # "$1,850"; a year is no amount ("how much did we pay?" is not "2019")
        amount = re.search(r"\bhow (?:much|many)\b", question, re.IGNORECASE) is not None
        money = _MONEY.search(question) is not None  # "how much did I pay…": not "160 000 km", "a 3-month wait"
        clauses = _clause_numbers(text)
        found = {
            w.lstrip("$€£").removeprefix("r").rstrip(".,") for i, w in enumerate(plain)  # "R37,000" (rand)
            if (re.fullmatch(r"(?:[$€£]|r(?=\d))?\d[\d,.]*(?:mg|g|kg|ml|l|km|m|cm|mm|%|k|lbs?|oz|[a-z](?=$))?", w)
                and w.rstrip(".") not in clauses
                and not (amount and re.fullmatch(r"(?:19|20)\d\d", w))
                and not (money and (re.search(r"\d(?:mg|g|kg|ml|l|km|m|cm|mm|%)$", w) or _measured(plain, i)
                                    or not _priced(plain, i, tokens[i])
                                    or _dated(plain, i))))
            or (not money and (w in _COUNTED or (w.count("-") == 1 and set(w.split("-")) <= _NUMBER_WORDS)))
        }  # fmt: skip  (money is said in figures: "the petrol one" is no price)
        if re.search(r"\bhow old\b", question, re.IGNORECASE):  # an age is said as one: "is 63", "7 years old",
            found &= {n.casefold() for m in _AGE_SAID.finditer(text) for n in m.groups() if n}  # not "23. to 25. Sep"
        measure = _measure_asked(question)  # "how many acres…", "how much does Gogi weigh": 14 acres, 21 kg
        if measure:
            found = {w for w in found if _in_measure(plain, w, measure)}
        numbered = _NUMBER_OF.search(question)  # "my mom's room number": beside "room", not her age
        noun = stem(numbered.group(1) or numbered.group(2)) if numbered else ""
        if noun and noun in {stem(w) for w in plain}:  # (where the note says the room at all)
            found = _near(plain, found, {noun})
    elif kind == "person":  # (a title names someone however it is typed: "my new advisor is dra carolina vidal")
        found = {n.split()[0].casefold() for n in names_in(text) if not is_calendar(n)}
        found |= {m[1].casefold() for m in _TITLE_NAME.finditer(text) if m[1].casefold() not in STOP}
    elif kind == "thing":  # the category's members, or a name ("a Polestar")
        wh = _WH_NOUN.search(question.casefold())
        members = CATEGORIES.get(wh.group(1), frozenset()) if wh else frozenset()
        found = {w for w in plain if w in members}
        if not (wh and wh.group(1) in _DESCRIPTIVE):  # "what colour…": white, not the Corolla it is said of
            found |= {n.split()[0].casefold() for n in names_in(text)}
    else:  # place: a capitalised word shortly after at/in/from/to; "where is she from?" wants "from X"
        # (not "where did we adopt her from?": "went to the Sandton SPCA")
        did = re.search(r"\bwhere\s+d(?:o|id|oes)\b", question, re.IGNORECASE)
        trailing = re.search(r"\bfrom\W*$", question.casefold()) and not did
        # (or where they are "back in", were born, grew up or raised: "my mum is a pharmacist back in Marseille")
        locative = {"from", "back", "born", "grew", "raised"} if trailing else _LOCATIVE
        found = {
            plain[i] for i, token in enumerate(tokens)
            if token.strip(".,!?;:()\"'*")[:1].isupper() and not is_calendar(plain[i])
            and (locative & set(plain[max(0, i - 4) : i])
                 or (i and plain[i - 1] in ("called", "named") and locative & set(plain[max(0, i - 8) : i])))
        }  # fmt: skip
        street = _STREET_ASKED.search(question) and {w for m in _STREET_NAME.finditer(text) for w in _plain(m[0])}
        found = found & street or found if street else found  # "which street…": "Rua Galvao Bueno", not Liberdade
    found = {w for w in found if w and w not in asked}
    if kind in ("place", "person"):  # a sentence's "We send…" after "in Leicester." is no place
        found -= STOP
    near = _near(plain, found, {stem(w) for w in asked if w not in STOP}) if kind in ("person", "place") else found
    if kind == "thing":  # (all of a note's names stay: "didn't go the Hilux… picked up a Ford Ranger")
        return headed(text, question, found) if near_only else found
    return near if near_only and kind in ("person", "place") else near or found


_STREET_ASKED = re.compile(r"\b(?:which|what)\s+(?:street|road|avenue)\b", re.IGNORECASE)
_CAP_RUN = r"[A-ZÀ-Þ][\w'’-]*(?:\s+[A-ZÀ-Þ][\w'’-]*)*"
# a street's name as it is written in many languages: "Rua Galvao Bueno", "Mill Road", "Hauptstraße"
_STREET_NAME = re.compile(
    rf"\b(?:Rua|Rue|Calle|Carrer|Via|Viale|Avenida|Avenue|Strada|Ulica)\s+(?:(?:d[aeo]s?|de la|del)\s+)?{_CAP_RUN}"
    rf"|{_CAP_RUN}\s+(?:Street|St|Road|Rd|Avenue|Ave|Lane|Drive|Way|Close|Crescent|Terrace|Boulevard)\b"
    r"|\b[A-ZÀ-Þ][\w-]*(?:straße|strasse|straat|gade|gatan|gata|vej|veien|gasse|weg|laan)\b"
)


def _slash_dates(plain: Sequence[str]) -> set[str]:
    """Dates typed with a slash: "passed the fire inspection on 8/21", "by 12/03/2025" (a day and a month
    after a word that leads a date, or with a year: not the "3/4" of a recipe or a "9/10" score)."""
    return {w for i, w in enumerate(plain) if (m := _SLASH_DATE.fullmatch(w)) and min(int(m[1]), int(m[2])) <= 12
            and max(int(m[1]), int(m[2])) <= 31 and (m[3] or (i and plain[i - 1] in _BEFORE_DATE))}


_SLASH_DATE = re.compile(r"(\d{1,2})/(\d{1,2})(/(?:\d{2}|\d{4}))?")
_BEFORE_DATE = word_set("on by until till til from since before after due")


_AGE_NUMBER = r"(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
_AGE_NUMBER += r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
_AGE_SAID = re.compile(
    r"\b(?:is|was|['’]s|turns?|turned|turning|aged?|age of|be)\s+(?:[a-z]+\s+){0,3}?" + _AGE_NUMBER + r"\b"
    r"(?!\s*(?:kg|km|cm|%|hours?|minutes?|mins?|days?|weeks?|months?|times?|am|pm|o'clock)\b|[.:]\d)"
    r"|\b" + _AGE_NUMBER + r"\s*(?:years?|yrs?|y/?o)\b|\((\d{1,3})\)|\b" + _AGE_NUMBER + r"-year-old"
    r"|\b(\d{1,3})(?:st|nd|rd|th) birthday|(?:^|[.!?;]\s+)\W*(\d{1,3})\s*,|,\s*(\d{1,3})\s*,",
    re.IGNORECASE,
)  # "Tessa's 25", "Rex, 6, our dog", "my 40th birthday", "tom here. 34, living in leeds"


def _bare(token: str) -> str:
    return token.strip(".,!?;:()\"'*").casefold()


def _plain(text: str) -> list[str]:
    """A text's tokens as the answer's words are found: punctuation off, lower-cased ("Hilux." → hilux)."""
    return [_bare(t) for t in text.replace("’", "'").split()]


def asks_a_name(question: str) -> bool:
    """Whether a which/what question asks for one of a kind the policy has no word list for ("which
    contractor is doing our bathroom?"): not a description ("what colour…") or a vague "which one"."""
    head = _WH_HEAD.search(question)
    return head is not None and head.group(1).casefold() not in STOP | _DESCRIPTIVE | _VAGUE


def headed(text: str, question: str, found: set[str]) -> set[str]:
    """Of the candidates found, those in a sentence that says the noun asked about: "which basketball
    team do I follow?" is "The Nelson Giants have been my team", not the night's "June" and "Tank"."""
    head = _WH_HEAD.search(question)
    if not head:
        return set()
    said = [p for p in sentences(text) if stem(head.group(1)) in {stem(w) for w in words(p)} and not is_question(p)]
    # (not a question the person asked, "what's the best way from Porto airport…"; not a sentence's
    # first word: "Update on the ute: …" names no ute)
    return {w for p in said for w in words(p.casefold())[1:]} & found


def denied(text: str) -> set[str]:
    """The words a text says are not so, lower-cased: "didn't go the Hilux in the end", "not Pickles",
    "so scrap Baguio"."""
    plain = _plain(text)
    return {w for i, w in enumerate(plain) if _DENIED & set(plain[max(0, i - 3) : i])}


_DENIED = _NEGATED | word_set("not never scrap scrapped ditch ditched cancel cancelled canceled")  # "so scrap Baguio"


_MONEY = re.compile(
    r"\b(?:pay|paid|cost|costs|price|spend|spent|deposit|rent|fee|charge|owe|worth|salary|earn|tax|bill|sell|sold"
    r"|(?:get|got) for|trad(?:e|ed|ing) in)\w*"
    r"|\bhow much\b.*\b(?:make|makes|made|making)\b",  # "how much did I make per hour…" asks for pay
    re.IGNORECASE,
)
_MONEY_NOUN = re.compile(r"\b(?:deposit|rent|fee|salary|wage|fare|premium|tip|fine|tax|bill)\b", re.IGNORECASE)
_TITLE_NAME = re.compile(r"\b(?:dr|dra|mr|mrs|ms|prof|sra)\.?\s+([a-zß-ÿ][\w-]+)", re.IGNORECASE)
_UNITS = word_set(
    "km kms kilometres kilometers mile miles kg kilos pounds lbs metres meters cm mm minutes mins hours hrs days "
    "weeks months years times people guests kids percent degrees litres liters"
)


_COVERED = word_set("did ran run runs walked walk cycled rode swam hiked done doing running")  # "did 14k"
_PRICED = word_set(
    "month months week weekly monthly year yearly pcm pw quid bucks rand dollars euros pounds deposit rent fee "
    "fees cost costs paid pay pays price salary each per total bill wage wages net gross earn earns earned hourly "
    # the world's currencies said as words (not "won", "real", "dong": common English words)
    "peso pesos rupee rupees yen yuan franc francs lei leu lira naira shilling shillings baht ringgit zloty "
    "krona kronor krone kroner ruble rubles rouble roubles reais dirham dirhams riyal riyals cedi cedis "
    "php usd eur gbp inr aud cad nzd zar"
)


def _priced(plain: Sequence[str], i: int, token: str) -> bool:
    """Whether the number at `i` is said as money: a currency sign ("R37,000", "$1,850", "41k") or a
    money word within four words ("1150 a month", "my half's 575. more than I pay"), six before a
    "to" ("the rent is going up to 15,500"); not "turned 14"."""
    if re.match(r"^\W*(?:[$€£¥₹]|R(?=\d))", token):
        return True
    if re.search(r"\dk\W*$", token, re.IGNORECASE):  # "41k", but not "did 14k yesterday" (a distance)
        return not (i and plain[i - 1] in _COVERED)
    back = 6 if i and plain[i - 1] == "to" else 4  # "the rent is going up to 15,500"
    if i > 1 and plain[i - 1] == "for" and _SOLD & set(plain[max(0, i - 5) : i - 1]):
        return True  # "we sold the RAV4 for 165 000": what it went for
    return any(w.strip(".,!?;:") in _PRICED for w in [*plain[max(0, i - back) : i], *plain[i + 1 : i + 5]])


_SOLD = word_set("sold sell sells selling bought buy buys buying")


def _clause_numbers(text: str) -> set[str]:
    """The numbers of a document's clauses ("8. Utilities and council tax", "9.1 The Tenant may…"):
    at the start of a line or sentence, before a capitalised word."""
    return set(re.findall(r"(?:^|[.:|#]\s+)[\W_]*?(\d{1,2}(?:\.\d{1,2})*)\.?\s+\W*[A-Z]", text, re.MULTILINE))


# A measure the question asks in, and the words that say it: a number in another ("9 years" for "how
# much does he weigh?", "a 3-month wait" for "how many acres…") is no answer, however near it is.
_WEIGHT = word_set("kg kgs kilo kilos kilogram kilograms lb lbs pound pounds stone g grams")
_MEASURE_UNITS = {
    **{w: frozenset({w, w.rstrip("s")}) for w in word_set("acres hectares litres liters gallons feet inches")},
    **{w: frozenset({w, w.rstrip("s"), "km", "kms", "k"}) for w in word_set("kilometres kilometers km")},
    **{w: frozenset({w, w.rstrip("s")}) for w in word_set("miles metres meters")},
}
_HOW_MANY = re.compile(r"\bhow many ([a-z]+)\b", re.IGNORECASE)


def _measure_asked(question: str) -> frozenset[str]:
    """The unit words a number must be said with to answer the question (empty: any number)."""
    if re.search(r"\bweigh(?:s|ed)?\b|\bhow heavy\b", question, re.IGNORECASE):
        return _WEIGHT
    many = _HOW_MANY.search(question)
    return _MEASURE_UNITS.get(many.group(1).casefold(), frozenset()) if many else frozenset()


def _in_measure(plain: Sequence[str], number: str, units: frozenset[str]) -> bool:
    """Whether a number is said in one of the units, as "21 kg" or "21kg"."""
    for i, w in enumerate(plain):
        if number in (w, w.lstrip("$€£")) or w.startswith(number):
            tail = w[len(w.rstrip("abcdefghijklmnopqrstuvwxyz")) :]
            if tail in units or (i + 1 < len(plain) and plain[i + 1] in units):
                return True
    return False


def _measured(plain: Sequence[str], i: int) -> bool:
    """Whether the number at `i` counts something that is not money ("160 000 km", "6 weeks"), or is
    the "000" of such a number."""
    head = i
    while head and re.fullmatch(r"\d{3}", plain[head]) and re.fullmatch(r"\d[\d,.]*", plain[head - 1]):
        head -= 1  # "160 000": the "000" belongs to 160
    after = [w for w in plain[head + 1 : head + 4] if not re.fullmatch(r"\d{3}", w)][:1]
    return bool(after) and after[0] in _UNITS


def _near(plain: Sequence[str], found: set[str], asked: set[str], window: int = 6) -> set[str]:
    """The candidates within a few words of a word the question asks about ("founded in 1998 by
    Gisela Marr", not the byline's "Lena Hoffmann")."""
    spots = [i for i, w in enumerate(plain) if stem(w) in asked]
    return {w for i, w in enumerate(plain) if w in found and any(abs(i - j) <= window for j in spots)}


def is_calendar(word: str) -> bool:
    w = word.casefold().rstrip("s")
    return w in _MONTHS or w in _WEEKDAYS


def _dated(plain: Sequence[str], i: int) -> bool:
    """Whether the word at `i` stands beside a month or a weekday: a day of a date ("31 august"), no amount."""
    return any(is_calendar(x) for x in plain[max(0, i - 1) : i + 2] if x != plain[i])


def _attribute_met(note: Note, attribute: str, ask: Ask) -> bool:
    if attribute == SURNAME:  # a name of two words, of the one asked if the question names one: "Ximena Araya"
        # (a title is no first name: "Sir Noel" says no surname, "Sir Noel Mercado" does)
        full = [n.casefold().split() for n in names_in(note.text)
                if len([w for w in n.casefold().split() if w.rstrip(".") not in _MH_TITLES]) > 1]  # fmt: skip
        asked = ask.hard or tuple(t for t in ask.terms if t != SURNAME)  # ("fran": a name typed in lower case)
        return any(not asked or any(_SU_first_name(n[0], h) for h in asked) for n in full)
    if attribute in NAMING_STEMS:
        return _names_it(note, ask)
    if attribute == KIND:  # "Miso, a grey British shorthair"; "what kind of business": "a bakery"
        said = {stem(w) for w in words(note.text)}
        if any((related_stems(h) - {h}) & said for h in ask.hard):
            return True
        # said of the one asked about ("Bramble's my border terrier"), not "it's a bad tooth"
        shapes = [m.start() for m in _KIND_SHAPE.finditer(note.text)]
        heads = [m.end() for h in ask.hard for m in re.finditer(rf"\b{re.escape(h)}\w*", note.text, re.IGNORECASE)]
        # (asked of no hard thing, "which brand is the new refrigerator?": said beside a word asked, not
        # ", my father" of a note on the husband)
        if (bool(shapes) and (not ask.hard or any(0 <= start - end <= 1 or _SU_HE_IS.fullmatch(note.text[end:start])
                                                   for start in shapes for end in heads))
                and (ask.hard or ask.category not in _BRANDS or _beside_terms(note.text, ask.terms, shapes))):
            return True
        named = [m.start() for n in names_in(note.text) for m in re.finditer(re.escape(n), note.text)]
        if ask.category in _BRANDS and _beside_terms(note.text, ask.terms, named):
            return True  # "a new refrigerator for the shop, Gelopar"
        # or before its name: "he has a whippet called Pickle", "my old Corolla named Betsy"
        return any(re.search(_KIND_BEFORE.format(re.escape(h)), note.text, re.IGNORECASE) for h in ask.hard)
    if attribute in ROLE_STEMS and _OFF_WORK.search(note.text):  # "a new bloke from work" says no job of hers
        note = replace(note, text=_OFF_WORK.sub(" ", note.text))
    if covers(note.stems, attribute):
        return True
    if attribute in ROLE_STEMS and _ROLE_IN_BRACKETS.search(note.text):
        return True  # "my colleague Blessing (pharmacy technician) has twin girls"
    if attribute in ROLE_STEMS:
        shapes = [m for m in _ROLE_SHAPE.finditer(note.text) if not _mh_comparative(m[1])]
        return bool(shapes) or any(r.search(note.text) for r in (_ROLE_VERB, _ROLE_BARE, _MY_ROLE_VERB, _OWN_BUSINESS))
    # an age: a number that is no date's ("Lili's wedding is 6 September" says no age), nor a measure
    # ("laughed at me for 10 minutes"; "years" may say one: "11 years old")
    plain = words(note.text.casefold())
    return any(_an_age(plain, i) for i in range(len(plain)))


_MH_TITLES = word_set("sir dame madam ma'am mr mrs ms miss dr prof")
# the one asked, then a pronoun that goes on about them: "A word about Zaatar. He is a lurcher"
_SU_HE_IS = re.compile(r"[.,;:!]?\s+(?i:he|she|it)\s*")


def _SU_first_name(first: str, asked: str) -> bool:
    """Whether a full name's first word is the name asked, or a longer form of it: "Daniël Mertens" for
    "what's Dani's last name?" (a short name of three letters or more that begins the full one)."""
    said = stem(first)
    return covers(frozenset({said}), asked) or (len(asked) >= 3 and said.startswith(asked))


def _mh_comparative(word: str) -> bool:
    """Whether a word said as "is a …" is a comparative, no job: "Rzeszów is a longer train" (see `_JOB_WORD`)."""
    return word.casefold().endswith("er") and re.fullmatch(_JOB_WORD, word, re.IGNORECASE) is None


def _an_age(plain: Sequence[str], i: int) -> bool:
    """Whether the `i`th word may be an age: a number that is no year, no date's, no measure's."""
    w = plain[i]
    return ((w.isdigit() or w.split("-")[0] in _NUMBER_WORDS) and not (len(w) == 4 and w.isdigit())
            and not _dated(plain, i) and not (i + 1 < len(plain) and plain[i + 1] in _UNITS - {"years"}))


# a job said in brackets after a name: "Blessing (pharmacy technician)", not "Arvind (son-in-law)"
_ROLE_IN_BRACKETS = re.compile(rf"\b{NAME_WORD}\s+\((?:\w+\s+)?{_JOB_WORD}\)")
_OFF_WORK = re.compile(r"\b(?:from|after|before|off|to|for)\s+work\b", re.IGNORECASE)
_THAT_IS = re.compile(r"^\W*(?:that|this)(?:['’]s|\s+is|\s+was)\s+(?:my|our|his|her|their)\b", re.IGNORECASE)
_TITLED = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+")


_NAMES_LAST = re.compile(r",\s+([A-ZÀ-ÞĀ-Ž][\w'’-]+)(?:\s+and\s+[A-ZÀ-ÞĀ-Ž][\w'’-]+)?\W*$")  # ", Paul and Ida."


def _names_it(note: Note, ask: Ask) -> bool:
    """Whether a note gives the name asked for: "called Miso", "name is Jonas", "my mum Renate"
    (a name right after a word of the thing asked about), or "I'm Lena" for the person's own."""
    if ask.own_name:  # "what's my name?": only the person naming themselves
        return bool(introduced(note.text) or _USER_NAMED.search(note.text.replace("’", "'")))
    wanted = frozenset().union(*(related_stems(t) for t in ask.hard or ask.terms))
    thing = frozenset().union(*(related_stems(t) for t in ask.things)) or wanted
    # (of a compound asked, its last word too: "my training partner's name" is "partner is Inès")
    last = frozenset().union(*(related_stems(t) for t in ask.terms[-1:] if t not in ask.attributes)) - wanted
    wanted |= last
    if ask.owners and ask.things:  # "Meghna's mother's name": a name said of the mother, not beside Meghna
        wanted -= frozenset().union(*(related_stems(o) for o in ask.owners)) - thing  # ("Marian… Mr. Pennyworth")
    if MEDICINE in wanted and _drug_named(note.text):  # (a medicine's name is said in lower case)
        return True  # "what's that blood pressure tablet called?": "I'm on amlodipine for the blood pressure"
    # "called Miso" said of the thing asked, in its sentence or the one before ("Adopted a kitten. We
    # named her Luna"): not "Manolis is engaged!! Her name is Sofia" for the ship he works on
    parts_said = sentences(note.text)
    said = [{stem(w) for w in words(p)} for p in parts_said]
    for i, part in enumerate(parts_said):
        if _NAMING_SHAPE.search(part) and (not thing or thing & said[i] or (i and thing & said[i - 1])):
            return True
        # "Ørjan put Tante Olga in the sea. That is our boat": the name of the sentence before
        named = [w.strip(".,!?;:") for w in parts_said[i - 1].split()[1:]] if i else []
        if i and _THAT_IS.match(part) and thing & said[i] and any(
            w[:1].isupper() and w.casefold() not in STOP | WHO and not is_calendar(w) for w in named
        ):
            return True
    for part in sentences(note.text):  # "Surgeon's office rang, Mr Boyd is off…": a titled name beside it
        if _TITLED.search(part) and any(stem(w) in wanted for w in words(part)):
            return True
    tokens = note.text.replace("’", "'").split()
    for i, word in enumerate(tokens):
        if stem(word.strip(",")) not in wanted:
            continue
        # a name before the thing: "given Maxidex eye drops" (not a sentence's first word, nor a name)
        before = tokens[i - 1].strip(".,!?;:()\"'*") if i > 1 and word[:1].islower() else ""
        if (before[:1].isupper() and before.casefold() not in STOP and not is_calendar(before)
                and not (before.endswith("'s") and stem(word.strip(",")) in last)  # ("Refilwe's baby is due…")
                and not (before.endswith("'s") and stem(before.removesuffix("'s")) in ask.owners)):
            return True
        if i > 2 and tokens[i - 1].casefold() == "the" and _named_the(tokens[i - 3], tokens[i - 2]):
            return True  # "then there's Ġorġ the tortoise"
        after = [t for t in tokens[i + 1 : i + 5]  # "is a Dr. Brandt", "a dog 😂 Suya", "the boat though, Stella"
                 if t.casefold().strip(",") not in _BEFORE_NAME | _FILLERS and not _EMOJI.fullmatch(t)][:1]
        name = after[0].strip(".,!?;:()\"'") if after else ""
        if name[:1].isupper() and not is_calendar(name) and stem(name) not in {*wanted, *ask.terms}:  # not "Fish Creek"
            return True
    for part in parts_said:  # the names that end the sentence of the thing: "had twins in October, Paul and Ida."
        at = [m.end() for m in re.finditer(r"[\w'’-]+", part) if stem(m[0]) in wanted]
        end = _NAMES_LAST.search(part)
        if at and end and at[0] < end.start() and not is_calendar(end[1]) and end[1].casefold() not in STOP:
            return True
    # the name before the thing: "Biscuit's our beagle", "Miso is my cat", "Rex, our dog", "To Steki, the kafeneio"
    if any(stem(m[2]) in wanted and not is_calendar(m[1]) and m[1].casefold() not in STOP
           for m in _NAME_THE.finditer(note.text)):  # fmt: skip
        return True
    return any(stem(word) in wanted and not is_calendar(name) and name.casefold() not in STOP
               for name, word in _name_first(note.text)) or _named_in_lower(note.text, wanted)  # fmt: skip


# in a note typed without capitals, the name said right after the thing: "the landlord is don héctor",
# "hired a cook for seoul rodeo: marisol", "saw a physio yesterday, rory at duke street"
_LOWER_NAME_SLOT = re.compile(
    r"\b([a-z]+)(?:\s+(?:yesterday|today|tonight|for(?:\s+[a-z]+){1,3}(?=:)))?(?:\s*[:,]|\s+(?:is|was))\s+"
    r"(?:(?:dr|mr|mrs|ms|miss|don|doña|dona)\.?\s+)?([a-zß-ÿ][\w'’-]*)(?![\w'’-]|\s+[A-ZÀ-ÞĀ-Ž])"
)  # (not a word before a capitalised name: "a younger sister, tia Kazuko" names her as cased notes do)


def _named_in_lower(text: str, wanted: frozenset[str]) -> bool:
    """Whether a note typed in lower case (no capitals, or none to begin it: a known name may have been
    capitalised since) gives a name right after a word of the thing asked, where a cased note would have
    capitalised it (`_names_it`): a word that may be a name, not "the landlord is nice" (see
    `truecase.plausible_name`)."""
    return (uncased(text) or re.match(r"\W*[a-z]", text) is not None) and any(
        stem(m[1]) in wanted and plausible_name(m[2].removesuffix("'s").removesuffix("’s"))
        for m in _LOWER_NAME_SLOT.finditer(text)
    )


_NAME_THE = re.compile(r"\b([A-ZÀ-ÞĀ-Ž][\w'’-]+),\s+the\s+([a-z]+)\b")  # a name, then what it is


def _named_the(before: str, name: str) -> bool:
    """Whether `name` (said after `before`, inside a sentence) is a name said before "the" and what it is."""
    name = name.strip(".,!?;:()\"'*")
    return (name[:1].isupper() and not before.endswith((".", "!", "?")) and name.casefold() not in STOP
            and not is_calendar(name))


def _drug_named(text: str) -> bool:
    """Whether a text names a medicine (by its name's ending: "amlodipine"), not just says one ("antibiotics")."""
    said = (m[0].casefold().rstrip("s") for m in _DRUG.finditer(text))
    return any(w not in ("antibiotic", "antihistamine", "inhaler") for w in said)


def _name_first(text: str) -> list[tuple[str, str]]:
    """The name said before what it is: "Biscuit's our beagle", "Bramble's my border terrier" (the
    kind, not "border"), "Ziggy's my greyhound btw" (not "btw")."""
    out = []
    for name, first, second in _NAME_FIRST.findall(text.replace("’", "'")):
        kind = second in _KINDS or first in DESCRIBERS
        out.append((name, second if second and kind else first))
    return out


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


def people_in(text: str) -> list[str]:
    """The names in a text that may be people: not a place said after at/in/to ("deputy head at Leith
    Walk Primary", "went out to Canada")."""
    places = {m.group(1) for m in re.finditer(r"\b(?:at|in|to|from|near|into)\s+(?:the\s+)?([A-ZÀ-ÞĀ-Ž][\w ]*)", text)}
    # (nor a shout: "BIG news for ruaridh", "AND gloria called" name Ruaridh and Gloria, not BIG or AND)
    return [n for n in names_in(text) if not any(p.startswith(n) for p in places) and not _shout(n)]


def _shout(name: str) -> bool:
    first = name.split()[0]
    return len(first) > 2 and first.isupper()


def reading(note: Note, before: str, called: Mapping[str, Sequence[str]], pick: int | None = None) -> str:
    """A note as the person meant it: a leading "His"/"Her" is the first one named in the turn it
    leans on ("My brother Gareth…" then "His wife Nia…"), and a name is also who they are to the
    person ("Hannah's mum" is "my wife's mum" when "my wife Hannah" was said). `called`: each known
    name → the words the person calls them by (see `_called`); `pick`: only the pick-th of those
    words (a chain is read whole: "my son's wife Priya")."""
    text = note.text
    lead = re.match(r"^\W*(?:his|her|their)\s", text, re.IGNORECASE)
    kin = None if lead else _KIN_OF_PRONOUN.search(text)  # "he's engaged!! his fiancee…", not "Fitz and his…"
    if kin and _SUBJECT_PRONOUN.search(text[: kin.start()]) and not people_in(text[: kin.start()]):
        lead = kin
    subject = None if lead else re.match(r"^\W*(?:she|he)\b", text, re.IGNORECASE)  # "She turns 70 on 2 January"
    said = (lead or subject)
    first = _tl_referent(before, said.group().strip(" \t\n'\"").casefold()) if said and before else []
    if lead and first:
        text = f"{text[: lead.start()]}{first[0]}'s {text[lead.end():]}"
    elif subject and first:
        text = f"{first[0]}{text[subject.end():]}"
    named = text
    for name, said in called.items():  # "my wife's brother / my brother-in-law": every word for them
        said = said if pick is None else said[min(pick, len(said) - 1) :][:1]
        as_mine = " / ".join(f"my {word}" for word in said)
        text = re.sub(rf"\b{re.escape(name)}\b(?!\s*,)", as_mine, text, flags=re.IGNORECASE)
    text += "".join(f" [{name}]" for name in _the_one(note.text, called))
    return text if text == named else f"{text} ({named})"  # both: "my daughter's best friend" and Maeve's


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


def _linked(x: _Scored, y: _Scored) -> bool:
    """Two notes that may be read together: sentences of one memory, a turn and the one it leans on,
    notes about the same one, or document chunks that continue each other (chunks overlap by a few
    words)."""
    return _told_together(x.note, y.note) or bool(x.about & y.about) or bool(x.note.phrases & y.note.phrases)


def _told_together(a: Note, b: Note) -> bool:
    """Sentences of one memory, a turn and the one it leans on, or chunks that continue each other."""
    leans = bool(a.after and a.after == b.ref) or bool(b.after and b.after == a.ref)
    return a.ref == b.ref or leans or _continues(a, b) or _continues(b, a)


def _continues(a: Note, b: Note, least: int = 3) -> bool:
    """Whether b starts with the words a ends with (an overlap between neighbouring chunks)."""
    if a.source != "chunk" or b.source != "chunk":
        return False
    tail, head = a.text.split(), b.text.split()
    return any(tail[-k:] == head[:k] for k in range(least, min(len(tail), len(head)) + 1))


_I_ASKED = re.compile(r"\b(?:do|did|am|have|had|was|will|can|could|should|would)\s+i\b", re.IGNORECASE)
_SUBJECT = word_set("i i'm i've i'd i'll we we're")
_WE = word_set("we we're we've we'd we'll")  # (said together: not "our oldest")
_WH = word_set("what who where when why how which whose")


@dataclass(frozen=True)
class _Scored:
    note: Note
    hard: frozenset[str]
    weight: float  # the covered key words, each weighted by how rare it is among the candidates
    mine: bool
    owned: bool
    attributes: frozenset[str]
    terms: frozenset[str]
    typed: int  # see `type_level`
    person: bool
    subject: bool

    complete: bool
    read: str = ""  # the note as meant (see `reading`)
    about: frozenset[str] = frozenset()  # who and what it is about (see `entities`), read once for every join
    i_asked: bool = False  # the question's subject is the person ("do I live", "did I work")
    earlier: bool = False  # asked what came before, and the note says so
    now: bool = False  # asked what is so now: the person's own complete notes, newest first
    chained: bool = False  # says the question's chain as one ("my husband's brother Hamish" for "my husband's brother")
    does: bool = False  # the person is the subject of the verb asked: "I live in Anstruther", not "She lives in Perth"

    def key(self) -> tuple[float | bool, ...]:
        # The newest wins among notes that say all the question asks (a correction); among partial
        # ones recall relevance decides first. Of notes that say all, the answer in the very form asked
        # comes first ("She turns 70 on 2 January", not "…on 19 December… and Mum's big birthday").
        # "Where do I live?": the person's own words before a document's, however rare its words.
        when = _when(self.note)
        # (a document is as new as its upload, not its facts: "what's my rent now?" is not the venue's fee)
        current = (self.now and self.complete and (self.subject or not self.i_asked) and self.typed > 0
                   and self.note.source != "chunk")  # the newest that gives an answer ("which company": a name)
        latest = when if current else 0.0
        return (len(self.hard), self.does, self.mine, self.owned, self.earlier, len(self.attributes),
                self.person and self.i_asked, self.typed == 2 and self.complete, self.chained, latest,
                round(self.weight, 3), self.typed,
                self.person, self.subject, self.complete, when if self.complete else 0.0, self.note.relevance,
                when)  # fmt: skip


def _idf(ask: Ask, notes: Sequence[Note]) -> dict[str, float]:
    """How telling each key word is among these notes: "fee" (in one) over "club" (in ten)."""
    stems = [n.stems for n in notes]
    return {t: math.log(1 + len(stems) / (1 + sum(covers(s, t) for s in stems))) for t in ask.terms}


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
        # whatever order the notes were recalled in
        before = " ".join(said.get(leans.get(ref, ""), []))
        if before and not _mh_people(before) and depth > 1:
            before = f"{leaned_on(leans[ref], depth - 1)} {before}".strip()
        return before

    out = []
    for n in notes:
        earlier = said[n.ref][: said[n.ref].index(n.text)]
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


def _mh_nicknames(notes: Sequence[Note]) -> dict[str, str]:
    """Each second name the notes say someone is called by → their first name, lower-cased key
    ("pippa" → "Philippa"), when the second name is said of one person only."""
    named: dict[str, set[str]] = {}
    for n in notes:
        for name, nick in _MH_NICKNAME.findall(n.text):
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
    stems |= _compounds_said(ask.terms, stems)
    stems |= {stem("birthday")} if _AGE_ON_A_DAY.search(read or note.text) else frozenset()
    stems |= _acronyms_spelled(sit.text, read or note.text) | _mh_acronym_of_asked(sit.text, read or note.text)
    stems |= _UP_ROLE_STEMS if _UP_APPOINTED.search(read or note.text) else frozenset()
    return _Scored(
        note,
        frozenset(t for t in ask.hard if covers(stems, t) and not _only_my_kin(read or note.text, t, sit)),
        sum(idf.get(t, 1.0) * (1.0 if _said_as_asked(own, t) else ANOTHER_WAY) for t in ask.terms if covers(stems, t)),
        # "my partner": not "Ana's boyfriend"; "what ward am I on?": not "…check on her. she's at Ward 6A"
        not _theirs(note, sit) and not _someone_of(read or note.text, sit) and not _told_of_another(note, ask, sit),
        _owned(note, sit),
        frozenset(a for a in ask.attributes
                  if _attribute_met(note, a, ask) or (a in NAMING_STEMS and _named_as_kin(note, read, ask, sit.text))),
        frozenset(t for t in ask.terms if covers(stems, t)),
        type_level(note, ask.answer_type, sit.text),
        sit.about_me and note.source != "chunk",  # the person's own words before a document's
        sit.about_me and not sit.heads and speaks,  # "where do I work?": "I …" before "My partner …"
        all(covers(stems, t) for t in ask.terms),
        read or note.text,
        entities(read or note.text, known),
        bool(_I_ASKED.search(sit.text)),
        ask.earlier and bool(_SAID_EARLIER.search(note.text)) and _about(stems, ask),
        ask.now,
        chained=sit.chain >= 2 and _chained(read or note.text, sit.heads),
        does=(bool(ask.verb) and (_does(note.text, ask.verb) or _tl_you_do(note, ask.verb)))
        or (bool(ask.named_does[0]) and not ask.now  # (what is so now: the newest, "Bamse is 22,8 kg now")
            and _does(read or note.text, ask.named_does[1], ask.named_does[0]))
        # "what's my job?": "I teach chemistry at…", not the newer "My husband Tom is a paramedic"
        or (not ask.hard and _MY_JOB_ASKED.search(sit.text) is not None and _my_role(note.text)),
    )


# Someone given a role: "I have been elected PRESIDENT of the residents' association", "Mereana's been made
# acting principal", "Lionel has asked me to be alto section leader": says the role, post or position asked.
_UP_APPOINTED = re.compile(
    r"\b(?:elected|appointed|been made|promoted to|took over as|taken over as|voted in as"
    r"|asked (?:me|him|her|us) to be)\s+(?:the\s+|an?\s+)?(?:new\s+)?[a-z]{3,}",
    re.IGNORECASE,
)
_UP_ROLE_STEMS = frozenset(stem(w) for w in ("role", "post", "position"))


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


# A birthday said as the age to come on a day: "I shall be 71 myself on the 3rd of February", "He is 74
# now and will be 75 on the 19th" (not "be 10 minutes on the bus", "be back on the 3rd")
_AGE_ON_A_DAY = re.compile(
    r"\bbe\s+" + _AGE_NUMBER + r"(?:-[a-z]+)?\b(?!\s*(?:kg|km|cm|%|hours?|minutes?|mins?|days?|weeks?|months?|times?"
    r"|am|pm|o'clock)\b|[.:]\d)\s+(?:[a-z]+\s+)?on\s+(?:the\s+)?(?:\d|" + _DAY_MONTH + r")",
    re.IGNORECASE,
)


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


_THIRD_PERSON = re.compile(r"^\W*(?:and\s+|but\s+|so\s+)?(?:she|he|they)(?:['’]s|['’]re)?\b", re.IGNORECASE)


def _told_of_another(note: Note, ask: Ask, sit: Situation) -> bool:
    """For a question about the person ("what ward am I on?"), a note that says what is asked only in
    parts whose subject is someone else ("…so i can check on her. she's at Ward 6A")."""
    asked = ask.hard or ((ask.verb,) if ask.verb else ())  # "where do I live?": not "…, she lives in york"
    if not sit.about_me or sit.heads or not asked or not _I_ASKED.search(sit.text):
        return False
    # (a job said is work: "where do I work?" is not answered by "…, he's a ship engineer")
    clauses = [c for p in parts(note.text) for c in re.split(r",\s+", p)]
    said = [c for c in clauses if any(covers(Note(note.ref, c).stems, t) for t in asked)]
    return bool(said) and all(_THIRD_PERSON.match(p) or _done_by_another(p, asked) for p in said)


def _to_me(text: str) -> bool:
    """Whether what someone else does is done to or for the person ("she put me on amlodipine")."""
    after = re.split(r"\b(?:she|he|they)\b", text, maxsplit=1, flags=re.IGNORECASE)
    return len(after) > 1 and re.search(r"\b(?:me|my|us|our|i)\b", after[1], re.IGNORECASE) is not None


def _done_by_another(part: str, asked: Sequence[str]) -> bool:
    """Whether the word asked is said right after a she/he/they ("my sister is called Rachel, she lives in
    York": the sister lives there), with no I or we between."""
    tokens = re.findall(r"[\w'’]+", part)
    at = next((i for i, w in enumerate(tokens) if any(covers(_said(w), t) for t in asked)), None)
    before = [w.casefold() for w in tokens[max(0, (at or 0) - 3) : at or 0]]
    return bool(before) and bool({"she", "he", "they"} & set(before)) and not {"i", "we", "i'm", "we're"} & set(before)


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
    for m in re.finditer(rf"\b(?:{doer})(?:['’](?:ve|m|d|re|ll))?\s+(\w+)(?:\s+(\w+))?", text, re.IGNORECASE):
        # "I live", "we just moved"
        if {stem(w.casefold()) for w in m.groups() if w} & wanted and not _tl_thing_moved(m):
            return True
    return False


_TL_MOVE = frozenset(stem(w) for w in ("move", "moved", "moving"))


def _tl_thing_moved(m: re.Match[str]) -> bool:
    """ "we've moved it to Monday afternoons": a thing moved to another day, not the person moving home."""
    return stem(m[1].casefold()) in _TL_MOVE and (m[2] or "").casefold() in ("it", "them", "that", "this")


# a document's "you" is the person: "You are to resume duty on Monday, 4 January 2027"
_TL_YOU = re.compile(
    r"\byou(?:['’]ll|\s+(?:are|will|must|should|shall|have|need)(?:\s+(?:to|be|be\s+required\s+to))?)?\s+(\w+)",
    re.IGNORECASE,
)


def _tl_to_you(note: Note) -> bool:
    """Whether a document speaks to the person ("You are to resume duty…"): it is about them."""
    return note.source == "chunk" and re.search(r"\byou\b", note.text, re.IGNORECASE) is not None


def _tl_you_do(note: Note, verb: str) -> bool:
    """Whether a document tells the person they do it ("You are to resume duty…" for "when do I resume?")."""
    wanted = related_stems(verb)
    return note.source == "chunk" and any(stem(m[1].casefold()) in wanted for m in _TL_YOU.finditer(note.text))


def _about(stems: frozenset[str], ask: Ask) -> bool:
    """Whether a note says any word the question asks about."""
    return any(covers(stems, t) for t in (*ask.hard, *ask.terms, *ask.attributes))


_PEOPLE = word_set(
    "boyfriend girlfriend husband wife partner fiance fiancee son daughter kid child friend brother sister mum mom "
    "mother dad father colleague boss neighbour neighbor roommate flatmate"
)
_PEOPLE_STEMS = frozenset(stem(w) for w in _PEOPLE)
_KINDS = frozenset().union(*CATEGORIES.values(), CATEGORIES, _PEOPLE)  # what a name may be said to be
# "AND he's engaged!! his fiancee Jade…" after "Callum's flights got moved": Callum's fiancee, when
# the pronoun before it names nobody.
_SUBJECT_PRONOUN = re.compile(r"\b(?:he|she|they)\b", re.IGNORECASE)
_KIN_OF_PRONOUN = re.compile(r"\b(?:his|her|their)\s(?=(?:" + "|".join(sorted(_PEOPLE)) + r")\b)", re.IGNORECASE)


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


def _only_theirs(note: Note, sit: Situation) -> bool:
    """For "my wife": the note says the word only as someone else's ("my sister … with her husband Dave"
    is the sister's husband, however the person's own sister is said). Only for people: a thing changes
    hands ("Sold the Micra to Sheena's grandson Kyle for his first car" is of my old car)."""
    if sit.heads[0] not in _PEOPLE_STEMS:
        return False
    wanted = related_stems(sit.heads[0])
    owners = [m.group(1).casefold() for m in _WHOSE.finditer(note.text) if stem(m.group(2)) in wanted]
    return bool(owners) and not {"my", "our"} & set(owners)


_WHOSE = re.compile(rf"\b(my|our|his|her|their|[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+['’]s)\s+(?:{_DESCRIBER})?(\w+)", re.IGNORECASE)
_LINKS = "with|w|at|in|on|for|to|from|near|by|off|of|and|or|into|like"


def _given_to_other(note: Note, sit: Situation) -> bool:
    """For "my dog": the note gives the thing to someone named ("Ana adopted a dog", "Ana's dog",
    "her dog"), so it does not answer for the person."""
    wanted = related_stems(sit.heads[0])
    text = note.text.replace("’", "'")
    # (a verb between: "Ana adopted a dog", not "Heaton Park Road with a physio")
    verb = r"(?!(?:" + _LINKS + r")\b)\w+"
    pattern = rf"\b(?:({NAME_WORD})(?:'s|\s+{verb}\s+(?:a|an|the|his|her|their))|his|her|their)\s+(\w+)(?:\s+(\w+))?"
    for m in re.finditer(pattern, text):
        name = m.group(1)
        held = {stem(m.group(2)), stem(m.group(3) or "")}  # "Ana's dog", "Ana's little dog"
        if held & wanted and (name is None or (name not in sit.names and not is_calendar(name))):
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
    scored = _DOC_about(scored, ask)
    return _was_before(scored, ask) if ask.earlier else scored


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


def rank(sit: Situation, notes: Sequence[Note]) -> list[Note]:
    """Notes from the most to the least likely to answer (the order `choose` weighs them in)."""
    sit = cased_question(sit, notes)
    notes = cased(notes, sit.text)
    scored = _scored(sit, read_ask(sit), notes, aliases(notes))
    return [s.note for s in sorted(scored, key=_Scored.key, reverse=True)]


def choose(sit: Situation, candidates: Sequence[Note]) -> Evidence:
    """Pick the notes that answer the question read as `sit`, or decide that none does."""
    who = WHO_IS_NAMED.match(sit.text)
    described = [n for n in candidates if who and _describes(who[1].strip(), n.text)]
    if described and (evidence := _chosen(sit, described)).verdict == "answer":
        return evidence  # "who is Rui?": "the shop manager is a guy called Rui", not "dinner with Rui"
    evidence = _chosen(sit, candidates)
    wed = _WHO_WED.match(sit.text)
    if wed:  # "who is Inês married to?" is her husband or her wife, found as kin ("dating": a partner)
        kins = ("husband", "wife") if wed[2] else ("boyfriend", "girlfriend", "partner")
        asked = (_through_kin(read_message(f"who is {wed[1]}'s {kin}?"), candidates) for kin in kins)
        return next((e for e in asked if e is not None), evidence)
    if evidence.verdict == "answer":
        return evidence
    return _through_kin(sit, candidates) or evidence


_WHO_WED = re.compile(rf"^\W*(?i:who)(?:['’]s|\s+(?i:is|was))\s+({NAME_WORD})\s+"
                      rf"(?:((?i:married|engaged)\s+to)|(?i:dating|seeing|going out with))\W*$")


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
        return Evidence("unknown", (), "low", "nothing relevant is remembered", ask.hard)
    if not ask.terms and not ask.attributes:
        best = max(scored, key=lambda s: s.note.relevance)
        if best.note.relevance >= BARE_RELEVANCE:
            return Evidence("answer", (best.note,), "medium", f"no key word; strong match {best.note.relevance:.2f}")
        return Evidence("unknown", (), "low", "no key word and no strong match")
    ranked = sorted(scored, key=_Scored.key, reverse=True)
    best = ranked[0]
    if not best.hard and not best.terms and not best.attributes:
        return Evidence("unknown", (), "low", "no remembered note mentions " + ", ".join(ask.terms), ask.hard)
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
    return _moved_from(_updated(_corrected(evidence, ranked, ask, sit), ranked, ask, sit), ranked, ask, sit)


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


def _updated(evidence: Evidence, ranked: Sequence[_Scored], ask: Ask, sit: Situation) -> Evidence:
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
    news = [s for s in ranked
            if s.note not in evidence.notes and s.note.source != "chunk" and (s.mine or not best.mine)
            and _later(s.note, best.note) and tells_change(s.note.text)
            and ((s.typed > 0 and best.attributes <= s.attributes and best.hard <= s.hard
                  and _same_thing(s, best, idf, names)
                  and (asked_now or bool(_no_longer(s.note.text) & best.note.said)))
                 # (or it puts a new number beside the one the chosen note gave: "planned for 80 but… 120 came")
                 or (s.typed > 0 and best.attributes <= s.attributes and _UP_value_again(s.note, best.note, sit.text))
                 # (or, asked what is so now, it names again what the chosen note named: "NEW TRUCK. Scania…
                 # Bunica goes to Paul" after "my truck is a Volvo… I call her Bunica")
                 or (asked_now and s.typed > 0 and best.attributes <= s.attributes and best.hard <= s.hard
                     and _UP_named_again(s.note, best.note, sit))
                 or ((_denies_of_named(s, best, sit) or _denies_said(s, best))
                     and (s.typed > 0 or ask.answer_type in (None, "thing"))))]  # fmt: skip
    if not news:
        return evidence
    newest = max(news, key=lambda s: (len(s.terms & best.terms), _when(s.note))).note
    return replace(evidence, notes=(*sorted(evidence.notes, key=_said_order), newest))


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
    r"|\bnew\s+(?:[\w-]+\s+){1,2}(?:are|were)\b"  # "new dates are nov 5-19"
    r"|\b(?:the\s+)?(?:previous|old)\s+(?:one|record|best)\s+(?:was|being)\b"  # "(the previous one was 52:30)"
    r"|\bnot\s+(?:the\s+|a\s+)?[\w$€£.,:-]+\s+(?:but|at all)\b",  # "not 20 December but 10 January"
    re.IGNORECASE,
)


# "the guy who bought my old hilux", "the friend whose wedding we went to": someone named by what they did
_DESCRIBED = re.compile(
    r"\b(?:the|that|this)\s+(?:[a-z-]+\s+)?(?P<head>[a-z-]+)\s+(?P<rel>who|that|whose)\s+(?P<clause>[^,?—–]+)",
    re.IGNORECASE,
)
_SOMEONE = WHO | word_set("guy lad man woman lady girl boy bloke fella chap person one someone nurse mechanic owner")
_AFTER_CLAUSE = word_set("in at from to before now these days for a living with on")  # "…live in?", "…do for a living?"
_ONLY_THE_NAME = re.compile(r"\W*what(?:'s|s| is)?\s+(?:the\s+)?(?:full\s+)?name\s+of\s+", re.IGNORECASE)
_A_THING_BEFORE = word_set("the a an called named my our his her their")


def by_what_they_did(question: str) -> tuple[int, int, str] | None:
    """Where a question names someone by a relative clause, and that clause asked on its own: "what
    is the guy who bought my old hilux studying?" → (the span of "the guy … hilux", "who bought my old
    hilux?"). After "does/did" the question's own verb closes the clause ("where does the uncle who
    started me off with bees live?"); after "is/was" a last "-ing" word does ("… studying?")."""
    m = _DESCRIBED.search(question)
    if not m or m["head"].casefold() not in _SOMEONE:
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
    if found is None or _ONLY_THE_NAME.fullmatch(sit.text[: found[0]]):
        return None  # ("what's the name of the vet who saw Ursu?": the one named is the answer)
    start, end, clause = found
    first = choose(read_message(clause), candidates)
    terms = read_ask(read_message(clause)).terms
    lead = next((n for n in first.notes if all(covers(n.stems, t) for t in terms)), None)
    if first.verdict != "answer" or lead is None:
        return None
    asked = {n.casefold() for n in names_in(sit.text)}
    named = [n for n in dict.fromkeys(names_in(lead.text))
             if n.casefold() not in asked and n.casefold() not in clause.casefold() and not is_calendar(n)]  # fmt: skip
    seen = {n: _said_as_someone(lead.text, n) for n in named}
    people = sorted((n for n in named if seen[n] is not False),
                    key=lambda n: (seen[n] is None, _words_apart(lead.text, n, terms)))  # fmt: skip
    # what is asked of them is first sought beyond the notes that say the clause ("i keep 14 hives at dad's
    # place in Jucu… started with 3 hives my uncle Nelu gave me" tells no place of Nelu's)
    others = [n for n in candidates if not all(covers(n.stems, t) for t in terms)]
    for name in people[:2]:
        asked_of = read_message(_asked_of(sit.text, start, end, name))
        then = choose(asked_of, others)
        then = then if then.verdict == "answer" else choose(asked_of, candidates)
        if then.verdict == "answer":
            notes = tuple(dict.fromkeys((lead, *then.notes)))[: MAX_NOTES + 1]
            return replace(then, notes=notes, reason=f"{name} {clause.removeprefix('who ').rstrip('?')}; {then.reason}")
    return None


# "Ørjan's mum", "my boss's wife": someone named as another's kin, found in two steps (`_through_kin`)
_KIN_ASKED = re.compile(
    rf"\b({NAME_WORD}|(?i:my|our)\s+(?:{_DESCRIBER})?[a-z-]+)(?:['’]s|(?<=s)['’])\s+(?:{_DESCRIBER})?([a-z-]+)\b"
)
_TITLE = r"(?:(?i:dr|mr|mrs|ms|prof|sr|sra|dra)\.?\s+|(?i:tia|tio|tía|tío|aunt|auntie|uncle)\s+)?"
_PARENT_WORDS = word_set("mum mom mother dad father parent")
_SPOUSE_WORDS = word_set("wife husband partner spouse fiance fiancee fiancé fiancée")
_KIN_STEMS = frozenset(stem(w) for w in (*_PEOPLE, *WHO))  # the words someone may be named by as another's
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
    if kin in _SPOUSE_WORDS:
        forms.append(rf"\b{n}\b[^.!?]{{0,60}}?\b(?i:married|engaged)[!.]*\s+to\s+(?:[a-z]+\s+){{0,4}}?"
                     rf"(?:called\s+|named\s+)?({NAME_WORD})")
    # "Her younger sister Usha is in Chennai, with her husband Sridhar": the one said last before "her"
    forms.append(rf"\b{n}\b((?:(?![.!?]).){{0,80}}?)\b(?i:her|his|their)\s+(?i:{_DESCRIBER})?{k},?\s+{_TITLE}({NAME_WORD})")
    found = [m.groups()[-1] for form in forms for m in re.finditer(form, text)
             if len(m.groups()) == 1 or not people_in(m[1])]
    return [f for f in found if f.casefold() != name.casefold() and f.casefold() not in STOP and not is_calendar(f)]


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
        if mine is None:
            return None
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
    said = words(text)
    first = words(name)[0]
    verdict: bool | None = None
    for i in (i for i, w in enumerate(said) if w == first):
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
    rest = question[end:].lstrip(" ,—–-")
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
            and all(_later(s.note, n) for n in evidence.notes)]  # fmt: skip
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
        useful = [(g, s) for g, s in gains if any(g[:4]) or (any(g) and s.note.source != "chunk")]
        if _says_all(chosen, ask):  # then only a correction, the turn a chosen one's pronoun needs, or
            # the person's own note of all that is asked in the very form asked ("10 March" for "in March")
            useful = [(g, s) for g, s in useful
                      if g[1] or any(_leans_on(c.note, s.note) for c in chosen)
                      or (g[2] and s.typed == 2 and s.mine and s.hard == set(ask.hard))]  # fmt: skip
        if not useful:
            return chosen
        # the newest of notes that add as much; leaning on a chosen one counts only between equals, and
        # before the time when neither corrects ("It's white" goes on about the new car; a newer
        # "…a brown mixed-breed girl" only shares a word with it)
        # (a document's sentences are as new as each other: the best ranked of them)
        # (of corrections, the one that says more of what is asked: "new guitarist is Shae", not the
        # newer "band's moved rehearsals now", for "who plays guitar in the band now?")
        newest = [(g[:-1], len(s.terms | s.hard) if g[1] else 0, g[-1] and not g[1],
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


def _mh_names_the_one(s: _Scored, gain: tuple[int, int, int, int, int, bool], best: _Scored, ask: Ask) -> bool:
    """Whether a note joins for the name asked that the chosen ones never give, through a word asked
    they share that it names: "what is the name of the physiotherapist treating my calf?" is "I strained
    my left calf… the physiotherapist prescribes two weeks of rest" and "The physiotherapist is Mathilde
    Roux" (not "chukwudi is his brother" for "my older brother's name")."""
    if not gain[3] or not set(ask.attributes) & NAMING_STEMS:
        return False
    return any(re.search(rf"\b(?i:the|my|our)\s+(?i:{re.escape(word)})\w*(?:\s+(?i:is|was)|,)?\s+{_TITLE}{NAME_WORD}",
                         s.note.text) for word in s.hard & best.hard)  # fmt: skip


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


def _unowned(note: Note, ask: Ask) -> bool:
    """Whether a sentence of the note says all that is asked and gives it to no one: "Rent on the
    workshop is going up to $3,450 a month" is the person's rent, "Nia got a job at…" is Nia's."""
    wanted = [t for t in ask.terms if t != ask.verb]
    for part in sentences(note.text):
        said = frozenset(stem(w) for w in words(part))
        named = [n for n in names_in(part) if not is_calendar(n) and stem(n.split()[0]) not in wanted]  # not "Rent…"
        if wanted and all(covers(said, t) for t in wanted) and not named and not _THIRD.search(part):
            return True
    return False


_THIRD = re.compile(r"\b(?:he|she|they|his|her|their|him|them)\b", re.IGNORECASE)


def _of_no_one(note: Note, ask: Ask) -> bool:
    """Whether the note says something asked and names no one at all, so it can be no one else's: "money
    goes from 4800 lei net to 5300 lei net" for "how much do I make now?" (not "Nia's pay went up")."""
    wanted = [t for t in ask.terms if t != ask.verb]
    said = frozenset(stem(w) for w in words(note.text))
    named = [n for n in names_in(note.text) if not is_calendar(n)]
    return any(covers(said, t) for t in wanted) and not named and not _THIRD.search(note.text)


def _of_it(c: _Scored, chosen: Sequence[_Scored], asked: set[str], money: bool = False) -> bool:
    """Whether a chosen note is about what is asked: it says a word asked (or a hard term), or is
    linked to a chosen note that does (a sentence of the same message, a turn it leans on, someone both
    name: "He's nineteen" after "Cian rang…" for "Aoife's eldest", Cian). An amount of money is a
    thing's, not a person's: it must be told with the thing ("Tickets are £8… Sheena and Alec" is no price
    of the Jazz "sold to Sheena's grandson")."""
    def linked(o: _Scored) -> bool:
        return _told_together(c.note, o.note) if money else _linked(c, o)

    bought = [m for m in _BOUGHT_A.finditer(c.note.text) if stem(m[1]) not in asked and m[1] not in STOP]
    if money and bought and not c.terms & asked:  # "I gave her a riding helmet, pink, 240 lei": the helmet's
        return False  # price, though it goes on from "…a man with a pony who came for an hour"
    if c.terms & asked or c.hard:
        return True
    return any(linked(o) for o in chosen if o is not c and o.terms & asked)


_BOUGHT_A = re.compile(
    r"\b(?:bought|buy|got|get|gave|give|paid for|ordered|booked)\s+(?:\w+\s+)?(?:a|an|some|the)\s+(?:\w+\s+)?(\w+)",
    re.IGNORECASE,
)  # the thing a deed names as its own: "gave her a riding helmet" → helmet


def _says_all(chosen: Sequence[_Scored], ask: Ask) -> bool:
    """Whether the chosen notes already say everything asked: more would only be read into the answer
    ("Priya is a pharmacist" and "Priya's mother… was a dentist" became "She's a dentist")."""
    said = frozenset().union(*(c.terms for c in chosen)) | frozenset().union(*(c.hard for c in chosen))
    met = frozenset().union(*(c.attributes for c in chosen))
    # (a time in the very form asked: "the ceremony yesterday" is no date for "when was the wedding?")
    typed = ask.answer_type is None or any(c.typed >= (2 if ask.answer_type == "time" else 1) for c in chosen)
    return set(ask.hard) | set(ask.terms) <= said and set(ask.attributes) <= met and typed


def _owned_attribute(ask: Ask, chosen: Sequence[_Scored], names: Sequence[str] = ()) -> bool:
    """Whether the attribute asked is said of the one asked about: "What does Gareth do?" is not
    answered by "Nia… she's a midwife" joined through Gareth. A note about the subject says it, or
    a note whose first name is one the subject's notes name ("My partner Jonas" + "Jonas works as…")."""
    subject = ask.hard[-1]
    wanted = set(ask.attributes)
    named = subject in {stem(n.split()[0]) for n in names}  # (a name: not "my nephew", "Aoife's eldest")
    said = [t for c in chosen for t in (c.note.text, c.read)]
    if wanted == {stem("old")} and named and not any(_age_said_of(t, subject) for t in said):
        return False  # "how old is Choco?": not "Nanay lives with us, she's 73 … and Choco"
    owners = [c for c in chosen if subject in c.hard and c.mine]
    if any(wanted <= c.attributes for c in owners):
        return True
    # the ones the subject's notes name, not as a possessor ("Gareth's wife Nia": Nia, not Gareth)
    possessors = {m for c in owners for m in _possessors(c.read)}
    named = {n.casefold() for c in owners for n in names_in(c.read)} - possessors
    # the first name of the note, or of the sentence that says it, as said (a reading puts "my brother's"
    # first): "…w my gecko Noodle. Dev's on nights at St Mike's (he's a nurse)" says it of Dev
    for c in (c for c in chosen if wanted <= c.attributes):
        said = [p for p in sentences(c.note.text)
                if all(_attribute_met(replace(c.note, text=p), a, ask) for a in wanted)]  # fmt: skip
        if any(first and first[0].casefold() in named for first in (names_in(p)[:1] for p in [c.note.text, *said])):
            return True
    # or it goes on about them: "My sister Joanne… called this morning" then "She's been a dental hygienist…"
    # (its subject is the pronoun: not "His wife Nia is a midwife" after "My brother Gareth…")
    return any(wanted <= c.attributes and _GOES_ON.match(c.note.text) is not None
               and any(_leans_on(c.note, o.note) for o in owners) for c in chosen)  # fmt: skip


def _possessors(text: str) -> set[str]:
    """The names a text says as a possessor, lower-cased ("Gareth's wife Nia": gareth)."""
    return {m.casefold() for m in re.findall(r"\b([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)['’]s\b", text)}


def _names_only(note: Note, name: str, attribute: str, ask: Ask) -> bool:
    """Whether the note says the attribute and names no one but `name` (a stem), a possessor aside:
    "Chloé's boyfriend Hugo is a firefighter" says a job of Hugo; "…Gareth fishes lobster. His wife Nia
    is a midwife." says whose job is whose less plainly."""
    owning = _possessors(note.text)
    named = {stem(n.split()[0]) for n in names_in(note.text) if n.split()[0].casefold() not in owning}
    return named == {name} and _attribute_met(note, attribute, ask)


def _age_said_of(text: str, subject: str) -> bool:
    """Whether a text says an age of the one asked about: a number after a mention of them with no one
    else named between ("Marthese's boy Jake is 4": Jake's; "abuela rosa lives in pichilemu. shes 81":
    hers; "Nanay lives with us, she's 73, … and Choco": Nanay's, not Choco's)."""
    said = words(text.casefold())
    people = {stem(n.split()[0]) for n in people_in(text) if not is_calendar(n.split()[0])}
    at = -1
    for i, w in enumerate(said):
        if covers(frozenset({stem(w)}), subject):
            at = i
        elif stem(w) in people:
            at = -1
        elif at >= 0 and _an_age(said, i):
            return True
    return False


_GOES_ON = re.compile(r"\W*(?:she|he|they)(?:['’](?:s|ve|re|d))?\s", re.IGNORECASE)


_CALLS = re.compile(r"\b(?:call|calls|called|know|knows)\s+(?:her|him|them)(?:\s+as)?\s+([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)")
_SOMEONE_OF = re.compile(r"\b[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+['’]s\s+(" + "|".join(sorted(WHO)) + r")\b")  # "Sipho's mom"


def _mentions(c: _Scored, name: str, chosen: Sequence[_Scored], thing: str = "") -> bool:
    """Whether a chosen note is about the one named: it says them, or, naming no one else, its pronoun
    leans on a chosen note that does ("Priya…" then "She turns 40 in May")."""
    def says(s: _Scored) -> bool:
        # by name, as said or read: not as the start of a longer chain ("Tash's cafe" is not "my
        # sister's husband's brother Ravi's cafe", though "my sister" is Tash), nor as whose someone
        # is ("Ma Dikeledi (Sipho's mom)…" then "Her 70th is on 14 September" is not Sipho's birthday)
        text = _SOMEONE_OF.sub(lambda m: m[0] if covers(_said(m[1]), thing) else " ", f"{s.note.text} {s.read}")
        return name in {stem(w) for w in words(text)}

    if says(c):
        return True
    # (a note naming someone of its own is about them: "Ollie turns 7… he wants a dinosaur party")
    return ((not people_in(c.note.text) or _opens_on_pronoun(c.note.text))
            and any(_leans_on(c.note, o.note) and says(o) for o in chosen if o is not c))


_OPENING_PRONOUN = re.compile(r"^\W*(?:(?:and|so|also|oh|but|then)\W+)?(?:she|he|they|her|his|their)\b", re.IGNORECASE)


def _opens_on_pronoun(text: str) -> bool:
    """Whether a note opens on a pronoun, so goes on about the one the turn before named even where it
    names someone else after it: "her cousin Zainab will take her room" after "Halima got a job in Kano",
    "she was diagnosed… the consultant is dr Sandhu" after "my mum is Margaret"."""
    return _OPENING_PRONOUN.match(text) is not None


_TYPE_OF = re.compile(r"\b([a-z]{3,})\s+(type|group)\b", re.IGNORECASE)  # "blood type", "blood group"


_OF_SOMEONE = re.compile(
    r"\b([a-z]+)\s+of\s+(?:(?:my|our|the|his|her|their)\s+)?((?:[A-Z][\w-]*\s+){0,2}[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)"
)  # "daughter of my Tita Nora": whose the daughter is


def _whose_thing(sit: Situation) -> tuple[str, str] | None:
    """Whose thing a question asks a date or an amount of: ("trisha", "birthd") for "when is Trisha's
    birthday?", ("my", "birthd") for "when's my birthday?"; None for any other question."""
    chains = _name_chains(sit.text)
    if len(chains) == 2:
        return chains[0], chains[1]
    mine = re.search(r"\b(?:my|our)\s+(?:own\s+)?([a-z]+)\s*\??$", sit.text, re.IGNORECASE)
    return ("my", stem(mine[1])) if mine and sit.about_me and not sit.chain else None


def _anothers(text: str, owner: str, thing: str) -> bool:
    """Whether a note says the thing only as someone else's: "Paolo's birthday…" for Trisha's; for the
    person's own, also "her birthday's 12 January" (for a name, "her" may be that one)."""
    others = r"[A-ZÀ-ÞĀ-Ž][\w-]*['’]s" + (r"|his|her|their" if owner == "my" else "")
    said = [m[1].casefold() for m in re.finditer(rf"\b({others}|my|our)\s+(?:\w+\s+)?{thing}\w*", text, re.I)
            if m[1][:1].isupper() or m[1].casefold() in ("his", "her", "their", "my", "our")]  # fmt: skip
    own = ("my", "our") if owner == "my" else ()
    return bool(said) and not any(s in own or stem(s.removesuffix("'s").removesuffix("’s")) == owner for s in said)


def _said_of_name(c: _Scored, name: str, thing: str) -> bool:
    """Whether a note that names `name` says `thing` of them in one part: not "Eli turns eight on
    September 30th…; his little sister Harper is four" for Harper's birthday. A part that names no
    one before the thing goes on about the one named around it ("Her vet is Dr. Mehta… Biscuit
    adores her"); a document's line that does not name them is about its title (a form's "Date of
    birth" is the patient's, not the emergency contact Gary's)."""
    text = c.note.text  # as said: a reading may put a wrong one for "Her"
    if name not in {stem(w) for w in words(text)}:  # (a document's line is about its title)
        return True  # (naming no one, it leans on a note that does: see `_mentions`)
    if any(stem(m[1]) == name for m in _CALLS.finditer(text)):  # "…is a retired nurse. The kids call her Gogo."
        return True  # the whole note is about the one it gives another name
    for m in _OF_SOMEONE.finditer(text):  # "daughter of my Tita Nora"
        if covers(_said(m[1]), thing) and name in {stem(w) for w in words(m[2])}:
            return True
    worded = False  # whether any word says the thing ("birthday"), or only the note's shape ("he's a teacher": a job)
    for p in parts(text):
        at = next((m.start() for m in re.finditer(r"\w+(?:['’]\w+)*", p) if covers(_said(m.group()), thing)), None)
        at = _age_on_a_day_at(p, thing) if at is None else at
        if at is None:
            continue
        worded = True
        before = p[:at]
        if name in {stem(w) for w in words(before)}:  # "Harper turns five…", "Sipho's birthday is…"
            return True
        if name in {stem(w) for w in words(p)}:  # named after it: unless someone else says it first
            if not _SUBJECT_PRONOUN.search(before) and not people_in(before):  # not "She turns 70… so Sipho"
                return True
            continue
        if not people_in(before):  # naming no one: "Her vet is Dr. Mehta…" goes on about the one around it
            return True
    # said by its shape, in a note naming them and no one else ("My partner is called Jonas, he's a
    # teacher" for Jonas's job; not "My brother Gareth fishes lobster. His wife Nia is a midwife.")
    return not worded and len({n.casefold() for n in people_in(text)}) == 1


def _age_on_a_day_at(part: str, thing: str) -> int | None:
    """Where a part says a birthday as the age to come on a day ("He is 74 now and will be 75 on the
    19th"), for the birthday asked; None elsewhere."""
    said = _AGE_ON_A_DAY.search(part) if covers(frozenset({stem("birthday")}), thing) else None
    return said.start() if said else None


def _leans_on(note: Note, other: Note, own_name: bool = False) -> bool:
    """Whether a note's pronoun needs the turn before it ("His wife Nia…" after "My brother Gareth…");
    with `own_name`, also when it names who first (it goes on about the turn before: "Biscuit's our
    beagle, she's…" after "Biscuit refused to go past…"; but "partner's Marco, he drives trams" needs
    no turn before it for what it says)."""
    pronoun = _PRONOUN.search(note.text) if note.after == other.ref else None
    return pronoun is not None and (own_name or not people_in(note.text[: pronoun.start()]))


def _later(note: Note, other: Note) -> bool:
    return _said_order(note) > _said_order(other)


def _said_order(note: Note) -> tuple[bool, float]:
    """When a note was said, for what corrects what: the person's words come after any document,
    which is as old as its facts, not its upload ("our launch is now the 24th of May, not the
    17th" corrects the contract's "Saturday 17 May")."""
    return (note.source != "chunk", _when(note))


def _when(note: Note) -> float:
    return note.created_at.timestamp() if note.created_at else 0.0


def _gain(s: _Scored, chosen: Sequence[_Scored], ask: Ask) -> tuple[int, int, int, int, int, bool]:
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
        and (shared
             or (any(covers(s.note.said, t) for t in (s.terms | s.hard) - {ask.verb})  # (not "bought" alone)
                 and (not ask.verb or covers(s.note.stems, ask.verb) or ask.answer_type is not None)
                 # and of the thing asked, not only of the one named ("the new adviser is Sir Tolentino"
                 # for "who's Migo's ninang?")
                 and (not ask.things
                      or any(t not in set(ask.hard) - set(ask.things) for t in (s.terms | s.hard) - {ask.verb}))))
    ) else 0
    leans = any(_leans_on(c.note, s.note) or _leans_on(s.note, c.note, own_name=True) for c in chosen)
    return (len(s.hard - hard), correction, max(0, s.typed - typed), len(s.attributes - attributes),
            len(s.terms - terms), leans)  # fmt: skip


def _answer_names(chosen: Sequence[_Scored], ask: Ask) -> frozenset[str]:
    """Who and what the chosen notes name, in the sentences that say what is asked ("I'm slowly reading
    The Shipping News": the book; not "we rehearse at Bunker" for "what do I play?"), that the question
    does not (lower-cased)."""
    asked = set(ask.hard) | set(ask.terms)
    names: set[str] = set()
    for c in chosen:
        said = [p for p in sentences(c.note.text) if any(covers(_said(p), t) for t in asked)] or [c.note.text]
        names |= {n.casefold() for p in said for n in names_in(p)}
    return frozenset(n for n in names if stem(n) not in asked and not is_calendar(n))


# not a job ("it works out"), not an age ("turns out it's Christchurch")
_WORKS_OUT = re.compile(r"\b(?:work|turn)(?:s|ed|ing)?\s+(?:it\s+|things\s+)?out\b", re.IGNORECASE)


def _said(text: str) -> frozenset[str]:
    said = frozenset(stem(w) for w in words(_WORKS_OUT.sub(" ", text)))
    said |= _particled(text)
    said |= {stem("birthday")} if _AGE_ON_A_DAY.search(text) else frozenset()  # "will be 75 on the 19th"
    return said | frozenset(root(s) for s in said)


# A verb and its particle, said apart, are the hyphenated word asked: "move in jan 1" is the move-in date,
# "my check up is moved" the check-up
_PARTICLE = re.compile(r"\b([a-z]+)\s+(up|in|out|off|on|over|down|back)\b", re.IGNORECASE)


def _particled(text: str) -> frozenset[str]:
    return frozenset(stem(f"{b}-{p}") for a, p in _PARTICLE.findall(text) for b in (a, stem(a)))


def _names_one(note: Note, question: str) -> bool:
    """Whether a note says a name the question does not (a document's title counts: its lines are its)."""
    asked = {w.casefold() for w in words(question)}
    said = [n for n in names_in(note.text) if n.split()[0].casefold() not in asked and not is_calendar(n.split()[0])
            and re.search(rf"(?<![.!?:]\s)(?<!^)\b{re.escape(n)}\b", note.text.strip())]  # not "…. Back on 16…"
    return bool(said) or (note.source == "chunk" and bool(note.title))


_GIFT_ASKED = re.compile(
    rf"\b(?i:what did) (?P<giver>(?i:i|we)|{NAME_WORD}) (?i:get|give|buy)\s+"
    rf"(?P<to>(?!for\b)\w+(?:\s+\w+)?)\s+(?i:for)\b"
)
_ME = word_set("i we i've we've i'd we'd me us my our")


def _gave(text: str, giver: str, to: str) -> bool:
    """Whether a text says the giver asked gave something to the one asked: "Ørjan gave me a Garmin" for
    "what did Ørjan give me…?", not "Desmond's knee has finally given up", nor "Eleni made the turkey and
    i made the pilafi" for "what did I get Eleni…?" (a present: "a scarf from Tom" says its giver)."""
    giver = giver.casefold()
    receivers = [w for w in words(to.casefold()) if w not in ("my", "our", "his", "her", "their")]
    mine = giver in ("i", "we")
    by = (lambda ws: bool(_ME & set(ws))) if mine else (lambda ws: any(w.startswith(giver) for w in ws))
    gets = (lambda ws: bool(_ME & set(ws))) if set(receivers) <= _ME else (lambda ws: any(t in ws for t in receivers))
    for clause in re.split(r"[.!?;,]", text.casefold()):
        said = words(clause)
        for i, w in enumerate(said):
            if stem(w) not in _GIVING or (i + 1 < len(said) and said[i + 1] == "up"):
                continue
            before, after = said[max(0, i - 3) : i], said[i + 1 : i + 6]
            if w in ("present", "presents", "gift", "gifts"):
                if by(after[:2]) or by(before):
                    return True  # ("got Benja new boots": the person, unsaid, at a clause's start)
            elif (by(before) or (mine and i == 0)) and (
                not receivers or gets(after) or any(f"for {t}" in clause for t in receivers)
            ):
                return True
    return False
_GIVING = frozenset(stem(w) for w in ("get", "got", "gave", "give", "given", "bought", "buy", "present", "gift",
                                      "getting", "giving", "ordered", "made"))  # fmt: skip
# A deed asked that a note tells as another: paying for a thing is said as buying or booking it.
_BUYING = frozenset(stem(w) for w in ("buy", "bought", "buying", "purchase", "purchased", "booked"))  # (not "sold")
_SAID_AS = {stem("pay"): _BUYING, stem("spend"): _BUYING}
# …and other deeds so told: "when did I start at Medlink?": "been there since september 2024"; "what day
# did we collect the car?": "picked it up saturday"
_SAID_AS |= {stem(asked): frozenset(stem(w) for w in told.split())
             for asked, told in (("start", "since joined began"), ("collect", "picked"))}  # fmt: skip
_WITH_ME = re.compile(r"\b([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)\s+and\s+(?:I|me)\b|\b(?:I|me)\s+and\s+([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)")


_PRONOUN_LED = re.compile(r"\W*(?:she|he|they)(?:['’]?s|['’](?:ve|re|d))?\s", re.IGNORECASE)  # ("shes Migo's…")


def _named_beside(text: str, word: str, asked: set[str], near: int = 6, people: bool = True) -> bool:
    """Whether a text names someone, not one the question names, within a few words of `word` (a stem)
    in one sentence: "The orthodontist is Dr Pillay", "Dr. Bakker, orthopaedic surgeon". `people`
    False: any name, a place's too ("the Lakeview Inn"; not "a little inn in Fish Creek" for a
    question that says Fish Creek)."""
    before: set[str] = set()  # the ones named last: "Grace Villanueva. same ward… shes Migo's ninang"
    for part in sentences(text):
        said = words(part)
        at = [i for i, w in enumerate(said) if covers(frozenset({stem(w)}), word)]
        names = {n.split()[0].casefold() for n in (people_in(part) if people else names_in(part))
                 if not is_calendar(n)} - asked
        if any(abs(i - j) <= near for i in at for j, w in enumerate(said) if w in names):
            return True
        if at and before and not names and _PRONOUN_LED.match(part):
            return True
        before = names or before
    return False


def _verdict(sit: Situation, ask: Ask, chosen: list[_Scored]) -> Evidence:
    covered = frozenset().union(*(c.hard for c in chosen))
    missing = tuple(t for t in ask.hard if t not in covered)
    if missing == (ask.category,) and any(said_as_object(sit.text, c.note.text) for c in chosen):
        missing = ()  # "which airport am I flying to?": "I'm flying to Katowice now" names it, unsaid
    if missing == (ask.category,) and any(_mh_works_at(sit.text, c.note.text) for c in chosen):
        missing = ()  # "which hospital does my flatmate work at?": "she's a pharmacist at the RVI"
    notes = tuple(sorted((c.note for c in chosen), key=_said_order))
    if missing:
        return Evidence("unknown", (), "low", "nothing remembered about " + ", ".join(missing), missing)
    if (chosen[0].i_asked and sit.about_me and not sit.heads and not any(is_first_person(n.text, unsaid=True)
                                                                          or _tl_to_you(n) for n in notes)
            and not any(_unowned(c.note, ask) or _of_no_one(c.note, ask) for c in chosen)):
        return Evidence("unknown", (), "low", "the notes are about someone else", ())  # "did I study?": not "Nia…"
    if all(_told_of_another(c.note, ask, sit) and not _to_me(c.note.text) for c in chosen):
        return Evidence("unknown", (), "low", "the notes say it of someone else", ())  # "…, she lives in York"
    chains = _name_chains(sit.text)
    for name, thing in zip(chains[::2], chains[1::2], strict=True):  # "Hannah's birthday": not "my own birthday"
        holders = [n for n in notes if covers(n.stems, thing)]
        mine = [n for n in holders if re.search(rf"\b(?:my|our)\s+(?:own\s+)?{thing}", n.text, re.IGNORECASE)]
        theirs = [n for n in holders if re.search(rf"\b{name}\w*['’]s\s+(?:\w+\s+)?{thing}", n.text, re.IGNORECASE)]
        if holders and len(mine) == len(holders) and not theirs:
            return Evidence("unknown", (), "low", f"the notes are about the person's own {thing}", ())
        # "When is Dev's birthday?": not Ollie's, joined through "Tash is married to Dev"
        held = [c for c in chosen if covers(c.note.stems, thing)]
        if any(name in c.hard and thing in c.attributes and _names_only(c.note, name, thing, ask) for c in chosen):
            continue  # "what's Hugo's job?": "Chloé's boyfriend Hugo is a firefighter" says it of him, unsaid as a job
        if held and not any(_mentions(c, name, chosen, thing) and _said_of_name(c, name, thing) for c in held):
            return Evidence("unknown", (), "low", f"the notes say {thing} of someone else", ())
    if sit.chain >= 2 and len(sit.heads) >= 2:  # "my dad's birthday": a birthday said of the dad, not Ioana's
        owner, thing = sit.heads[-2], sit.heads[-1]
        holders = [c for c in chosen if thing in c.hard]
        if holders and not any((owner in c.hard or _opens_on_pronoun(c.note.text))
                               and _mentions(c, owner, chosen, thing)
                               for c in holders):  # ("she was diagnosed…" after "my mum is Margaret")
            return Evidence("unknown", (), "low", f"the notes say {thing} of someone else", ())
    if sit.about_me and sit.heads:  # "my dog": not "Ana adopted a dog", whatever else is joined
        holders = [n for n in notes if covers(n.stems, sit.heads[0])]
        theirs = [n for n in holders
                  if (not is_first_person(n.text) and _given_to_other(n, sit)) or _only_theirs(n, sit)]  # fmt: skip
        # (a chosen note that says it only as read is mine: "Ganesh's daughter Pooja…", my brother's daughter)
        read_mine = any(sit.heads[0] in c.hard and not covers(c.note.stems, sit.heads[0]) for c in chosen)
        if holders and len(theirs) == len(holders) and not read_mine:
            return Evidence("unknown", (), "low", "the notes are about someone else's", ())
    compound = _TYPE_OF.search(sit.text)  # "my mother's blood type": not "type 2 diabetes", "the blood test"
    if compound and compound[1].casefold() not in STOP and not any(
        covers(said, stem(compound[1])) and covers(said, stem(compound[2]))
        for n in notes for said in map(_said, sentences(n.text))
    ):
        return Evidence("unknown", (), "low", f"no note says the {compound[0]}", ())
    unmet = [a for a in ask.attributes if not any(_attribute_met(n, a, ask) for n in notes)]
    unmet = [a for a in unmet
             if a not in NAMING_STEMS or not any(_named_as_kin(c.note, c.read, ask, sit.text) for c in chosen)]
    if unmet:
        return Evidence("unknown", (), "low", "no note says the " + ", ".join(unmet), tuple(unmet))
    if ask.attributes and ask.hard and not _owned_attribute(ask, chosen, sit.names):
        return Evidence("unknown", (), "low", "the notes say it of someone else", ())
    others = [t for t in ask.terms if t != ask.verb]
    said_all = len(others) >= 2 and any(all(t in c.terms for t in others) for c in chosen)  # "took first prize"
    told_as = _SAID_AS.get(ask.verb or "", frozenset())  # "what did I pay for the Navara?": "bought it for…"
    if ask.verb and not said_all and not any(covers(c.note.stems, ask.verb) or c.note.stems & told_as for c in chosen):
        return Evidence("unknown", (), "low", f"no note says the person did {ask.verb}", ())
    # "what did I get Benja for his birthday?" asks for a present ("get" is too light a verb to require
    # elsewhere): not "Benja turned 17 on 3 october"
    gift = _GIFT_ASKED.search(sit.text)
    if gift and not any(_gave(t, gift["giver"], gift["to"]) for c in chosen for t in (c.note.text, c.read) if t):
        return Evidence("unknown", (), "low", f"no note says what {gift['giver']} gave", ())
    if ask.earlier and not any(c.earlier for c in chosen) and not (ask.answer_type and _changed_later(chosen)):
        return Evidence("unknown", (), "low", "no note says what came before", ())
    if ask.answer_type and not any(c.typed for c in chosen):
        return Evidence("unknown", (), "low", f"no note names a {ask.answer_type}", ())
    # an amount or a time said of what is asked, not of a note joined for another word ("you paid 2900 lei
    # for the package" is no ferry to Thassos; "flight at 8:10" no birthday party): the note that gives it
    # says a word asked, or goes on from one that does
    asked = set(ask.terms) - {ask.verb} - {stem(u) for u in _UNITS}  # (not "kilos": 1,100 kilos of olives)
    typed = [c for c in chosen if c.typed]
    money = _MONEY.search(sit.text) is not None
    if ask.answer_type in ("number", "time") and asked and typed and not any(
        _of_it(c, chosen, asked, money) for c in typed
    ):
        return Evidence("unknown", (), "low", f"the {ask.answer_type} said is of something else", ())
    due = _MONEY_NOUN.search(sit.text)  # "how much was the deposit on the flat?": not "the rent… is 1,260 €"
    if money and ask.answer_type == "number" and due and typed and not any(covers(c.note.stems, stem(due[0].casefold()))
                                                                          for c in chosen):  # fmt: skip
        return Evidence("unknown", (), "low", f"no note gives the {due[0]}", ())
    whose = _whose_thing(sit)  # "when is Trisha's birthday?": not the date of "Paolo's birthday is on Sept 21"
    if ask.answer_type in ("number", "time") and whose and typed:
        owner, thing = whose
        holding = [c for c in typed if covers(c.note.stems, thing)]
        if holding and all(_anothers(c.note.text, owner, thing) and _anothers(c.read or c.note.text, owner, thing)
                           for c in holding):  # (as typed and as read: "K's birthday" is Kieran's)
            return Evidence("unknown", (), "low", f"the {ask.answer_type} said is of someone else's {thing}", ())
    # "how much did I make per hour?": not "pays 120 lucas a month" (another rate, of another job)
    rate = _RATE.search(sit.text)
    if rate and typed and all(_other_rate(c.note.text, sit.text, rate[1]) for c in typed):
        return Evidence("unknown", (), "low", f"the amount said is not per {rate[1]}", ())
    priced = _priced_thing(sit, ask)  # "how much did I pay for the truck?": not the permit's "$590 fee"
    if priced and typed and not any(covers(o.note.stems, t) and (o is c or _one_document(c.note, o.note))
                                    for c in typed for o in chosen for t in priced):  # fmt: skip
        return Evidence("unknown", (), "low", "the amount said is of something else", ())
    if typed and _clock_of_another(sit.text, [c.note for c in chosen]):  # "…flight leave?": not "let him leave at 4"
        return Evidence("unknown", (), "low", "the time said is of something else", ())
    if set(ask.attributes) & NAMING_STEMS and _modified_otherwise(sit.text, notes):  # "my older brother's name"
        return Evidence("unknown", (), "low", "the notes say it of another one", ())
    if set(ask.attributes) & NAMING_STEMS and _unnamed_kin(sit, notes):  # "Jelle's wife": not "his wife is…"
        return Evidence("unknown", (), "low", "no note names the one asked", ())
    if ask.answer_type == "number" and _ab_unpriced(sit.text, notes):  # "how much are tickets…?": not "on the 13th"
        return Evidence("unknown", (), "low", "no note says an amount of money", ())
    if ask.answer_type == "number" and _ab_numbers_of_another_kind(sit.text, notes):  # not "Jonah is nine"
        return Evidence("unknown", (), "low", "the numbers said are of another kind", ())
    if _ab_measure_unsaid(sit.text, notes):  # "…per litre?": not "EUR 2,400 per month"
        return Evidence("unknown", (), "low", "no note says the measure asked", ())
    if _ab_drug_unsaid(sit.text, notes):  # "What dose of insulin…": not "furosemide 20 mg"
        return Evidence("unknown", (), "low", "no note names the medicine asked", ())
    if _ab_look_of_unsaid(sit.text, notes, [c.note for c in typed]):  # "what size are my running shoes?"
        return Evidence("unknown", (), "low", "no note says the thing asked", ())
    if ask.answer_type in ("person", "place") and _ab_place_of_another(sit, chosen):  # not Luke's "school play"
        return Evidence("unknown", (), "low", "the notes say it of someone else", ())
    if set(ask.attributes) & NAMING_STEMS and _ab_name_of_unsaid(sit.text, chosen):  # "babcia's first name"
        return Evidence("unknown", (), "low", "no note says the one asked", ())
    if _ab_address_unsaid(sit.text, notes):  # "Pieter's home address": not "Pieter's house has a leak"
        return Evidence("unknown", (), "low", "no note says an address", ())
    if set(ask.attributes) & ROLE_STEMS and _ab_job_unsaid(sit, chosen):  # not "Emeka's company transferred him"
        return Evidence("unknown", (), "low", "no note says their job", ())
    if _ab_own_as_anothers(sit, notes):  # "When's my birthday?": not "Her birthday's 12 January"
        return Evidence("unknown", (), "low", "the notes say it of someone else", ())
    if _ab_no_day_said(sit.text, notes):  # "When's my birthday?": not "I was born the year after"
        return Evidence("unknown", (), "low", "no note says the day", ())
    if _ab_renamed_unsaid(sit.text, notes):  # "What was Zaatar called at the SPA?"
        return Evidence("unknown", (), "low", "no note says another name", ())
    if _ab_amount_unsaid(sit.text, notes):  # "what's my monthly payment on the loan": not "Payment Schedule"
        return Evidence("unknown", (), "low", "no note says an amount", ())
    if _ab_deed_unsaid(sit.text, notes, [c.read for c in chosen]):  # "What did Wietske study?"
        return Evidence("unknown", (), "low", "no note says the deed asked", ())
    if _ab_result_time_unsaid(sit.text, notes):  # "my time in the Bryanston 10km": not "no excuses this time"
        return Evidence("unknown", (), "low", "no note says the time asked", ())
    if _ab_mark_as_school_year(sit.text, notes):  # "What grade did Andrei get…": not "in 12th grade"
        return Evidence("unknown", (), "low", "no note says the mark asked", ())
    if _ab_fee_of_another(sit.text, [c.note for c in typed], priced):  # "…for the truck": not "$590 fee"
        return Evidence("unknown", (), "low", "the amount said is a due of something else", ())
    if _ab_bound_only(sit.text, [c.note for c in typed], priced):  # the robot's cost: not "Investments above…"
        return Evidence("unknown", (), "low", "the amount said is a bound", ())
    if _ab_deed_only_meant(sit.text, notes):  # "…spend fixing the gearbox": not "he wants to fix the gearbox"
        return Evidence("unknown", (), "low", "the notes say the deed only as meant", ())
    if _ab_opponent_unsaid(sit.text, notes):  # "who was benja playing against…"
        return Evidence("unknown", (), "low", "no note says an opponent", ())
    if _ab_acronym_unnamed(sit.text, notes):  # "Which HMO…": not "the Hospital's HMO scheme"
        return Evidence("unknown", (), "low", "no note names the one asked", ())
    if _ab_where_i_unnamed(sit.text, notes):  # "the school where I teach": not the grandson's school
        return Evidence("unknown", (), "low", "no note names the person's own", ())
    # "which city did Gary and I get married in?": the place is said of the marriage, not just of Gary
    mates = {stem(n) for pair in _WITH_ME.findall(sit.text) for n in pair if n}
    about = {c.note.ref for c in chosen if c.terms - mates}  # or goes on from one that is ("It's white")
    typed = [c.note for c in chosen if c.typed]
    if ask.answer_type and mates and typed and all(n.ref not in about and n.after not in about for n in typed):
        return Evidence("unknown", (), "low", f"the {ask.answer_type} named is said of something else", ())
    noun = _named_noun(sit.text)  # "which hospital…": where a note says the hospital, it names it
    saying = [c for c in chosen if noun and ask.answer_type in ("person", None) and covers(c.note.said, stem(noun))]
    who = ask.answer_type == "person" and re.match(r"\W*who\b", sit.text, re.IGNORECASE) is not None

    def named(c: _Scored, word: str) -> bool:  # a name of the type asked; "who…": someone beside the word
        if who:  # (not Kagiso in "Who is Kagiso's orthodontist?": "The orthodontist is in Fairland")
            return c.typed > 0 and _named_beside(c.note.text, stem(word), {n.casefold() for n in sit.names})
        if ask.answer_type and word == noun and _NAME_OF.search(sit.text):  # "the name of the inn we booked in
            asked = {n.split()[0].casefold() for n in sit.names}  # Fish Creek": not "a little inn in Fish Creek"
            return c.typed > 0 and _named_beside(c.note.text, stem(word), asked, people=False)
        return c.typed > 0 if ask.answer_type else _names_one(c.note, sit.text)

    if saying and not any(named(c, noun) for c in saying):  # "which airline…": not "the airline moved…"
        return Evidence("unknown", (), "low", f"no note names the {noun}", ())
    role = _WHO_ROLE.match(sit.text.casefold())  # "who is the surgeon…": not "The surgeon is on sick leave"
    saying = [c for c in chosen if role and not noun and covers(c.note.said, stem(role[1]))]
    if role and ask.answer_type == "person" and saying and not any(named(c, role[1]) for c in saying):
        return Evidence("unknown", (), "low", f"no note names the {role[1] if role else ''}", ())
    only = _ROLE_ALONE.match(sit.text.casefold())  # "who's the captain on Dennis's ship?": not "his ship is MV…"
    if (only and ask.answer_type == "person" and not noun and only[1] not in STOP | _SOMEONE
            and not any(covers(c.note.stems, stem(only[1])) for c in chosen)):
        return Evidence("unknown", (), "low", f"no note says who the {only[1]} is", ())
    head = _ROLE_HEAD.match(sit.text.casefold())  # "who's Anto's violin teacher?": not "she studies violin"
    if (ask.answer_type == "person" and head and head[1] not in STOP
            and not any(covers(c.note.stems, stem(head[1])) for c in chosen)):
        return Evidence("unknown", (), "low", f"no note says who the {head[1]} is", ())
    best = chosen[0]
    terms_covered = sum(any(t in c.terms for c in chosen) for t in ask.terms)  # as read ("my brother-in-law")
    if not ask.hard and terms_covered * 2 < len(ask.terms) and best.note.relevance < HIGH_RELEVANCE:
        return Evidence("unknown", (), "low", "only weak, partial matches", ())
    if ask.terms and not terms_covered and not ask.attributes:  # "the physio cost?": not "1150 a month"
        return Evidence("unknown", (), "low", "no note says any of " + ", ".join(ask.terms), ())
    if ask.terms and not terms_covered and not sit.about_me:  # "what does debbie do?": not "…to her old work"
        return Evidence("unknown", (), "low", "no note says who or what the attribute is of", ())
    # "when's my next HbA1c test due?": not "Next week Wednesday, 9th April, is my birthday" (1 of 4)
    if terms_covered * 3 < len(ask.terms) and not ask.attributes:
        return Evidence("unknown", (), "low", "the notes say too little of what is asked", ())
    strong = (terms_covered == len(ask.terms) and best.note.relevance >= SURE_RELEVANCE
              and ask.answer_type != "number")  # see SURE_RELEVANCE
    why = f"covers {terms_covered}/{len(ask.terms)} key words; relevance {best.note.relevance:.2f}"
    return Evidence("answer", notes, "high" if strong else "medium", why)


# "which team does my son play for (these days)?": what is done, and to what, as the question ends
_KIND_ASKED = re.compile(r"^\W*(?:which|what)\s+[\w-]+\s+(?:do|does|did|am|are|is|was|were|will|has|have|had)\s+(.+)$",
                         re.IGNORECASE)
_WHEN_TAIL = re.compile(
    r"\s+(?:(?:in|on|at|by|for|this|next|last|these|those)\s+)?(?:\w+day|week|weekend|month|year|days|now|again|"
    r"then|today|tonight|tomorrow|" + "|".join(sorted(_MONTHS)) + r")\W*$",
    re.IGNORECASE,
)
_OBJECT_PREPS = ("out of", "to", "for", "at", "in", "with", "from", "on", "into", "of", "by")
# what a thing asked is for, after the verb's own preposition: "… from for the Lisbon trip", "… to for our holiday"
_FOR_TAIL = re.compile(r"(\s(?:to|at|in|from|on|into|by))\s+for\s+(?:the|our|my|this|that)\s+[\w\s'’-]+$",
                       re.IGNORECASE)


def _named_as_kin(note: Note, read: str, ask: Ask, question: str) -> bool:
    """Whether a note names the person's own kin asked by the name it reads as them: "Gareth's wife Nia
    and their son Rhys", read "… and their son my nephew" (Rhys is the one the person's notes make their
    nephew), names the nephew for "what's my nephew called?", though the word "nephew" is nowhere in it
    (not for "what's Mitch's wife called?": "my wife" in a reading is the person's own)."""
    kin = re.escape(ask.hard[-1]) if ask.hard else ""
    return bool(kin) and re.search(rf"\b(?:my|our)\s+(?:{_DESCRIBER})?{kin}", question, re.IGNORECASE) is not None \
        and re.search(rf"\bmy\s+{kin}", read, re.IGNORECASE) is not None \
        and not re.search(rf"\b{kin}", note.text, re.IGNORECASE)


def _changed_later(chosen: Sequence[_Scored]) -> bool:
    """Whether a chosen note that gives a value in the form asked is changed by a later chosen one that
    gives another, so that it says what came before: "harvest we start 4 November" then "we moved the
    start of harvest to 11 November", for "when was the harvest supposed to start before all the rain?"
    (asked for a type of answer: not "what was marcus making before the raise?" by his new job's news)."""
    return any(new.typed == old.typed == 2 and new.hard >= old.hard and _later(new.note, old.note)
               and corrects(new.note.text) and old.terms & new.terms
               for new in chosen for old in chosen if new is not old)  # fmt: skip


# "which hospital does she work at?", "at which firm does Sipho work?": a workplace asked by its kind
_MH_WORKPLACE_ASKED = re.compile(
    r"^\W*(?:(?:at|in|for)\s+)?(?:which|what)\s+([a-z]+)\s+(?:do|does|did|is|was)\s+.+?\bwork(?:s|ed|ing)?"
    r"(?:\s+(?:at|in|for))?(?:\s+now)?\W*$",
    re.IGNORECASE,
)
# A job said with where it is done: "she's a pharmacist at the RVI", "a nurse at Mater Dei", "works for Arup"
# (not "in": "a carpenter in Plagwitz" says the town, not the workplace)
_MH_JOB_AT = re.compile(
    r"\b(?:(?i:an?|the)\s+(?:\w+\s+){0,2}?(?i:" + _JOB_WORD + r")|(?i:works?|worked|working))\s+(?i:at|for)\s+"
    r"(?:(?i:the)\s+)?([A-ZÀ-ÞĀ-Ž][\w'’-]*)"
)


def _mh_works_at(question: str, text: str) -> bool:
    """Whether a note names the workplace a "which <kind>…work at?" question asks, by a job said at a
    name, though the kind itself is unsaid: "which hospital does my flatmate work at?" and "my flatmate
    Becca, she's a pharmacist at the RVI". A name the question says is no answer."""
    asked = _MH_WORKPLACE_ASKED.match(question.strip())
    if not asked or asked[1].casefold() not in _NAMED_NOUNS:
        return False
    named = {w.casefold() for w in words(question)}
    return any(m[1].casefold().removesuffix("'s") not in named and not is_calendar(m[1])
               for m in _MH_JOB_AT.finditer(text))


def said_as_object(question: str, text: str) -> bool:
    """Whether a note names, as the object of the question's own verb and preposition, what a "which
    <kind>" question asks: "which airport am I flying to in February?" and "I'm flying to Katowice now";
    "which team does my son play for?" and "he plays in goal for Erdington Juniors"; "which subject does
    Claire teach?" and "Claire teaches English". The kind itself is seldom said beside the answer. A
    name the question says is no answer ("which hotel are we staying in over in Lisbon?")."""
    asked = _KIND_ASKED.match(question.strip().rstrip("?!. "))
    if not asked:
        return False
    rest = asked[1]
    while (tail := _WHEN_TAIL.search(rest)) and tail.start() > 0:  # "… in February", "… these days"
        rest = rest[: tail.start()]
    rest = _FOR_TAIL.sub(r"\1", rest)  # "which airport are we flying from for the Lisbon trip?"
    prep = next((p for p in _OBJECT_PREPS if re.search(rf"\s{p}$", rest, re.IGNORECASE)), "")
    if prep == "from":  # "flying out of Knock" says where from
        text = re.sub(r"\bout of\b", "out from", text)
    said = rest[: len(rest) - len(prep)].split()
    verb = said[-1] if said else ""
    if not verb.isalpha() or not verb.islower() or verb in STOP:
        return False
    named = {w.casefold() for w in words(question)}
    after = rf"(?:\W+\w+){{0,4}}?\W+{re.escape(prep)}" if prep else ""
    shape = rf"\b(?i:{re.escape(stem(verb))})\w*{after}(?:\W+(?:the|a|an|my|our))?\W+([A-ZÀ-ÞĀ-Ž][\w'’-]*)"
    return any(m[1].casefold().removesuffix("'s") not in named and not is_calendar(m[1]) and m[1] not in ("I", "I'm")
               for m in re.finditer(shape, text))  # fmt: skip


_RATE = re.compile(
    r"\b(?:per|an?|each|every|by the)\s+(hour|day|week|fortnight|month|year|night|shift|session|lesson)\b",
    re.IGNORECASE,
)


def _other_rate(text: str, question: str, asked: str) -> bool:
    """Whether every amount a note gives is said per something else than asked, or it gives none but dates
    ("pays 120 lucas a month", "last shift was sunday 31 august" for "…per hour?"; not "from 4800 lei net to
    5300 lei net, diurna stays 85 euro a day" for "…per month?")."""
    plain = words(text.casefold())
    dated = {w for i, w in enumerate(plain) if _dated(plain, i)}
    for amount in candidates(text, "number", question) - dated:  # (a day of a month is no amount: "31 august")
        after = re.search(rf"{re.escape(amount)}\W*(?:\S+\s+){{0,2}}?(?:per|an?|each|every|by the)\s+(\w+)", text, re.I)
        if not after or after[1].casefold() == asked.casefold() or not _RATE.search(f"a {after[1]}"):
            return False
    return True


def _priced_thing(sit: Situation, ask: Ask) -> list[str]:
    """What an amount of money is asked for, one word of which a note giving an amount must say: the
    words of the question's noun phrases but money words, owners, rates and adverbs ("how much did the
    pony cost for Ioana's party?" → pony, party; not "…put it on OLX for 42000 lei"); of a fee, a rent
    asked, what it is ("how much is the vendor fee at the market?" → vendor, not "health permit… $590 fee")."""
    if ask.answer_type != "number" or not (_MONEY.search(sit.text) or _MONEY_HOW.search(sit.text)):
        return []
    plain = words(sit.text.casefold())
    unsaid = {w for m in _MONEY.finditer(sit.text) for w in words(m[0].casefold())} | _RATE_WORDS | DESCRIBERS
    unsaid |= {w for w in plain if w.endswith("ly") or w in _UNITS or w == "money"}
    unsaid |= {w.casefold() for w in re.findall(r"\b(\w+)['’]s?\s", sit.text.replace("s'", "s's"))}  # owners
    runs: list[list[str]] = [[]]
    for w in plain:
        if w in STOP or w in _ME or w in _NO_THING:
            runs.append([])
        else:
            runs[-1].append(w)
    due = [run[:i] for run in runs for i, w in enumerate(run) if _MONEY_NOUN.fullmatch(w)]
    said = due[:1] if due else runs  # ("how much will the rent be in the new flat?": the rent said is its)
    return [stem(w) for run in said for w in run if w not in unsaid]


def _one_document(a: Note, b: Note) -> bool:
    """Whether two notes are chunks of one document (a table's amount and the line that says what it is of)."""
    return a.source == b.source == "chunk" and a.title == b.title


_NO_THING = word_set("per each every net gross total together altogether extra both")  # "…net per month"
_MONEY_HOW = re.compile(r"\bhow much money\b", re.IGNORECASE)
_RATE_WORDS = word_set("hour day week fortnight month year night shift session lesson")
# "what time does our flight leave?": the subject asked, before its verb (do) or the question's end (is)
_CLOCK_ASKED = re.compile(
    r"^\W*what\s+time\s+(do|does|did|will|is|was|are|were)\s+(.+?)(?=\s+(?:on|at|in|for|to|from|with|this|next|"
    r"tomorrow|today|tonight)\b|\W*$)",
    re.IGNORECASE,
)


def _clock_of_another(question: str, notes: Sequence[Note]) -> bool:
    """Whether every time of day the notes give is said in a sentence about something else than the one
    asked ("what time does Nikos' birthday party start?": not "…Aegean flight at 8:10"; "what time does our
    flight leave?": not "his boss let him leave at 4"); a sentence that goes on from one that says it
    ("It starts at 7") counts as its, and of the person's own ("my PT appointments") one they say of
    themselves ("my physical therapist is Marcus…, and I go three mornings a week… at 8:15")."""
    asked = _CLOCK_ASKED.match(question)
    if not asked:
        return False
    said = [w for w in words(asked[2].casefold()) if w not in STOP and w not in _ME]
    done = asked[1].casefold() in ("do", "does", "did", "will")  # then the verb is said: not the thing
    # ("our flight leave" → flight; "I see the physio" → physio)
    subject = (said[1:] if _PERSONAL.match(asked[2]) else said[:-1]) if done else said
    wanted = {stem(w) for w in subject}
    if not wanted:
        return False
    clocks = 0
    mine = re.search(r"\b(?:my|our)\b", asked[2], re.IGNORECASE) is not None
    for note in notes:
        parts = [c for p in sentences(note.text) for c in p.split(";")]
        for i, part in enumerate(parts):
            if not (candidates(part, "time", question) or _CLOCK.search(part)):
                continue
            clocks += 1
            if mine and is_first_person(part):
                return False
            stems = frozenset(stem(w) for w in words(part.casefold()))
            going_on = i and _IT_LED.match(part)
            before = frozenset(stem(w) for w in words(parts[i - 1].casefold())) if going_on else frozenset()
            if any(covers(stems | before, t) for t in wanted):
                return False
    return clocks > 0


_PERSONAL = re.compile(r"\W*(?:i|we|you|he|she|they)\b", re.IGNORECASE)
_IT_LED = re.compile(r"\W*(?:it|it['’]s|that|this|which|they|starts?|begins?)\b", re.IGNORECASE)


# "my older brother", "eilidh's drum teacher": a thing asked with a word that tells it from others of its kind
_MODIFIED = re.compile(r"(?=\b(my|our|his|her|their|\w+['’]s)\s+([a-z]+)\s+([a-z]{3,})(?:['’]s)?\s+(?:first\s+)?"
                       r"(?:name|called|named)\b)")  # (overlapping: "what's my older brother's name?")


def _modified_otherwise(question: str, notes: Sequence[Note]) -> bool:
    """Whether the notes say the thing asked only with another word before it, and never the question's own
    ("what's my older brother's name?": not "my younger brother Ikenna"; "what's eilidh's drum teacher
    called?": not "her guidance teacher Mrs Okafor… her maths teacher")."""
    for m in _MODIFIED.finditer(question.casefold().replace("’", "'")):
        owner, mod, head = m[1], m[2], m[3]
        if mod in STOP or head in STOP or any(covers(n.stems, stem(mod)) for n in notes):
            continue
        before = [words(n.text.casefold())[max(0, i - 1)] for n in notes
                  for i, w in enumerate(words(n.text.casefold())) if i and stem(w) == stem(head)]
        # (another's too: "Fraser's teacher Mr Baird" for "eilidh's drum teacher")
        if before and all(w not in STOP and w not in _ME and w != owner and w.replace("'s", "").isalpha()
                          for w in before):  # fmt: skip
            return True
    return False


# "Jelle's wife", "Claire's pottery teacher": the one asked the name of, as another's (the last word)
_OWNED_ASKED = re.compile(  # (overlapping: "what's eilidh's drum teacher called", not just "what's eilidh")
    r"(?=\b(\w+)['’]s\s+(?:[a-z]+\s+)??([a-z]+)(?=['’]s\b|\s+(?:called|named|name)\b|\W*$))")


def _unnamed_kin(sit: Situation, notes: Sequence[Note]) -> bool:
    """Whether the name asked of another's someone is said beside them in no note ("What's Jelle's wife
    called?": not "Jelle called… his wife is making plans already")."""
    for m in _OWNED_ASKED.finditer(sit.text):
        if (m[1].casefold() not in STOP | _WH and m[2] not in STOP and stem(m[2]) not in NAMING_STEMS
                and stem(m[1].casefold()) not in _KIN_STEMS):  # ("my brother's son": found through the brother)
            asked = {w.casefold() for w in words(sit.text)}
            return not any(_named_by(part, stem(m[2]), asked) for n in notes for part in sentences(n.text))
    return False


def _named_by(part: str, head: str, asked: set[str], near: int = 8) -> bool:
    """Whether a sentence names someone the question does not within a few words of the very word asked
    ("His physiotherapist is a cheerful young woman called Bronwen"), or right after a word of its group
    ("his fiancée Zodwa" for a wife; not "Wietske becomes the leading partner of the farm")."""
    said = words(part)
    at = [i for i, w in enumerate(said) if stem(w.casefold()) == head]
    kin = [i for i, w in enumerate(said) if covers(frozenset({stem(w.casefold())}), head)
           and stem(w.casefold()) in _RELATIONS]  # (a word for someone: not "Claire teaches English")
    named = {n.split()[0].casefold() for n in names_in(part) if not is_calendar(n)} - asked
    people = {n.split()[0].casefold() for n in people_in(part)} - asked
    return any(abs(i - j) <= near for i in at for j, w in enumerate(said) if w.casefold() in named) or any(
        0 < j - i <= 2 for i in kin for j, w in enumerate(said) if w.casefold() in people)

# Money asked without a money verb: "how much money did the incentive give me?", "how much are tickets…?"
_AB_MONEY_ASKED = re.compile(r"\bhow much money\b|\bhow much (?:is|are|was|were)\b.*\btickets?\b", re.IGNORECASE)


def _ab_unpriced(question: str, notes: Sequence[Note]) -> bool:
    """Whether money is asked and no note says an amount as money ("How much are tickets for the Messiah
    concert?": not "…Handel's Messiah, on the 13th of December")."""
    if not (_MONEY.search(question) or _AB_MONEY_ASKED.search(question)):
        return False
    for n in notes:
        tokens = n.text.replace("’", "'").split()
        plain = [_bare(t) for t in tokens]
        if any(re.search(r"\d", w) and _priced(plain, i, tokens[i]) and not _dated(plain, i)
               for i, w in enumerate(plain)):
            return False
    return True


_AB_COUNTS = word_set("times people guests kids")  # (of `_UNITS`: what is counted, not measured)
_AB_KIN_COUNTED = word_set("children siblings grandkids")
_AB_COUNT_ASKED = re.compile(r"^\W*how many\b|^\W*(?:what|which)\b.*\bnumber\b", re.IGNORECASE)
_AB_AGE_ASKED = re.compile(r"\bhow old\b|\bage\b|\bbirthday\b|\byears?\b|\bwhen\b", re.IGNORECASE)


def _ab_numbers_of_another_kind(question: str, notes: Sequence[Note]) -> bool:
    """Whether a count or a number is asked ("how many people sing in my choir?", "what number does Jonah
    wear?") and every number the notes say is an age, a day of a date, a year or a time of day ("Jonah is
    nine", "14 june 2009", "the concert is on 20 December at 7")."""
    if not _AB_COUNT_ASKED.search(question) or _AB_AGE_ASKED.search(question) or _MONEY.search(question):
        return False
    many = _HOW_MANY.search(question)  # "how many kilos is Pixie now?": "Pixie is 24 kilos" is no age
    if many and (many[1].casefold() in _UNITS - _AB_COUNTS | _WEIGHT or _measure_asked(question)):
        return False
    if many and (covers(_KIN_STEMS, stem(many[1].casefold())) or many[1].casefold() in _AB_KIN_COUNTED):
        return False  # "how many kids do I have?": "twin girls, Noor and Sara, they turn 4" counts them
    numbered = _NUMBER_OF.search(question)  # "my mom's room number": the notes that say the room, if any do
    noun = stem(numbered[1] or numbered[2]) if numbered else ""
    notes = [n for n in notes if covers(n.stems, noun)] or notes if noun else notes
    for n in notes:
        text = n.text.replace("’", "'")
        ages = [m.span() for m in _AGE_SAID.finditer(text)]
        spans = list(re.finditer(r"\S+", text))
        plain = [_bare(m[0]) for m in spans]
        for i, (m, w) in enumerate(zip(spans, plain, strict=True)):
            if not (re.fullmatch(r"\d[\d,.]*", w) or w in _COUNTED):
                continue
            after = plain[i + 1] if i + 1 < len(plain) else ""  # "about 80 guests" counts; "at 7 tonight" is a time
            counts = after.isalpha() and after not in STOP | _AB_CLOCK_WORDS and not is_calendar(after)
            if (any(a <= m.start() < b for a, b in ages) or _dated(plain, i) or re.fullmatch(r"(?:19|20)\d\d", w)
                    or (i and plain[i - 1] in _AT_TIME and not counts) or CLOCK_TIME.fullmatch(w)):
                continue
            return False
    return True


_AB_CLOCK_WORDS = word_set("am pm o'clock oclock tonight sharp ish this tomorrow today in")


# A rate asked per a measure: "what milk price do we get per litre?" (not "EUR 2,400 per month")
_AB_PER_MEASURE = re.compile(r"\b(?:per|a|an|each)\s+(litre|liter|kilo|kg|kilogram|gallon|tonne|ton|acre|hectare)s?\b",
                             re.IGNORECASE)


def _ab_measure_unsaid(question: str, notes: Sequence[Note]) -> bool:
    """Whether the question asks an amount per a measure no note says."""
    m = _AB_PER_MEASURE.search(question)
    unit = m[1].casefold() if m else ""
    forms = {unit, unit.replace("litre", "liter"), unit.replace("liter", "litre")}
    forms |= {"kg", "kilo"} if unit in ("kg", "kilo", "kilogram") else set()
    return bool(m) and not any(re.search(rf"\b(?:{'|'.join(forms)})s?\b", n.text, re.IGNORECASE) for n in notes)


def _ab_drug_unsaid(question: str, notes: Sequence[Note]) -> bool:
    """Whether the question names a medicine no note says ("What dose of insulin does my father take?": not
    "furosemide 20 mg… for my father")."""
    drugs = {d.casefold() for d in _DRUG.findall(question)} - word_set("antibiotic antibiotics inhaler")
    drugs -= word_set("antihistamine antihistamines")
    return bool(drugs) and not any(d in n.text.casefold() for d in drugs for n in notes)


# A look asked of a thing: "what size are my running shoes?", "what brand were the hornet traps i bought?"
_AB_LOOK_ASKED = re.compile(
    r"^\W*what\s+(?:size|brand|colou?r|model|make|breed)\s+(?:is|are|was|were)\s+(?:the|my|our|his|her|their)\s+"
    r"((?:[a-z-]+\s+){0,2}?[a-z-]+)(?=\s+(?:i|we|he|she|they|you|that|of|from)\b|\W*$)",
    re.IGNORECASE,
)


def _ab_look_of_unsaid(question: str, notes: Sequence[Note], typed: Sequence[Note]) -> bool:
    """Whether the thing whose size, brand or colour is asked is said in no note, or in none that gives one
    ("what color is the Corolla of Marcos?": not "Marcos drive a Chevrolet Spin, silver color")."""
    m = _AB_LOOK_ASKED.search(question)
    head = m[1].split()[-1].casefold() if m else ""
    if not head or head in STOP:
        return False
    holders = {n.ref for n in notes if covers(n.stems, stem(head))}
    return not holders or (bool(typed) and not any(n.ref in holders or n.after in holders for n in typed))


def _ab_place_of_another(sit: Situation, chosen: Sequence[_Scored]) -> bool:
    """Whether the place whose name is asked of someone named ("what school does Kylie go to?") is said only
    in notes that name others and not them ("Luke got a part in the school christmas play"; "Kuba… his
    school, Greenholm Academy")."""
    noun = _named_noun(sit.text)
    names = {w.casefold() for n in sit.names for w in n.split()} - _BEFORE_NAME  # ("Dr. Lefèvre": Lefèvre)
    owned = [m for m in re.finditer(r"\b(\w+)['’]s\s", sit.text) if m[1].casefold() not in STOP | _WH]
    if not noun or not names or owned:  # ("Marco's sister": found through Marco)
        return False
    saying = [c for c in chosen if covers(c.note.said, stem(noun))]
    return bool(saying) and all(  # (a document's lines are of whoever it is about: not a told note's)
        c.note.source != "chunk" and not _opens_on_pronoun(c.note.text)
        and not names & {re.sub(r"['’]s$", "", w.casefold()) for w in words(f"{c.note.text} {c.read}")}
        and any(not names & set(p.casefold().split()) and not is_calendar(p) for p in people_in(c.note.text))
        for c in saying
    )


# The name of someone asked, whose word is not a relation's: "What's babcia's first name?"
_AB_NAME_OF = re.compile(r"\b(\w+)['’]s\s+(?:first|full|last|middle|real|maiden|sur)\s*name\b", re.IGNORECASE)


def _ab_name_of_unsaid(question: str, chosen: Sequence[_Scored]) -> bool:
    """Whether the one whose own name is asked is said in no note ("What's babcia's first name?": not
    "…physio at Good Hope, first appointment is Wednesday 9 December")."""
    m = _AB_NAME_OF.search(question)
    owner = m[1].casefold() if m else ""
    if not owner or owner in STOP | _ME or stem(owner) in _KIN_STEMS:
        return False
    return not any(covers(frozenset(map(stem, words(t))), stem(owner)) for c in chosen for t in (c.note.text, c.read))


_AB_STREET = re.compile(
    r"\b(?:address|street|st|road|rd|avenue|ave|av|avenida|lane|ln|calle|rue|via|close|crescent|boulevard|blvd"
    r"|terrace|postcode|zip|\w*(?:straat|weg|strasse|straße|gatan|gata|gade|vej|veien))\b", re.IGNORECASE)


def _ab_address_unsaid(question: str, notes: Sequence[Note]) -> bool:
    """Whether an address is asked and no note says one ("What's Pieter's home address?": not "Pieter's house
    has a leak in the roof"; "the station… Av. Costanera 1450" says one)."""
    return re.search(r"\baddress\b", question, re.IGNORECASE) is not None and not any(
        _AB_STREET.search(n.text) for n in notes)


_AB_ROLES = (_ROLE_SHAPE, _ROLE_VERB, _ROLE_BARE, _NAMED_ROLE, _OWN_BUSINESS, _ROLE_IN_BRACKETS, _WORKS_AS, _AT_WORK)


def _ab_job_unsaid(sit: Situation, chosen: Sequence[_Scored]) -> bool:
    """Whether a job asked of someone named is said in no sentence about them ("What does Hamish do for a
    job?": not "my old housemate Hamish said he'll dogsit", nor "Ziggy's vet is Merri vet clinic"; "What does
    Emeka do for work?": not "Emeka's company transferred him")."""
    names = {n.split()[0].casefold() for n in sit.names}
    if sit.about_me or not names:
        return False
    for c in chosen:
        if any(m[1].casefold() in names for m in _CALLS.finditer(c.note.text)) and any(
                r.search(c.note.text) for r in _AB_ROLES):  # "…is a retired nurse… The kids call her Gogo."
            return False
        read = c.read.removesuffix(f" ({c.note.text})")  # (the read names kin for names, then the note)
        for text, follow in ((c.note.text, True), (read, False)):
            if any(_ab_job_said(part, names, before if follow else "-")
                   for before, part in itertools.pairwise(["", *sentences(text)])):
                return False
    return True


def _ab_job_said(part: str, names: set[str], before: str) -> bool:
    """Whether a sentence says a job of one of `names`: naming them, or going on about them as the first
    named in the sentence before ("…Adaeze lives in Lagos with her husband Emeka. she's an accountant")."""
    said = {re.sub(r"['’]s$", "", w) for w in words(part)}  # ("Hamish's job…")
    first = [p.split()[0].casefold() for p in people_in(before)][:1]
    about = (_opens_on_pronoun(part) and not before) or (  # ("Eleni got promoted! from January she is…")
        _SUBJECT_PRONOUN.search(part) is not None and bool(set(first) & names))
    if names & said or about:
        return any(r.search(part) for r in _AB_ROLES) or bool(ROLE_STEMS & _said(part))  # (the very word)
    return False


# --- twenty-third session, abstain: attributes the notes never say of what they mention ---
_AB_OWNER = r"\b(my|our|his|her|their|[\w-]+['’]s)\s+"
_AB_POSSESSOR = re.compile(rf"{_AB_OWNER}$|{_AB_OWNER}(?!(?:my|our|his|her|their)\s)[a-z0-9-]+\s+$", re.IGNORECASE)


def _ab_own_as_anothers(sit: Situation, notes: Sequence[Note]) -> bool:
    """Whether the person's own thing asked ("When's my birthday?") is said only as another's in the notes that
    say it ("Her birthday's 12 January"; "mama's birthday"), never as theirs or without an owner. Not of one
    told from others by a word ("my old car" may be said by its name: "Sold the Micra… for his first car")."""
    if not (sit.about_me and sit.chain == 1 and len(sit.heads) == 1) or not re.search(
            rf"\bmy\s+{re.escape(sit.heads[0])}", sit.text, re.IGNORECASE):
        return False
    owners = [
        _AB_POSSESSOR.search(n.text[: m.start()][-40:])
        for n in notes for m in re.finditer(r"[\w'’-]+", n.text) if stem(m[0]) == sit.heads[0]
    ]  # fmt: skip
    return bool(owners) and all(
        o is not None and (o[1] or o[2]).casefold() not in ("my", "our")
        and not (o[1] or o[2]).casefold().endswith(("user's", "user’s"))
        for o in owners
    )


_AB_YEARLY_ASKED = re.compile(r"\b(?:when|what day|what date|which day)\b.*\b(?:birthday|anniversary|name ?day)\b",
                              re.IGNORECASE)
_AB_DAY_SAID = re.compile(r"\b(?:\d{1,2}(?:st|nd|rd|th)|\d{1,2}[./-]\d{1,2})\b")


def _ab_no_day_said(question: str, notes: Sequence[Note]) -> bool:
    """Whether a day of the year is asked ("When's my birthday?") and no note says a day or a month ("I was
    born the year after" says a year only)."""
    return _AB_YEARLY_ASKED.search(question) is not None and not any(
        _AB_DAY_SAID.search(n.text) or set(_plain(n.text)) & (_MONTHS | _WEEKDAYS) for n in notes)


_AB_CALLED_ASKED = re.compile(rf"^\W*(?i:what)\s+(?:is|was|['’]s)\s+({NAME_WORD})\s+(?:called|named|known as)\b")
_AB_NAMING = re.compile(
    r"\b(?:name (?:is|was)|name['’]s|named|called|known as|nicknamed|renamed)\s+(?:(?:it|him|her|them)\s+)?"
    r"(?:the\s+)?['‘\"“]?([A-ZÀ-ÞĀ-Ž][\w'’-]*)"
)


def _ab_renamed_unsaid(question: str, notes: Sequence[Note]) -> bool:
    """Whether what someone named was called ("What was Zaatar called at the SPA?") is said by no note: none
    names them by another name ("He came from the SPA de Lyon" does not)."""
    m = _AB_CALLED_ASKED.match(question)
    return m is not None and not any(
        n2[1].casefold() != m[1].casefold() for n in notes for n2 in _AB_NAMING.finditer(n.text))


_AB_DUE_ASKED = re.compile(
    r"^\W*(?:what(?:['’]s|\s+is|\s+was|\s+are|\s+were)|how much(?:\s+is|\s+was|\s+are|\s+were)?)\s+"
    r"(?:the|my|our|his|her|their|\w+['’]s)\s+(?:[a-z]+\s+)?(?:payment|instal+ment|rent|fee|salary|wage|premium"
    r"|bill|deposit|mortgage|pension|allowance)s?\b(?!\s+(?:date|day|method|schedule|plan|terms))",
    re.IGNORECASE,
)


def _ab_amount_unsaid(question: str, notes: Sequence[Note]) -> bool:
    """Whether an amount of money is asked by what it is ("what's my monthly payment on the loan") and no note
    says any number (a heading, "Payment Schedule"), or, of one asked by how often it is due, says that
    ("Deposit (40%), due at signing: $39,626.92" is no monthly payment)."""
    if _AB_DUE_ASKED.search(question) is None:
        return False
    rate = _AB_RATE_ASKED.search(question)
    return not any((re.search(r"\d", n.text) or set(_plain(n.text)) & _NUMBER_WORDS)
                   and (not rate or re.search(rf"\b{rate[1]}|/\s*{rate[1][:2]}\b", n.text, re.IGNORECASE))
                   for n in notes)


_AB_RATE_ASKED = re.compile(r"\b(month|week|year|annual|fortnight|quarter)(?:ly)?\b", re.IGNORECASE)


_AB_SAID_OTHERWISE = word_set("work live stay grow come")  # a job, a home: "What did Donal work at…": "was a…"
_AB_DEED_ASKED = re.compile(rf"^\W*(?i:what|where)\s+(?i:did)\s+({NAME_WORD})\s+([a-z]{{3,}})\b")


def _ab_deed_unsaid(question: str, notes: Sequence[Note], reads: Sequence[str]) -> bool:
    """Whether what or where someone named did something ("What did Wietske study?", "Where did Hugh propose
    to Sébastien?") is asked and no note says the deed in any form (the verb's first letters)."""
    m = _AB_DEED_ASKED.match(question)
    if m is None or m[2] in STOP | _LIGHT_VERBS | _DID_ALONE | _AB_SAID_OTHERWISE or m[2].endswith("ly"):
        return False
    base = stem(m[2]).rstrip("eiy")[:5]
    return len(base) >= 3 and not any(
        w.startswith(base) or stem(w) in related_stems(stem(m[2])) for t in (*(n.text for n in notes), *reads)
        for w in words(t))


_AB_RESULT_TIME = re.compile(r"\b(?:my|his|her|their|our|\w+['’]s)\s+(?:finish(?:ing)?\s+|final\s+|race\s+)?time\b",
                             re.IGNORECASE)
_AB_DURATION = re.compile(r"\b\d{1,2}:\d\d\b|\b\d+\s*(?:min|h\b|hours?)", re.IGNORECASE)
_AB_TIME_IDIOM = re.compile(
    r"\b(?:this|that|next|last|first|second|every|each|any|some|one|a|the\s+first|all\s+the|on|in|no|from)\s+time\b",
    re.IGNORECASE)


def _ab_result_time_unsaid(question: str, notes: Sequence[Note]) -> bool:
    """Whether someone's time in an event is asked ("What was my time in the Bryanston 10km?") and the notes
    say "time" only in a turn of phrase ("no excuses this time", "3km at a time") and no clock or duration."""
    if not _AB_RESULT_TIME.search(question):
        return False
    for n in notes:
        said = len(re.findall(r"\btimes?\b", n.text, re.IGNORECASE))
        if said > len(_AB_TIME_IDIOM.findall(n.text)) or _AB_DURATION.search(n.text):
            return False
    return True


_AB_MARK_ASKED = re.compile(r"\bwhat\s+(?:grade|mark|score)\s+did\b", re.IGNORECASE)
_AB_SCHOOL_YEAR = re.compile(r"\b\d{1,2}(?:st|nd|rd|th)\s+grade\b|\bgrade\s+\d{1,2}\b", re.IGNORECASE)


def _ab_mark_as_school_year(question: str, notes: Sequence[Note]) -> bool:
    """Whether a mark got is asked ("What grade did Andrei get in his mock bac?") and the notes say a grade only
    as a school year ("in 12th grade")."""
    if not _AB_MARK_ASKED.search(question):
        return False
    grades = [n.text for n in notes if re.search(r"\b(?:grade|mark|score)s?\b", n.text, re.IGNORECASE)]
    return bool(grades) and all(
        len(re.findall(r"\b(?:grade|mark|score)s?\b", t, re.IGNORECASE)) == len(_AB_SCHOOL_YEAR.findall(t))
        for t in grades)


def _ab_fee_of_another(question: str, typed: Sequence[Note], priced: Sequence[str]) -> bool:
    """Whether a price paid is asked, no due ("how much did i pay for the kimchi cowboy truck originally?"), and
    each amount the notes give is a due of its own ("renewed the Kimchi Cowboy health permit… $590 fee"), in a
    note that does not say the thing priced (its last word: "the health permit" is what the fee is for)."""
    if not _MONEY.search(question) or _MONEY_NOUN.search(question) or not typed or not priced:
        return False
    for n in typed:
        if covers(n.stems, priced[-1]):
            return False
        for amount in candidates(n.text, "number", question):
            said = rf"[$€£]?{re.escape(amount)}"
            due = rf"{_MONEY_NOUN.pattern}\W+(?:\w+\W+)?{said}|{said}\W+(?:\w+\W+)?{_MONEY_NOUN.pattern}"
            if not re.search(due, n.text, re.IGNORECASE):
                return False
    return True


_AB_BOUND = r"(?:above|over|under|below|more than|less than|up to|at least|at most|exceeding|maximum|minimum|max|min)"


def _ab_bound_only(question: str, typed: Sequence[Note], priced: Sequence[str]) -> bool:
    """Whether what a price is asked of is said in no note that gives an amount, and each amount given is a bound
    ("How much did the milking robot cost us?": not "Investments above EUR 25,000… need the agreement of all
    partners", of the same document as "the robot milking system (2018)")."""
    if not priced or not typed or any(covers(n.stems, t) for n in typed for t in priced):
        return False
    return all(
        re.search(rf"\b{_AB_BOUND}\s+(?:[A-Z]{{3}}\s+|[$€£])?{re.escape(amount)}", n.text, re.IGNORECASE)
        for n in typed for amount in candidates(n.text, "number", question))


_AB_SPENT_DOING = re.compile(
    r"\b(?:spend|spent|pay|paid)\s+(?:on\s+)?([a-z]{3,})ing\b|\bcost\s+(?:\w+\s+)?to\s+([a-z]{3,})\b", re.IGNORECASE)
_AB_MEANT = r"(?:wants?|wanted|going|gonna|plans?|planning|planned|hopes?|hoping|will|['’]ll|would like|intends?)"


def _ab_deed_only_meant(question: str, notes: Sequence[Note]) -> bool:
    """Whether what doing something cost is asked ("how much did Giorgos spend fixing the hilux gearbox?") and
    the notes say the deed only as meant ("he wants to fix the gearbox himself"), not done."""
    m = _AB_SPENT_DOING.search(question)
    if not m or re.search(rf"\b{_AB_MEANT}\b", question, re.IGNORECASE):
        return False
    verb = (m[1] or m[2]).casefold()
    said = [(n.text, w.start()) for n in notes for w in re.finditer(rf"\b{re.escape(verb)}\w*", n.text, re.IGNORECASE)]
    return bool(said) and all(
        re.search(rf"\b{_AB_MEANT}\s+(?:to\s+)?$", text[:start][-30:], re.IGNORECASE) for text, start in said)


def _ab_opponent_unsaid(question: str, notes: Sequence[Note]) -> bool:
    """Whether whom someone played against is asked ("who was benja playing against when he hurt his ankle?")
    and no note says an opponent ("plays in the O'Higgins youth team" is his own team)."""
    return re.search(r"^\W*who\b.*\bagainst\b", question, re.IGNORECASE) is not None and not any(
        re.search(r"\b(?:against|vs|versus|v)\b\.?\s*(?:the\s+)?[A-ZÀ-ÞĀ-Ž0-9]", n.text)
        or re.search(rf"\b(?:play|played|playing|beat|lost to)\s+(?:the\s+)?{NAME_WORD}", n.text) for n in notes)


_AB_ACRONYM_ASKED = re.compile(r"^\W*(?i:which|what)\s+([A-Z]{2,5})s?\b")


def _ab_acronym_unnamed(question: str, notes: Sequence[Note]) -> bool:
    """Whether the one of a kind said by its letters is asked ("Which HMO will cover me at Kesandu?") and each
    note that says the kind names none beside it ("covered under the Hospital's HMO scheme": an owner's
    word, not a name; "the Hygeia HMO" names one)."""
    m = _AB_ACRONYM_ASKED.match(question)
    if m is None:
        return False
    asked = {w.casefold() for w in words(question)}
    saying = [n.text for n in notes if re.search(rf"\b{m[1]}s?\b", n.text)]
    for text in saying:
        for k in re.finditer(rf"\b{m[1]}s?\b", text):
            near = text[max(0, k.start() - 30) : k.end() + 30]
            if any(w.casefold() not in asked and not re.search(rf"\b{re.escape(w)}['’]s\b", near)
                   for w in names_in(near) if w != m[1] and not is_calendar(w.casefold())):
                return False
    return True  # (or no note says the kind at all)


_AB_WHERE_I = re.compile(r"\bname of the ([a-z]+) where (?:i|we) ([a-z]+)\b", re.IGNORECASE)


def _ab_where_i_unnamed(question: str, notes: Sequence[Note]) -> bool:
    """Whether the name of a place is asked by what the person does there ("what's the name of the school where I
    teach maths") and the notes that name one are none the person's own ("Ishaan started 1st standard at
    Sahyadri Valley School" is the grandson's)."""
    m = _AB_WHERE_I.search(question)
    if m is None:
        return False
    naming = [n.text for n in notes if any(
        re.search(rf"\b{re.escape(w)}\b(?:\W+\w+){{0,3}}?\W+{m[1]}\b|\b{m[1]}\b(?:\W+\w+){{0,6}}?\W+{re.escape(w)}\b",
                  n.text, re.IGNORECASE) for w in names_in(n.text))]  # fmt: skip
    return not any(is_first_person(t) for t in naming)


# The role a person is asked by, one word long, at the end or before a preposition: "who's the captain on…"
_ROLE_ALONE = re.compile(
    r"^\W*who(?:['’]s|\s+is|\s+was|\s+are)\s+(?:the|my|our|his|her|their|\w+['’]s)\s+([a-z]+)"
    r"(?:\s+(?:on|at|of|in|for|from|with)\b|\W*$)"
)
# The role a person is asked by, two words long, and its head: "who's Anto's violin teacher?" (teacher).
_ROLE_HEAD = re.compile(
    r"^\W*who(?:['’]s|\s+is|\s+was|\s+are)\s+(?:the|my|our|his|her|their|\w+['’]s)\s+[a-z]+\s+([a-z]{3,})"
    r"(?:\s+(?:now|again|these days|currently|at the moment|nowadays))?\W*$"
)
_RELATIONS = frozenset(stem(w) for w in (*WHO, *word_set(
    "godson goddaughter godmother godfather godchild stepson stepdaughter stepmum stepmom stepdad stepfather "
    "stepmother classmate adviser advisor fiance fiancee future ex former in-law in-laws")))


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
    if not all(all(p in _RELATIONS or stem(p) in _RELATIONS for p in m.split("|")) for m in missing):
        return refused
    if len(missing) == len(ask.hard):
        return refused  # "what does my sister do?" with no sister told: nobody the question is anchored on
    if set(ask.attributes) & NAMING_STEMS or ask.answer_type in ("person", "number"):
        return refused  # "what's Pavlos' wife called?": the wife is what is asked, not who it is asked of
    loose = replace(ask, hard=tuple(h for h in ask.hard if h not in missing))
    scored = _scored(sit, loose, notes, known)
    if not scored:
        return refused
    ranked = sorted(scored, key=_Scored.key, reverse=True)
    untold = {m for m in missing if not any(m in n.stems for n in notes)}  # (not "Easter at dad's")
    found = _verdict(_unheaded(sit, untold), loose, _join(ranked[0], ranked, loose))
    if found.verdict != "answer" or not _of_a_name(sit, missing, found.notes):
        return refused
    return Evidence("answer", found.notes, "low", "assumed who: " + ", ".join(sorted(missing)), refused.missing)


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
