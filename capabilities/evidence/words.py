"""The words the evidence policy reads notes and questions by, shared by the choice of notes and
its refusals: `Note`, `Ask`, `Evidence`, and the patterns of kin, jobs, names, dates and amounts.

Names with a leading underscore are the package's own (`capabilities.evidence`), not its API.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from capabilities.situation import (
    CATEGORIES,
    DESCRIBERS,
    NAME_WORD,
    STOP,
    Situation,
    introduced,
    names_in,
    related_stems,
    root,
    stem,
    word_set,
    words,
)
from capabilities.truecase import WHO, plausible_name, uncased
from memory.formation.patterns import NATIONALITY, NOT_AN_END, sentences
from memory.formation.plan import asks

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

SURNAME = stem("surname")  # ("last name", "family name" are read as it: see `read_ask`)

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

# Nouns after which/what that ask for a description no note names as such ("what breed is Miso?").
_DESCRIPTIVE = word_set("breed kind type sort colour color model brand make size shape style")

KIND = "kind"  # the attribute a descriptive question asks: met by a description ("Miso, a grey British shorthair")
_KIND_SHAPE = re.compile(
    r"(?:,|\b(?:is|was|are|were)|['’]s)\s+(?:an?|our|my)\s+(?!lot\b|bit\b|few\b|couple\b)[a-z]", re.IGNORECASE
)

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
    r"\b([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)(?:'s|\s+is|(?:\s+is\s+\d{1,3})?,(?:\s*(?:(?:she|he)\s+is\s+)?\d{1,3},)?)"
    r"\s+(?:our|my)\s+([a-z]+(?:-[a-z]+)*)"
    r"(?:\s+([a-z]+))?"
)

_LIGHT_VERBS = word_set(
    "go get have make take keep need want like tell say mention talk speak write ask remember know think see"
)  # said in too many ways to require ("do I see the physio": "physio is Thurs at 4:30"), or about the telling

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

_LOCATIVE = word_set("at in from to near on into outside")  # ("just outside Hantumhuizen")
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
# A post held in a body, said with "the": "I am the treasurer of our ice club", "she's the head chef at Orla's"
# (a person is its subject: not "it is the center of town")
_ST_ROLE_THE = re.compile(
    r"\b(?:(?i:i['’]m|i\s+am|he['’]s|he\s+is|she['’]s|she\s+is|i\s+was|he\s+was|she\s+was)|[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+"
    r"\s+(?i:is|was))\s+(?i:now\s+|still\s+|also\s+)?(?i:the)\s+(?i:(?:\w+\s+)?" + _JOB_WORD
    + r")\s+(?i:of|at|for|in)\b"
)
# Someone named said to be a job-shaped word: "Sipho is a civil engineer at…" is about his work (not
# "Miso is a grumpy tabby").
_NAMED_ROLE = re.compile(
    r"\b[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+\s+(?i:is|was)\s+(?i:now\s+)?(?i:an?\s+)((?i:\w+\s+)?(?i:" + _JOB_WORD + r"))\b"
)
# A job said as what someone does: "He fishes lobster out of Lunenburg", "she teaches maths".
# (also after "who": "married to Cristi who does tiling and bathrooms", a trade said as the work one does, with
# no article: not "who does the cooking", "does most of it", "does nothing")
_ROLE_VERB = re.compile(
    r"\b(?:he|she|they|i|who|[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)\s+(?:now\s+|still\s+|also\s+)?"
    r"((?:teach|fish|farm|nurse|lecture|tutor|coach|preach|practis|practic)(?:es|s)?\s+\w+"
    r"|(?:does|do)\s+(?!(?:no|some|any|every)thing\b)\w{3,}ing\b"
    r"|(?:drives?|runs?|owns?|manages?)\s+(?:a|an|the|his|her|their)\s+(?:\w+\s+)?\w+"
    # "drives trams", "fixes bikes"
    r"|(?:drive|fix|repair|build|design|sell|deliver|install)(?:es|s)\s+(?!it\b|them\b|me\b|us\b)\w+s\b"
    r"|works?\s+(?:at|for|in)\s+(?:the\s+)?\w+)",
)
# A job said beside a name, with no verb: "my sister is Daniela, 2 yrs younger, nurse at the county hospital",
# "Marco, an electrician in Leeds" (a doer's word and where it is done; not kin: "Dana, sister in Leeds")
_RC_ROLE_APPOSED = re.compile(
    r"\b[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+,\s+(?:[\w ]{1,24},\s+)?(?:an?\s+)?"
    r"(?!(?i:\w*(?:sister|brother|mother|father|daughter|partner|lover)s?\b))((?i:" + _JOB_WORD
    + r"))\s+(?i:at|in|for|with|on)\s+(?i:the\s+|a\s+)?\w"
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

_CLOCK = re.compile(
    r"\b\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\b(?:noon|midday|midnight)\b", re.I
)  # "7.30am", "8 pm", "11:30"
_DAY_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"

_DESCRIBER = "(?:" + "|".join(sorted(DESCRIBERS)) + r")\s+"

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
                   or _NAMED_ROLE.search(self.text) or _mh_started_at(self.text) or _RC_ROLE_APPOSED.search(self.text))
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

    @classmethod
    def unknown(cls, reason: str, missing: tuple[str, ...] = ()) -> Evidence:
        """No answer: "I don't know", with the reason a person can read and the key words none held."""
        return cls("unknown", (), "low", reason, missing)


def covers(note_stems: frozenset[str], term: str) -> bool:
    """Whether a note's stems include a term or a word of its group."""
    return bool(related_stems(term) & note_stems)


