"""What a message is, read without a model: the shared first step of every judgement policy.

A 135M model cannot tell a "thanks" from a question about the person's life (it asked for the
same context on every turn), so the policies read the message themselves: its kind (thanks,
continuation, a question about the person, a broad recall, a relational question, a statement
to remember, a document question, general chat), the words that carry its meaning (`key_terms`,
stemmed), the things it asks about after "my" (`heads`: "my brother's name" → brother), and the
names it mentions. Rules over words only: generic English, nothing tuned to one persona.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from capabilities.shorthand import spelled_out
from memory.formation.patterns import NATIONALITY, sentences
from memory.tokens import IRREGULAR

Kind = Literal[
    "ack",  # thanks, ok, greetings: nothing to recall
    "summary",  # "summarise our conversation": the thread itself
    "continuation",  # refers back into this thread ("and step 3?", "why?")
    "broad_recall",  # "what do I like?", "everything you know about me"
    "relational",  # how people, places and things connect
    "personal",  # a question about the person's own life
    "document",  # a question about an uploaded document
    "statement",  # the person tells something (to remember)
    "general",  # general knowledge or chat, no memory needed
]

_WORD = re.compile(r"[A-Za-zÀ-ÿ0-9][\w'’-]*")
# A name: capitalised words ("Nova Scotia Community College"), or an acronym ("NSCC", "EHS").
# A name's word: a capital then small letters, beyond A-Z too ("Ørjan", "Åshild", "Łukasz", "Strauß").
NAME_WORD = r"[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+"
# "Ana", "MacDonald", "iLoad"; not the start of a code glued to more letters or digits ("HbA1c", "iPhone15")
_WORD_NAME = r"(?:[a-z]?[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+(?:[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)*(?![A-Za-zÀ-ÿ0-9]))"
_NAME = re.compile(rf"\b(?:{_WORD_NAME}(?:\s+{_WORD_NAME})*|[A-Z]{{3,6}}\b(?!['’]))")
def word_set(text: str) -> frozenset[str]:
    """The space-separated words of a literal, as a set (keeps long word lists readable)."""
    return frozenset(text.split())


_FIRST_PERSON = word_set("i i'm i've i'd i'll me my mine myself we we're our us ours")
STOP = word_set(
    """a an the and or but if of at by for with about against between into through during before after above
    below to from up down in out on off over under again further then once here there all any both each few more
    most other some such no nor not only own same so than too very can will just don should now is are was were be
    been being have has had having do does did doing would could might must shall may i me my myself we our ours us
    you your yours he him his she her hers it its they them their what which who whom whose this that these those
    am i'm i've i'd i'll you're it's that's what's who's where's how's there's let's im ive dont didnt doesnt
    where when why how whats please tell remind remember recall know knew again name named called call
    something anything thing things really also still yet ever one ok okay yes yeah hey hi hello thanks thank
    moment currently nowadays until till finally eventually ultimately
    get got go going want like according document documents uploaded question quick just much many"""
)
# Words after "my" that describe rather than name the thing asked about ("my favourite film").
DESCRIBERS = word_set(
    "favourite favorite best new old little older younger big elder first last current late eldest oldest youngest "
    "middle right left latest newest recent only"  # "my right knee", "my latest HbA1c"
)
# said before what is asked, and no describer a note must say: "my next HbA1c test" is a test (the question
# still asks the next one)
_TP_BEFORE_HEAD = word_set("next previous upcoming actual")
_HOW_OFTEN = word_set("daily weekly fortnightly monthly yearly annual nightly usual regular normal")  # "my weekly rent"
_ACK = re.compile(
    r"^(?:thanks?(?: you)?|thank u|thx|ty|cheers|ok(?:ay)?|k|cool|nice|great|awesome|perfect|got it|sure|yes|yeah|"
    r"yep|no|nope|nah|hmm+|lol|haha+|wow|hi|hello|hey|good (?:morning|night|evening|afternoon)|bye|see you|"
    r"sounds good|that'?s (?:great|nice|cool|helpful|funny|interesting)|you'?re welcome|np|no worries)\b",
    re.IGNORECASE,
)
# Small talk addressed to the assistant itself ("how are you?", "who are you?", "what can you do?"), with or
# without a greeting before it: nothing to recall, and nothing the 135M model answers well (asked, it said
# "I'm just going to check my email." and "I'm so sorry to hear about the recent COVID-19 pandemic.").
SOCIAL = re.compile(
    r"^\W*(?:(?:hi|hello|hey|good (?:morning|afternoon|evening))(?:\s+there|\s+reverie)?\W+)?"
    r"(?:how (?:are|r) (?:you|u)|how['’]?re you|how are things|how['’]?s it going|how is it going|how have you been"
    r"|what['’]?s up|wh?at['’]?s new|who are you|what are you|what['’]?s your name|what is your name"
    r"|what (?:can|do) you do|how do you work|how does this work|help)"
    r"(?:\s+(?:doing|today|tonight|this morning|now|then|reverie|with (?:you|u)))*\W*$",
    re.IGNORECASE,
)
_SUMMARY = re.compile(
    r"\b(?:summari[sz]e|recap|sum up)\b.*\b(?:conversation|chat|discussion|thread|so far|this)\b", re.IGNORECASE
)
_BACKREF = re.compile(
    r"^(?:and|but|so|also|then|what about|how about|why|which one|the (?:first|second|third|last|other)|"
    r"it|that|this|those|these|they|she|he|step \d+)\b|\b(?:earlier|above|you said|you mentioned|we discussed|"
    r"the (?:first|second|third|previous|last) (?:one|step|option|point)|at the (?:start|beginning)|go back)\b",
    re.IGNORECASE,
)
_JUST = re.compile(r"\bi just\b", re.IGNORECASE)
_BROAD = re.compile(
    r"\b(?:everything|all (?:my|the things|that)|list (?:my|all|everything)|what (?:do|did) i (?:like|love|enjoy)|"
    r"my (?:hobbies|interests|preferences|habits|likes|friends|family)|about me\b|what do you know|"
    r"what have i told you)\b",
    re.IGNORECASE,
)
_RELATIONAL = re.compile(
    r"\b(?:connected|connection|related|relationship|relation|link(?:ed)?|in common|know each other|"
    r"how do .+ know|between)\b",
    re.IGNORECASE,
)
_DOCUMENT = re.compile(r"\b(?:document|file|upload(?:ed)?|pdf|the text|the article|the notes|the report)\b", re.I)
_HOW_TO = re.compile(
    r"^(?:how (?:do|can|should|would|could) i|should i|can i|could i|what should i|how to|any tips|"
    r"what(?:'s| is) the best way)\b",
    re.IGNORECASE,
)
_IMPERATIVE = re.compile(
    r"^(?:please\s+)?(?:tell|give|show|write|explain|help|make|teach|find|send|recommend|suggest|let|bring|sing|"
    r"draw|create|list|describe|read)\b",
    re.IGNORECASE,
)
# A question after a lead-in, typed without "?": "after selling the wagon r what did the new car cost us",
# "ok so where is the party now" (not "I told him what was happening": the lead-in opens the message)
_LED_QUESTION = re.compile(
    r"^\W*(?:after|before|since|now|so|and|ok|okay|hey|also|btw|oh|wait|sorry)\b[^?.!]*?"
    r"\b(?:what|where|when|who|which|how (?:much|many|long|old|often))\s+"
    r"(?:did|does|do|is|was|are|were|has|have|will)\b",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^(?:what|what's|whats|who|who's|whom|whose|where|where's|when|why|how|which|do|does|did|is|are|was|were|can|"
    r"could|would|will|have|has|tell me|remind me|list|name|any idea|"
    r"(?:by|for|from|in|on|at|to|with|since|until|till|til) (?:how|what|which|who|whom|when))\b",  # "by how much did…"
    re.IGNORECASE,
)


def words(text: str) -> list[str]:
    """The words of a text, lower-cased, curly apostrophes straightened."""
    return [w.casefold().replace("’", "'").strip("'-") for w in _WORD.findall(text)]


def stem(word: str) -> str:
    """A crude stem that lets "lives", "living" and "live" (or "allergic", "allergies") meet."""
    w = word.casefold().replace("’", "'")
    if not w.isascii():  # "fiancée" meets "fiancee", "café" "cafe"
        w = "".join(c for c in unicodedata.normalize("NFKD", w) if not unicodedata.combining(c))
    w = w[:-2] if w.endswith("'s") else w.rstrip("'")
    w = IRREGULAR.get(w, w)
    if w.endswith("-in-law"):  # "sister-in-law" is not "sister"
        return w
    if re.fullmatch(r"\d+(?:st|nd|rd|th)", w):  # "my 30th" is the 30 "officially 30 as of saturday" says
        return w.rstrip("stndrh")
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ly", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + repl
            break
    return (w.rstrip("e") if len(w) > 4 else w)[:6] or w


# Generic English. Synonyms cover each other ("work" is covered by "job"); a category covers its
# members ("pet" by "cat") but a member never covers another ("dog" is not covered by "cat": the
# near miss a question about a dog must not answer with the cat). Not tuned to any persona.
_SYNONYMS_TEXT = (
    "work job employ employer company office career profession occupation hired workplace position role promoted",
    "live lives living moved move home based reside house apartment flat place",  # "found a place", "at their place"
    "allergic allergy allergies intolerant",
    "injured injury injure hurt twisted sprained strained tore torn rolled",  # "twisted my knee", "rolled my ankle"
    "birthday born birth turned turns",  # "Maeve turned six on 3 October", "She turns 70 on 2 January"
    "partner boyfriend girlfriend husband wife spouse fiance fiancee bf gf",
    "boss manager supervisor",
    "near nearby outside",  # "which village are we near?": "our farm is just outside Hantumhuizen"
    "rep reps representative representatives",  # "who's the union rep?": "your Unite representative, Dev Sandhu"
    "climbing climb bouldering",
    "hobby hobbies pastime",
    "car vehicle drive",
    "study studied degree graduated graduate student",
    "university college campus",
    "adopt adopted adoption rescue rescued",
    "pay paid payment cost costs price fee spend spent charge charging",
    "buy buying bought purchase purchased sell selling sold",  # "who bought my car?": "Sold the Micra to Kyle"
    "film movie cinema",
    "book novel read reading",
    "operation op surgery procedure",
    "appointment appointments appt session sessions",
    "test tests exam exams",  # "his driving test": "Andrei's exam got postponed to 22 April"
    "end ends ending ended expire expires expiry finish finishes terminate terminates terminating termination",
    "child kid",
    "son boy lad",  # "their boy Sander"
    "weigh weighs weighed weight kg kilo kilos pounds lbs",  # "Bamse is 22,8 kg now"
    "daughter girl",
    "grandchild grandson granddaughter grandkid",
    "mother mom mum",
    "father dad",
    "trip travel visit visited vacation holiday",
    "christmas xmas",
    "found founded founder established",
    "meet met",
    "wedding married marry hitched wed",  # "getting hitched in Daylesford" is the wedding
    "friend mate pal buddy",
    "gig show concert performance",
    "food dish cuisine eat",
    "medicine medicines medication medications meds tablet tablets pill pills",  # (see evidence.MEDICINE)
    "old age",
)
_CATEGORIES_TEXT = (
    "pet: cat dog kitten puppy parrot hamster rabbit bird fish gecko lizard snake turtle tortoise ferret budgie horse "
    "pony goldfish gerbil chinchilla",
    "dog: puppy beagle terrier labrador retriever poodle spaniel collie dachshund husky shepherd pug boxer greyhound "
    "whippet kelpie staffy staffie bulldog rottweiler chihuahua corgi schnauzer dalmatian cavoodle labradoodle",
    "cat: kitten tabby shorthair siamese persian",
    "voice: bass baritone tenor alto soprano mezzo",
    "position: defence defense forward goalie goalkeeper striker midfielder winger centre center",
    "car: subaru honda toyota ford volkswagen vw bmw audi mercedes tesla volvo nissan mazda kia hyundai fiat "
    "renault peugeot skoda civic outback corolla golf",
    "instrument: piano guitar cello violin viola drums flute saxophone ukulele harp trumpet trombone clarinet oboe "
    "bassoon banjo mandolin accordion harmonica keyboard organ sitar veena tabla mridangam harmonium bagpipes",
    "sport: football soccer tennis running swimming climbing yoga cycling basketball hiking rugby hockey golf "
    "baseball cricket volleyball skiing surfing boxing badminton handball netball lacrosse rowing sailing skating "
    "gymnastics athletics triathlon squash judo karate taekwondo fencing archery curling softball",
    "business: bakery shop cafe restaurant store bar salon pub farm firm studio agency",
    "hobby: painting pottery reading gardening cooking baking photography knitting chess",
    "drink: coffee tea beer wine juice",
    "race: marathon half-marathon 5k 10k parkrun triathlon ultramarathon duathlon",  # "the Soweto Marathon"
    "cost: rent fee deposit bill fare",  # "how much do I pay?" is the rent; "what's my rent?" is not a price
    "diet: vegetarian vegan pescatarian pescetarian",
    "colour: white black silver grey gray red blue green yellow orange purple pink brown navy beige gold cream maroon",
    "fruit: apple banana orange kiwi strawberry strawberries grape pear peach mango pineapple cherry lemon lime melon "
    "watermelon plum apricot raspberry blueberry avocado",
    "subject: maths math mathematics chemistry physics biology history geography english french spanish german "
    "latin art music science economics computing drama literature philosophy psychology sociology",
    "department: payroll accounts accounting finance hr marketing sales legal procurement logistics compliance "
    "admin administration operations reception dispatch",  # "which department…": "Thabo from payroll"
    "language: english french spanish german italian portuguese dutch polish russian arabic hindi urdu bengali "
    "tamil telugu punjabi gujarati marathi kannada malayalam mandarin cantonese chinese japanese korean thai "
    "vietnamese tagalog filipino indonesian malay swahili yoruba igbo hausa zulu xhosa afrikaans greek turkish "
    "persian farsi hebrew welsh irish gaelic maori samoan tongan norwegian swedish danish finnish icelandic czech "
    "romanian hungarian ukrainian",
    "child: son daughter baby twins",  # ("does my sister have kids?": "she just had a baby boy")
    "sibling: brother sister",
    "parent: mother father mom dad mum",
    "family: wife husband partner son daughter kid child brother sister mother father mom dad mum parent "
    "grandma granny grandad grandpa grandmother grandfather aunt uncle cousin niece nephew grandson granddaughter "
    "grandchild grandkid godson goddaughter godchild",
)


CATEGORIES = {
    name.strip(): frozenset(members.split()) for name, members in (line.split(":") for line in _CATEGORIES_TEXT)
}
CATEGORIES["color"] = CATEGORIES["colour"]
"""A category's name → its members ("car" → subaru, civic, …): what "what car…?" is answered with."""
_OWN_SENSE = frozenset({"position"})  # categories whose name in a synonym group has another sense


def _related() -> dict[str, frozenset[str]]:
    """Stem → the words that cover it (its synonyms; a category's members)."""
    table: dict[str, frozenset[str]] = {}
    for line in _SYNONYMS_TEXT:
        group = frozenset(line.split())
        for member in group:
            table[stem(member)] = table.get(stem(member), frozenset()) | group
    for category, members in CATEGORIES.items():
        table[stem(category)] = table.get(stem(category), frozenset()) | members
    # A synonym of a category covers its members ("drive": car, so Subaru), and so on one level down
    # (a dog, a beagle); not where the category's name means something else in the group ("work"'s
    # "position" is a job, not a sports position).
    reached = {name: members for name, members in CATEGORIES.items() if name not in _OWN_SENSE}
    for _ in range(2):
        table = {k: v | frozenset().union(*(reached.get(w, frozenset()) for w in v)) for k, v in table.items()}
    return table


_RELATED = _related()


def related_words(term: str) -> frozenset[str]:
    """The words that cover a stem: its synonyms and, for a category, its members."""
    return _RELATED.get(term, frozenset())


def related_stems(term: str) -> frozenset[str]:
    """A stem and the stems of the words that cover it ("a|b": either compound word's), and the
    root of a doer's word ("drummer": drum, so "Fitz is on drums"; "teacher": teach)."""
    if "|" in term:
        return frozenset().union(*(related_stems(t) for t in term.split("|")))
    return frozenset(stem(w) for w in related_words(term)) | {term, root(term)}