def is_question(text: str) -> bool:
    """Whether a stored text is itself a question (it states no fact), with or without its question mark
    ("what team is my boyfriend into", stored before the write-time filter knew it)."""
    return (bool(_QUESTION.match(text.strip())) or asks(text)  # (not "…, isn't she cute?": a told fact ends so)
            or _ST_HOW_LONG_HAVE.match(text) is not None or _MC_ASKED.match(text) is not None)


# "how long have me and Anneke been married": a question asked before, stored without its question mark
_ST_HOW_LONG_HAVE = re.compile(r"^\W*how\s+(?:long|many|much|often)\s+(?:have|has|had)\b", re.IGNORECASE)
# "which day is my granddaughter's party", "why did Fraser's teacher go off": asked before, stored without its
# question mark. "which" asks when a noun follows it and then the verb (not "which means we're moving", "which
# the kids loved", "Which Hannah is thrilled about": a told sentence goes on from the one before)
_MC_AUX = r"(?:do|does|did|is|are|was|were|am|can|could|should|would|will|has|have|had)"
_MC_NOT_ASKED = (r"(?!(?:the|a|an|my|our|his|her|their|its|this|that|these|those|i|you|he|she|we|they|it|me|him|us"
                 r"|them|means|meant|mean|made|makes|make)\b)")
_MC_ASKED = re.compile(  # (the noun in lower case, then up to two words: "which part of Tromsø do we live in")
    rf"^\W*(?:why\s+{_MC_AUX}|which\s+{_MC_NOT_ASKED}(?-i:[a-z])[\w-]*(?:\s+{_MC_NOT_ASKED}[\w’'-]+){{0,2}}?"
    rf"\s+{_MC_AUX})\b",
    re.IGNORECASE,
)


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


# Words said between an owner and the thing owned that are no thing themselves: "Ursu's next rabies
# booster" is a booster of Ursu's, "Gogo's actual birthday" a birthday.
_TP_BEFORE_THING = (r"(?:favourite|favorite|new|old|best|next|last|first|latest|upcoming|current|previous|actual"
                    r"|real|own|usual|regular)")


def _name_chains(text: str) -> list[str]:
    """'Priya's birthday' → priya, birthday; "Jonas's workshop" → jonas, workshop."""
    out: list[str] = []
    for m in re.finditer(r"\b(" + NAME_WORD + r")['’]s\s+(?:" + _TP_BEFORE_THING + r"\s+)?([a-zà-ÿ]+)", text):
        if m.group(1).casefold() not in STOP | _WH and m.group(2) not in STOP:
            out += [stem(m.group(1)), stem(m.group(2))]
    return out


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

_WHO_ROLE = re.compile(r"^\W*who(?:['’]s|\s+is|\s+was|\s+are)\s+(?:the|my|our|his|her|their|\w+['’]s)\s+([a-z]+)\b")


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


_MONEY = re.compile(
    r"\b(?:pay|paid|cost|costs|price|spend|spent|deposit|rent|fee|charge|owe|worth|salary|earn|tax|bill|sell|sold"
    r"|(?:get|got) for|trad(?:e|ed|ing) in)\w*"
    r"|\bhow much\b.*\b(?:make|makes|made|making)\b",  # "how much did I make per hour…" asks for pay
    re.IGNORECASE,
)

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
    "euro dollar php usd eur gbp inr aud cad nzd zar"  # ("it will be 420 euro to fix": said singular too)
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
        return bool(shapes) or any(r.search(note.text)
                                   for r in (_ROLE_VERB, _ROLE_BARE, _MY_ROLE_VERB, _OWN_BUSINESS, _ST_ROLE_THE,
                                             _RC_ROLE_APPOSED))
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