def root(term: str) -> str:
    """The word a stem is made from by a doer's ending: "drumme" (drummer) → drum, "teache" → teach,
    "singer" → sing; other stems unchanged. A note's stems hold both ("my teacher's Ines" is about
    teaching)."""
    if len(term) >= 6 and term.endswith("er"):
        return term[:-2]
    if len(term) >= 5 and term.endswith("e") and term[-2] not in "aeiou":
        base = term[:-1]
        return base[:-1] if len(base) >= 4 and base[-1] == base[-2] else base
    return term


@dataclass(frozen=True)
class Situation:
    """A message read for the policies.

    Attributes:
        kind: What the message is (see `Kind`).
        question: Whether it asks something.
        about_me: Whether it speaks of the person (I, my, me…).
        key_terms: Stems of the words that carry its meaning, in order.
        heads: Stems of what it asks about after "my" (the chain "my sister's dog" → sister, dog).
        names: Capitalised names it mentions (not at a sentence start).
        chain: Length of the longest possessive chain ("my sister's husband's job" → 3).
        text: The message itself.
    """

    kind: Kind
    question: bool
    about_me: bool
    key_terms: tuple[str, ...]
    heads: tuple[str, ...]
    names: tuple[str, ...]
    chain: int = 0
    text: str = ""



# A clause that opens with a past deed and no subject is the person's own, diary-style ("Bobos had an ear
# infection, took him to the vet…", "bought the nets today"); not a passive ("taken by").
_DROPPED_I = re.compile(
    r"(?:^|[.!?;,]\s+)(?:also\s+|then\s+|just\s+|finally\s+)?(?:took|went|bought|got|saw|made|paid|sold|gave|met|drove"
    r"|flew|brought|sent|spent|told|left|found|started|finished|booked|called|visited|picked)\b(?!\s+by\b)",
    re.IGNORECASE,
)


def is_first_person(text: str, *, unsaid: bool = False) -> bool:
    """Whether a text speaks as the person (or of "the user", as formed facts do); with `unsaid`, also
    when it tells a deed with no subject, diary-style (`_DROPPED_I`)."""
    said = bool(_FIRST_PERSON & set(words(text))) or "the user" in text.casefold()
    return said or (unsaid and (_DROPPED_I.search(text) is not None or bool(introduced(text))))


def names_in(text: str) -> list[str]:
    """Capitalised names in a text, skipping a capitalised first word unless it recurs elsewhere."""
    found: list[str] = []
    for sentence in sentences(text):
        for m in _NAME.finditer(sentence):
            name = m.group(0)
            first = name.split()[0].casefold()
            if m.start() == 0 and (first in STOP | _QUESTION_WORDS or _verb_like(first)):
                name = " ".join(name.split()[1:])
            if name and name.casefold() not in STOP and name not in _TITLES:
                found.append(name)
    return list(dict.fromkeys(found))