def people_in(text: str) -> list[str]:
    """The names in a text that may be people: not a place said after at/in/to ("deputy head at Leith
    Walk Primary", "went out to Canada")."""
    places = {m.group(1) for m in re.finditer(r"\b(?:at|in|to|from|near|into)\s+(?:the\s+)?([A-ZÀ-ÞĀ-Ž][\w ]*)", text)}
    # (nor a shout: "BIG news for ruaridh", "AND gloria called" name Ruaridh and Gloria, not BIG or AND)
    return [n for n in names_in(text) if not any(p.startswith(n) for p in places) and not _shout(n)]


def _shout(name: str) -> bool:
    first = name.split()[0]
    return len(first) > 2 and first.isupper()


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


# A birthday said as the age to come on a day: "I shall be 71 myself on the 3rd of February", "He is 74
# now and will be 75 on the 19th", "Tom turns 40 on the 2nd", "she turned 9 on 3 May" (not "be 10 minutes on
# the bus", "be back on the 3rd")
_AGE_ON_A_DAY = re.compile(
    r"\b(?:be|turns?|turning|turned)\s+" + _AGE_NUMBER
    + r"(?:-[a-z]+)?\b(?!\s*(?:kg|km|cm|%|hours?|minutes?|mins?|days?|weeks?|months?|times?"
    r"|am|pm|o'clock)\b|[.:]\d)\s+(?:[a-z]+\s+)?on\s+(?:the\s+)?(?:\d|" + _DAY_MONTH + r")",
    re.IGNORECASE,
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


def _done_by_another(part: str, asked: Sequence[str]) -> bool:
    """Whether the word asked is said right after a she/he/they ("my sister is called Rachel, she lives in
    York": the sister lives there), with no I or we between."""
    tokens = re.findall(r"[\w'’]+", part)
    at = next((i for i, w in enumerate(tokens) if any(covers(_said(w), t) for t in asked)), None)
    before = [w.casefold() for w in tokens[max(0, (at or 0) - 3) : at or 0]]
    return bool(before) and bool({"she", "he", "they"} & set(before)) and not {"i", "we", "i'm", "we're"} & set(before)


_PEOPLE = word_set(
    "boyfriend girlfriend husband wife partner fiance fiancee son daughter kid child friend brother sister mum mom "
    "mother dad father colleague boss neighbour neighbor roommate flatmate"
)
_PEOPLE_STEMS = frozenset(stem(w) for w in _PEOPLE)
_KINDS = frozenset().union(*CATEGORIES.values(), CATEGORIES, _PEOPLE)  # what a name may be said to be
# "AND he's engaged!! his fiancee Jade…" after "Callum's flights got moved": Callum's fiancee, when
# the pronoun before it names nobody.
_SUBJECT_PRONOUN = re.compile(r"\b(?:he|she|they)\b", re.IGNORECASE)

_SOMEONE = WHO | word_set("guy lad man woman lady girl boy bloke fella chap person one someone nurse mechanic owner")

_KIN_STEMS = frozenset(stem(w) for w in (*_PEOPLE, *WHO))  # the words someone may be named by as another's


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


def _named_as_kin(note: Note, read: str, ask: Ask, question: str) -> bool:
    """Whether a note names the person's own kin asked by the name it reads as them: "Gareth's wife Nia
    and their son Rhys", read "… and their son my nephew" (Rhys is the one the person's notes make their
    nephew), names the nephew for "what's my nephew called?", though the word "nephew" is nowhere in it
    (not for "what's Mitch's wife called?": "my wife" in a reading is the person's own)."""
    kin = re.escape(ask.hard[-1]) if ask.hard else ""
    return bool(kin) and re.search(rf"\b(?:my|our)\s+(?:{_DESCRIBER})?{kin}", question, re.IGNORECASE) is not None \
        and re.search(rf"\bmy\s+{kin}", read, re.IGNORECASE) is not None \
        and not re.search(rf"\b{kin}", note.text, re.IGNORECASE)


_RELATIONS = frozenset(stem(w) for w in (*WHO, *word_set(
    "godson goddaughter godmother godfather godchild stepson stepdaughter stepmum stepmom stepdad stepfather "
    "stepmother classmate adviser advisor fiance fiancee future ex former in-law in-laws")))