_PLACE_PREPOSITIONS = word_set("at in on near into inside")
_AUXILIARY = word_set("do does did will would can could should")
# Capitalised first words that are no names: question words, openers, interjections ("Oh, small correction").
_QUESTION_WORDS = word_set(
    "what who where when why how which whose actually so and but also oh ah aha well yes yeah yep no nope hey hi "
    "hello sorry anyway anyways ok okay btw ugh wow haha lol hmm oops guess funny"
)
# Capitalised words that are no names: titles, and shouted words ("OK", "TV", "LOL").
def _verb_like(word: str) -> bool:
    """A sentence's first word that reads as a verb or adverb, no name: "Reading it made me…",
    "Finally finished…", "Started in January 2026." (but Ted, Ahmed and Mohammed are names)."""
    return word.endswith(("ing", "ly")) or (len(word) >= 6 and word.endswith("ed") and not word.endswith("mmed"))
_TITLES = word_set("I Dr Mr Mrs Ms Prof OK TV AM PM UK US USA EU PS OMG LOL")


def _heads(raw: Sequence[str]) -> tuple[tuple[str, ...], int]:
    """What the person asks about after each "my" (describers skipped), and its possessive chain.

    "my sister's dog" → sister, dog (chain 2); "my pottery club" → "pottery|club" (a two-word
    compound, covered by either word); "does my sister live" → sister (after
    do/does/did the word after the noun is the verb); a name ends the phrase ("my sister Ana").
    """
    tokens = [t.casefold().replace("’", "'") for t in raw]
    heads: list[str] = []
    longest = 0
    for i, token in enumerate(tokens):
        if token != "my" or (i and tokens[i - 1] in _PLACE_PREPOSITIONS):
            continue  # "the kiln at my pottery club": where the thing is, not what is asked about
        verb_follows = bool(_AUXILIARY & set(tokens[:i]))
        chain, compound, j = 0, [], i + 1
        while j < len(tokens):
            word = tokens[j]
            if word in DESCRIBERS or word in _HOW_OFTEN or word in _TP_BEFORE_HEAD:  # "my weekly rent" is the rent
                j += 1
                continue
            naming = word == "name" and not compound and chain == 0  # "what's my name?" asks for the name
            acronym = re.fullmatch(r"[A-Z]{2,}(?:['’]s)?", raw[j]) is not None  # "my GP's name": a GP, no name
            if (raw[j][:1].isupper() and not acronym) or (word in STOP and not naming):
                break
            compound.append(word)
            j += 1
            if word.endswith("'s"):
                heads.append(stem(word))
                chain, compound = chain + 1, []
            elif len(compound) == 2 or verb_follows or word.endswith(("ed", "ing")):
                break
        if len(compound) == 2 and compound[1].endswith(("ed", "ing")):
            compound = compound[:1]
        if compound:  # either word of a compound may be what a note says ("Pottery moved…", "the club…")
            heads.append("|".join(stem(w) for w in compound))
            chain += 1
        longest = max(longest, chain)
    return tuple(dict.fromkeys(heads)), longest


def key_terms(text: str) -> tuple[str, ...]:
    """Stems of the content words of a text, in order, without repeats."""
    return tuple(dict.fromkeys(stem(w) for w in words(text) if w not in STOP and len(w) > 1 and stem(w) not in STOP))


_MY_FAMILYS = re.compile(r"\bmy (?:family|household|home)['’]s\b", re.IGNORECASE)
_S_APOSTROPHE = re.compile(r"\b([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]*s)['’](?=\s)")  # a name ending in s, possessive
# A parent said with no one's before it: "when is dad's birthday?", "where does mum live?" (not "Hemi's
# mum", "her dad", "the mum of…").
_BARE_PARENT = re.compile(
    r"(^|(?<!\bmy)(?<!\byour)(?<!\bhis)(?<!\bher)(?<!\bour)(?<!\btheir)(?<!\bthe)(?<!\ba)(?<!['’]s)\s)"
    r"(mum|mom|mam|mama|mummy|dad|daddy|papa|nan|nana|gran|granny|grandma|grandpa)\b",
    re.IGNORECASE,
)


def read(message: str, history: Sequence[str] = ()) -> Situation:
    """Read a message (and whether its thread has history) into a `Situation`."""
    text = spelled_out(message.strip()).replace("for a living", "for work")
    question = text.endswith("?") or bool(_QUESTION_START.match(text) or _LED_QUESTION.match(text))
    text = _S_APOSTROPHE.sub(r"\1's", text)  # "Kostas' daughter" is said as "Kostas's daughter"
    if question:  # "when is dad's birthday?" asks about the person's own dad, as "my dad" would
        text = _BARE_PARENT.sub(lambda m: f"{m.group(1)}my {m.group(2).casefold()}", text)
        # "what's my family's dog called?" asks what "our dog Chispa" says, not what some "family" owns
        text = _MY_FAMILYS.sub("our", text)
        text = re.sub(r"\b(?:last|family) name\b", "surname", text, flags=re.IGNORECASE)  # one word asked
    tokens = words(text)
    # "me" after an imperative ("tell me a story") asks something of the assistant; elsewhere
    # ("the friend who got me into pottery") it is the person.
    about_me = bool((_FIRST_PERSON - {"me"}) & set(tokens)) or (
        ("me" in tokens and not _IMPERATIVE.match(text)) or "about me" in text.casefold()
    )
    heads, chain = _heads(_WORD.findall(text))
    names = tuple(names_in(text))
    terms = key_terms(text)
    # "Who is Rui?" after a talk about bikes names someone the thread never did: it asks memory, as it
    # would in a new thread (as a continuation the model wrote "Rui is a brilliant … AI assistant").
    thread = " ".join(history).casefold()
    new_names = [n for n in names if n.casefold() not in thread]
    kind = _kind(text, tokens, question, about_me, names, chain, bool(history), terms, bool(new_names))
    return Situation(kind, question, about_me, terms, heads, names, chain, text)


# "hey, tom here. 34, living in leeds": a name that opens the message before "here"
_HERE = re.compile(r"^\W*(?:(?:hi|hey|hello|hiya|morning)\W+)?([a-zA-ZÀ-ÿ][\w'’-]+)\s+here\b", re.IGNORECASE)
_NOT_A_NAME = word_set("just still nobody someone everyone anyone back right over out in not me")
_INTRODUCED = re.compile(
    rf"\b(?:(?i:i'm|i’m|im|i am|call me|the user is)\s+(?!{NATIONALITY}\b)([A-ZÀ-ÞĀ-Ž][\w'’-]+)"
    rf"|(?i:my name is|the user's name is)\s+([a-zA-ZÀ-ÿ][\w'’-]+))"  # (a formed fact says "the user")
)


def is_request(text: str) -> bool:
    """Whether a message asks the assistant to do something ("tell me a joke", "help me plan my week")."""
    return _IMPERATIVE.match(text.strip()) is not None


def introduced(text: str) -> str:
    """The name a person gives themselves ("Hi, I'm Sam.", "My name is Ana", "hey, tom here"), or ""."""
    found = _INTRODUCED.search(text)
    name = (found.group(1) or found.group(2)) if found else ""
    here = _HERE.match(text)
    if not name and here and here.group(1).casefold() not in STOP | _QUESTION_WORDS | _NOT_A_NAME:
        name = here.group(1)
    return name[:1].upper() + name[1:]


def _kind(
    text: str,
    tokens: Sequence[str],
    question: bool,
    about_me: bool,
    names: Iterable[str],
    chain: int,
    has_history: bool,
    terms: Sequence[str],
    new_names: bool = False,
) -> Kind:
    names = list(names)
    if _SUMMARY.search(text):
        return "summary"
    if (_ACK.match(text) and len(tokens) <= 6 and not question and not introduced(text)) or SOCIAL.match(text):
        return "ack"
    # "what did I just say?" points back; "Actually I just sold the Skoda, I drive a Tesla now." is news
    back = _BACKREF.search(text) or (question and _JUST.search(text))
    if has_history and (back or (question and len(terms) <= 1 and not about_me and not new_names)):
        return "continuation"
    if _DOCUMENT.search(text):
        return "document"
    if _BROAD.search(text):
        return "broad_recall"
    if question and (_RELATIONAL.search(text) or chain >= 2 or len(names) >= 2):
        return "relational"
    if question and _HOW_TO.match(text):
        return "general"  # "how do I boil an egg?" asks for advice, not for a memory
    if question and (about_me or names):
        return "personal"
    if not question and (about_me or names) and (len(terms) >= 2 or introduced(text)):
        return "statement"  # ("Hi, I'm Sam." says who the person is: not a greeting)
    if not terms:
        return "ack"
    return "general"
