"""The small model as a voice: short plain prompts, and guards on what it says.

Measured on SmolLM2-135M (STACK-NOTES): a plain two-line prompt with the notes and the question
answered 5 of 5 personal-fact questions right, while long layered instructions made it repeat the
rules and prompt examples were copied as answers. So the prompts here are short, carry no
examples and no schema, and keep a stable prefix (system text first, the changing notes and
question last) so llama.cpp reuses its prompt cache (`cache_prompt`).

Nothing the model writes reaches the person unchecked: `clean` cuts repetition loops and
rejects prompt or markup leakage and a sudden change of script; `grounded_reply` also demands
that a factual answer say something the notes say and the question does not. A rejected reply
is replaced by the notes themselves, turned to the second person.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.settings import ModelSettings

from app.llm import Backend
from capabilities.evidence import CLOCK_TIME, Note, covers, day_months, tells_change
from capabilities.situation import CATEGORIES, STOP, key_terms, stem, word_set, words
from memory.assembly import escape_delimiters
from memory.formation.patterns import sentences
from memory.recall.dates import Span, said_days

GROUNDED_SYSTEM = (
    "Answer in one short sentence using only the notes. If the notes do not say, reply: I don't know."
)
CHAT_SYSTEM = "You are Reverie, a friendly assistant. Reply in one or two short sentences."
GROUNDED_MAX_TOKENS = 48
CHAT_MAX_TOKENS = 64
# Text that belongs to prompts, schemas or reports, never to a reply.
_LEAKS = re.compile(
    r"recalled_context|Question:|Notes?:|SEARCH_MEMORIES|EXPAND_ENTIT|GET_ENTIT|NeedsMoreInfo|\"kind\"|"
    r"I could not verify|SYSTEM_EXECUTION_REPORT|Answer in one short sentence|using only the notes|"
    r"You are Reverie|CONTEXT_TURNS|VECTOR_LIMIT|SIMILARITY_THRESHOLD|TRIPLE_DEPTH|<\s*/?\s*\w+\s*>",
    re.IGNORECASE,
)
# The prompt's own form of a date, which no person speaks: "What's a joke about a 2020-11-29?" for "tell me a
# joke" was the system prompt's "Today is 2026-11-29." garbled (a real chat, twentieth session).
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_TODAY_IS = re.compile(r"\b(?:today is|it is|it's)\s+\d{4}-\d{2}-\d{2}\b\W*", re.IGNORECASE)
# What the small model puts before an answer: "The answer is:", and agreeing with what nobody said ("You're right,").
_ANSWER_PREFIX = re.compile(
    r"^(?:(?:you['’]re|you are) (?:right|correct)\s*[,!.:]\s*)?"
    r"(?:(?:the )?(?:correct |right )?answer(?: is)?\b\s*:?\s*)?",
    re.IGNORECASE,
)
# How a remembered turn opens in chat, not part of the fact: "Oh, small correction: my sister moved…",
# "change of plan, my goal is now 3:30" (said back as "Got it — Change of plan, your goal…")
_OPENER = re.compile(
    r"^(?:(?:oh|ah|so|and|but|well|actually|anyway|btw|by the way|okay|ok|oops|wait|sorry|hi|hiya|hey|hello"
    r"|ugh|argh|hmm|um|uh|omg|wow|phew|yay|also|plus)"
    r"\b[,!]?\s+)*"
    r"(?:(?:a |one )?(?:small |quick |little |big )?(?:bit of )?"
    r"(?:correction|update|news|change of plans?|heads up|fyi)"
    r"(?:\s+(?:on|about)\s+(?:that|this))?\s*[:,!-]\s*)?"
    r"(?:[A-Z][\w'’-]+ here\s*[,.!]\s*)?",  # "Dara here, I drive…"
    re.IGNORECASE,
)
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_DONT_KNOW = re.compile(r"\b(?:i don'?t know|i do not know|not sure|no information|don'?t have)\b", re.IGNORECASE)


def grounded_prompt(notes: Sequence[Note], question: str) -> str:
    """The user-role text of a grounded answer: dated notes (oldest first), then the question."""
    # A note is one line, its delimiters defused: stored text cannot start a "Question:" of its own.
    texts = [escape_delimiters(" ".join(n.text.split())) for n in notes]
    lines = [f"({n.created_at:%Y-%m-%d}) {t}" if n.created_at else t for n, t in zip(notes, texts, strict=True)]
    return "Notes:\n" + "\n".join(lines) + f"\n\nQuestion: {question.strip()}"


def system_text(base: str, today: date) -> str:
    """A system prompt with today's date (it changes once a day, so the cached prefix holds)."""
    return f"{base} Today is {today:%Y-%m-%d}."


def _loop_token(token: str) -> str:
    # a list's numbers are one token ("1. chocolate 2. chocolate"); a number said is itself ("Maisie
    # who is 7 and Alfie who is 4" is no loop)
    return "#" if re.fullmatch(r"\d+[.):]", token) else token.casefold().strip(".,!?;:()\"'")


def cut_loop(text: str) -> str:
    """The text up to where it starts repeating itself (a 3+-word run said again, or two words said
    twice in a row: "la France, la France"), else as is."""
    tokens = text.split()
    for size in (2, 3, 4, 5, 6):
        seen: dict[tuple[str, ...], int] = {}
        for i in range(len(tokens) - size + 1):
            # List numbers count as one token: "1. chocolate 2. chocolate …" is a loop too.
            gram = tuple(_loop_token(t) for t in tokens[i : i + size])
            if gram in seen and (i - seen[gram] == size if size == 2 else i - seen[gram] >= size):
                return " ".join(tokens[:i]).rstrip(",;: ")
            seen.setdefault(gram, i)
    return text


def _foreign(reply: str, reference: str) -> bool:
    """Whether the reply switches to another script than the person's message used."""
    def share(text: str) -> float:
        letters = [c for c in text if c.isalpha()]
        return sum(ord(c) > 0x24F for c in letters) / len(letters) if letters else 0.0

    return share(reply) > 0.2 and share(reference) < 0.05


_HEDGES = re.compile(r"\b(?:sorry|apologi[sz]e|confusion|as an ai|language model|i'?m not able)\b", re.IGNORECASE)
# Function words every English sentence of some length uses; a reply of 5+ words with none of
# them has switched language ("Le Grand Paris, la femme de la France.").
_ENGLISH = word_set(
    "the a an is are was were be to of in on at for and or but you your i my it this that with as by from "
    "not do does did have has can will would"
)
_KIN = frozenset(stem(w) for w in CATEGORIES["family"])  # who is whose: a claim only the notes may make
NOVELTY_MAX = 0.34  # share of a grounded reply's content words that neither the notes nor the question hold


# Function words of the languages the model drifts into, which English does not use: a reply that
# says several of them to a message with none has switched language ("L'Alma, la France, la France.")
_NOT_ENGLISH = word_set(
    "la le les des du el los las der die das und et est une il che di que con por para avec sur dans mit ist "
    "ein eine nicht sont pas"
)


def _switched_language(reply: str, message: str) -> bool:
    said = words(reply)
    if len(said) >= 5 and not _ENGLISH & set(said) and bool(_ENGLISH & set(words(message)) or not message):
        return True
    foreign = [w for w in said if w in _NOT_ENGLISH]
    return len(foreign) >= 2 and 10 * len(foreign) >= len(said) and not _NOT_ENGLISH & set(words(message))


def clean(raw: str, message: str) -> tuple[str, str]:
    """A model reply cut to at most two sentences without loops; ('', why) when it is unusable."""
    text = raw.strip().strip('"').strip()
    text = text.split("\n\n")[0].replace("\n", " ").strip()
    whole = text
    text = _TODAY_IS.sub("", cut_loop(text)).strip()  # the system prompt's date said back ("Today is 2026-11-24, I'm…")
    if text != _TODAY_IS.sub("", whole).strip() and len(words(text)) < 4:  # all it said before looping: "The answer is"
        return "", "the reply looped"
    text = text[:1].upper() + text[1:]
    text = " ".join(sentences(text)[:2]).strip()
    if _DANGLING.search(text):  # cut off mid-clause: it ends where its last whole clause did
        cut = max((m.start() for m in re.finditer(r"[,;:]\s", text)), default=0)  # not "$3,450" nor "8:15"
        text = text[:cut] if cut > 0 else _DANGLING.sub("", text)  # "…Otago Hospital, and you work as"
    if not text or sum(c.isalnum() for c in text) < 2:
        return "", "empty reply"
    if _LEAKS.search(text) or any(d not in message for d in _ISO_DATE.findall(text)):
        return "", "the reply repeated prompt text"
    if _foreign(text, message) or _switched_language(text, message) or _switched_language(whole, message):
        return "", "the reply switched language"
    if {stem(w) for w in words(text)} <= {stem(w) for w in words(message)}:
        return "", "the reply only echoed the message"
    return text, ""


_DANGLING = re.compile(
    r"[,;:]?\s+(?:so|and|but|or|because|with|as|to|the|a|an|of|for|in|at|on|from|which|that|who|my|your|their|his|her)$"
    # …or a clause begun and left at its doer: "…at the Mercy hospital, and she's", "…a travel clinic, so it"
    r"|[,;:]?\s+(?:so|and|but|or|because|which|that|who|where|when)\s+(?:he|she|it|they|we|you|i)(?:['’](?:s|re|ll|d|ve|m))?"
    r"(?:\s+(?:is|was|are|were|has|have|had|will|would|can|could))?$",
    re.IGNORECASE,
)
_SWAPS = (
    (r"\bthe user's\b", "your"), (r"\bthe user is\b", "you are"), (r"\bthe user has\b", "you have"),
    (r"\bthe user\b", "you"), (r"\bI'm\b", "you're"), (r"(?-i:\bim\b)", "you're"), (r"\bI am\b", "you are"),
    (r"\bI've\b", "you've"),
    (r"\bI'd\b", "you'd"), (r"\bI'll\b", "you'll"), (r"\bI was\b", "you were"), (r"\bI\b", "you"),
    (r"\bmy\b", "your"), (r"(?<!\ba )(?<!\bthe )(?<!\bcoal )(?<!\bgold )\bmine\b", "yours"),
    (r"\bmyself\b", "yourself"), (r"\bme\b", "you"),
    (r"\bwe're\b", "you're"), (r"\bwe've\b", "you've"), (r"\bwe'll\b", "you'll"), (r"\bwe\b", "you"),
    (r"\bour\b", "your"), (r"(?-i:\bus\b)", "you"),
)  # fmt: skip
# "a mine site" is a pit, not the person's; "the US" a country, not them.


def second_person(text: str) -> str:
    """The person's own words turned to address them ("My cat is Miso." → "Your cat is Miso.")."""
    out = text.replace("’", "'")

    def starts_sentence(m: re.Match[str]) -> bool:
        return not out[: m.start()].strip() or out[: m.start()].rstrip().endswith((".", "!", "?", ":", '"'))

    for pattern, repl in _SWAPS:
        out = re.sub(pattern, lambda m, r=repl: r.capitalize() if starts_sentence(m) else r, out, flags=re.I)
    out = re.sub(r"\byou (?:am)\b", "you are", out)
    return out[:1].upper() + out[1:]


def answer_words(notes: Sequence[Note], question: str) -> set[str]:
    """Stems a right answer would use: said in the notes, not in the question, not stop words."""
    asked = {stem(w) for w in words(question)}
    said = {stem(w) for n in notes for w in words(n.text) if w not in STOP and len(w) > 2}
    return said - asked - {stem(w) for w in STOP}


def said_tokens(text: str) -> set[str]:
    """A text's words, lower-cased, and its clock times and figures whole ("8:15", "7.30am", "8,700",
    "4.60"), as answers are found."""
    whole = [*_CLOCK_TIME.findall(text), *_NUMBER.findall(text)]
    return {w.casefold() for w in words(text)} | {t.casefold() for t in whole}


_CLOCK_TIME = re.compile(rf"\b{CLOCK_TIME.pattern}", re.IGNORECASE)  # as `candidates` finds one


def grounded_reply(
    raw: str,
    notes: Sequence[Note],
    question: str,
    needed: set[str] | frozenset[str] = frozenset(),
    stale: set[str] | frozenset[str] = frozenset(),
) -> tuple[str, str]:
    """The model's answer when it is clean and says something the notes say; else ('', why).

    `needed`: the notes' words of the type the question asks for (a place for "where…"); when
    given, the reply must hold one ("Priya sits next to you" does not say where she is from).
    `stale`: answers a newer note corrected; the reply must not give them ("Gareth lives in Swansea").
    """
    text, problem = clean(_ANSWER_PREFIX.sub("", raw.strip()), question)
    if problem:
        return "", problem
    text = _VC_ungarbled(text)
    if not text:
        return "", "the reply says one did what takes two"
    said_words = said_tokens(text)
    if needed and not needed & said_words:
        return "", "the reply does not give what was asked"
    if stale & said_words:
        return "", "the reply gives an answer a newer note corrected"
    if _DONT_KNOW.search(text) or _HEDGES.search(text):
        return "", "the model hedged although the notes answer"
    said = {stem(w) for w in words(text) if w not in STOP and len(w) > 2}
    if not answer_words(notes, question) & said:
        return "", "the reply says nothing the notes say"
    # (a note's date stamp said as if it were the answer, "You spent 2026-11-23 at…", is `clean`'s prompt text)
    if _DENIES.search(text) and not any(_DENIES.search(t) for t in (question, *(n.text for n in notes))):
        return "", "the reply denies what no note denies"  # "Rui is a shop manager, not a guy."
    dated = {d for t in (question, *(n.text for n in notes)) for d in day_months(t)}
    if day_months(text) - dated:  # "22 September" from "turns 44 on the 22nd" and "70 on 14 September"
        return "", "the reply puts a day and a month together that no note does"
    given = {d for t in (question, *(n.text for n in notes)) for d in _numbers(t)}
    if _numbers(text) - given:  # "March 24th" when the notes say 10 March; "$5,000.00" when they say R37,000
        return "", "the reply gives a number the notes do not say"
    if _VC_misbound(text, notes):  # "Your wife Aisling is 9, and Clara is 6." of "Clara who's 9 and Nell who's 6"
        return "", "the reply gives a number to one the notes give it to another"
    seen = {w.casefold() for w in words(question)} | {w.casefold() for n in notes for w in words(n.text)}
    invented = [m.start() for pattern in (_VC_NAME, _VC_ACRONYM) for m in pattern.finditer(text)
                if m.group().casefold() not in seen and m.group() not in ("AM", "PM", "OK")]  # fmt: skip
    if invented:  # a name the notes never say ("UX Research and Development"; "…, a small town in the UK")
        # (in a clause after the answer, that clause goes: "The brother who sold you his car lives in Solihull.")
        cut = max((m.start() for m in re.finditer(r"[,;]\s", text[: min(invented)])), default=0)
        head = text[:cut].rstrip() + "." if cut else ""
        if len(words(head)) >= 3:
            return grounded_reply(head, notes, question, needed, stale)
        return "", "the reply names something the notes do not say"
    known = {stem(w) for w in words(question)} | {stem(w) for n in notes for w in words(n.text)}
    if said & _KIN - known:  # "Alfie is Maisie's son." from "We have two kids, Maisie… and Alfie…"
        return "", "the reply says a relation the notes do not say"
    if said and len(said - known) / len(said) > NOVELTY_MAX:
        return "", "the reply adds things the notes do not say"
    return second_person(text), ""


_VC_NAME = re.compile(r"(?<=[a-z,;:\"'] )[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+")  # a name, not a sentence's first word
_VC_ACRONYM = re.compile(r"(?<=[a-z,;:\"'] )[A-Z]{2,5}\b")  # "the UK", "the NHS"
# A clause that says one person did what takes two ("he's seen each other every few weeks", the model's
# turn of "…he's a ship engineer, we see each other every few weeks"): "each other" and "one another" need a
# plural doer, so a lone he/she/it/I at the clause's start garbled who did it.
_VC_LONE_RECIPROCAL = re.compile(
    r"(?:^|[,;:.!?]\s*(?:(?:and|but|so|then)\s+)?)"
    r"(?:he|she|it|i)(?:['’](?:s|d|ll|m|ve))?\s+"
    r"(?:(?!(?:and|or|with|we|they|you|both|us|them)\b)[\w'’-]+\s+){0,4}?(?:each other|one another)\b",
    re.IGNORECASE,
)


def _VC_ungarbled(text: str) -> str:
    """The reply up to a clause that says one did what takes two (a whole clause before it kept: "Tomasz is a
    ship engineer."), else as is; "" when that clause is all it says."""
    garbled = _VC_LONE_RECIPROCAL.search(text)
    if garbled is None:
        return text
    kept = text[: garbled.start()].rstrip(" ,;:")
    if len(words(kept)) < 3:
        return ""
    return kept if kept.endswith((".", "!", "?")) else f"{kept}."


# A number said of a name right before it: "Clara who's 9", "Nell is 6", "Tessa's 25", "Gran, 88", "Kofi turned 40"
_VC_BOUND = re.compile(
    r"\b([A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+)(?:,|['’]s|\s+(?:who|that)['’]s|\s+(?:who|that)\s+is|\s+(?:is|was|turned|turns|turning))\s+"
    r"(?:now\s+|only\s+|just\s+)?(\d{1,3})\b(?![:.,]?\d)"
)


def _VC_misbound(text: str, notes: Sequence[Note]) -> bool:
    """Whether the reply says a number of one name that the notes say only of another ("Aisling is 9" where
    the notes say "Clara who's 9"): each word of it is the notes', so no other check sees the swap."""
    told: dict[str, set[str]] = {}
    for n in notes:
        for name, number in _VC_BOUND.findall(n.text):
            told.setdefault(number, set()).add(name.casefold())
    return any(number in told and name.casefold() not in told[number] for name, number in _VC_BOUND.findall(text))


_DENIES = re.compile(r"\b(?:not|never|no longer)\b|n[’']t\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[,\u00a0 ]\d{3}(?!\d))*(?:\.\d+)?")


def _numbers(text: str) -> set[str]:
    """The numbers a text says, whole and in one form ("R37,000", "37 000" and "37000.00": 37000)."""
    found = set()
    for m in _NUMBER.finditer(text):
        plain = re.sub(r"[,\u00a0 ]", "", m.group())
        found.add(re.sub(r"\.0+$", "", plain))
    return found


_LEADING_PRONOUN = re.compile(r"^\W*(?:he|she|they|it|his|her|their|its)\b", re.IGNORECASE)


def _with_next(said: Sequence[str], kept: Sequence[str]) -> list[str]:
    """The kept sentences, each with the next one when it goes on about the same one: "My friend
    Carla got me into pottery." + "She's a nurse at St. Georg hospital."."""
    out: list[str] = []
    for i, sentence in enumerate(said):
        if sentence in kept or (out and out[-1] == said[i - 1] and i and said[i - 1] in kept
                                and _LEADING_PRONOUN.match(sentence)):  # fmt: skip
            out.append(sentence)
    return out


def without_opener(text: str) -> str:
    """A remembered message without how it opened in chat ("Oh, small correction: my sister…", "I need to
    tell you about my father, Nabil…": said back, "You need to tell you about your father" was nonsense)."""
    return _TELL_YOU.sub("", _OPENER.sub("", text.strip()))


_TELL_YOU = re.compile(
    r"^(?:(?:i|we)(?:['’]d| would)?\s+(?:need|want|have|wanted|needed|had|like|got)\s+to|let\s+me)"
    r"\s+tell\s+you\s+(?:about|that)\s+",
    re.IGNORECASE,
)  # ("Let me tell you about the children." was said back as "Let you tell you about the children.")


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def extractive(
    notes: Sequence[Note], question: str = "", needed: Iterable[str] = (), about: Sequence[Note] | None = None
) -> str:
    """The notes themselves, addressed to the person, newest last (but a newest that corrects the others
    or tells of a new value, as the evidence policy's `tells_change` reads it, first, the rest after
    "Earlier:": "The dentist moved to thursday 4 december, same time. Earlier: your dentist appointment is
    on tuesday 2 december at 10am."; "The rent is going from $450 to $520. Earlier: …"): of each, the
    sentences that give what was asked (a `needed` word) or, failing that, say a word of the question; a
    note that only brings context gives its first sentence. Repeats are said once. `about`: the notes about what
    is asked (`app.grounded._VC_about`); a newest change not among them is no correction of the answer, and is
    said in its turn ("Now she work only three days…" was said first for "which day is my physiotherapy now?")."""
    terms = key_terms(question)
    wanted = {w.casefold() for w in needed}
    picked: list[tuple[list[str], list[str], list[str]]] = []
    for note in notes:
        text = _rows_asked(" ".join(note.text.split()), terms, wanted)
        said = sentences(without_opener(text)) or [note.text.strip()]
        giving = [t for t in said if wanted & said_tokens(t)]
        # "He just turned twelve" keeps the sentence before it that says who he is
        giving = [p for i, t in enumerate(said) if t in giving
                  for p in ([said[i - 1]] if i and _LEADING_PRONOUN.match(t) else []) + [t]]  # fmt: skip
        saying = [t for t in said if _says_a_term(t, terms)]
        picked.append((_with_next(said, giving), _with_next(said, saying), said[:1]))
    answered = any(giving or saying for giving, saying, _ in picked)  # then a note saying nothing asked is left out
    parts = [p for giving, saying, first in picked for p in (giving or saying or ([] if answered else first))]
    said = [_spoken(p) for p in dict.fromkeys(parts)]
    # (a change of something asked: not "Pickle is now 4, her birthday was last week" first for "when is Ola's
    # wedding?", joined as the turn after the wedding's)
    changed = len(notes) > 1 and tells_change(notes[-1].text) and bool(picked[-1][1])
    changed = changed and (about is None or notes[-1] in about)
    newest = picked[-1][0] or picked[-1][1] if changed else []
    now = [_spoken(p) for p in dict.fromkeys(newest)]
    before = [p for p in said if p not in now]
    if now and before:  # the correction first, what it replaced as history
        return " ".join([*now, "Earlier:", *before])
    return " ".join(said)


def _says_a_term(text: str, terms: Sequence[str]) -> bool:
    """Whether a text says a word of the question (a key term, as its stem or its group)."""
    stems = frozenset(stem(w) for w in words(text))
    return any(covers(stems, k) for k in terms)


def _rows_asked(text: str, terms: Sequence[str], wanted: set[str]) -> str:
    """Of a document's table (flattened to one line: "Daily medicines: | Medicine | Dose | … | |---|---| |
    Bisoprolol | 2.5 mg | … |"), its header and the rows that say what is asked ("Vitamin D … next on 1
    February 2027"), not every row: the whole table ran past the reply's length before the row asked."""
    if not re.search(r"\|\s*:?-{3,}", text):
        return text
    rows = [r.strip(" |") for r in re.split(r"\|\s+\|", text)]
    asked = [r for r in rows[1:] if not re.fullmatch(r"[\s|:-]*", r) and (
        wanted & said_tokens(r) or _says_a_term(r, terms))]
    return f"{rows[0].replace(': | ', ': ')} — {'; '.join(asked)}." if asked else text


def told_when(reply: str, notes: Sequence[Note]) -> str:
    """When a reply gives a time as the person said it ("You adopted a dog last weekend"), the day they
    said it and the days that meant: "(You told me that on Sunday 29 November 2026, so “last weekend” was
    21–22 November 2026.)". Asked weeks later, "last weekend" alone answers nothing. '' when the reply
    says no such time of a note."""
    said = reply.casefold()
    for note in notes:
        if note.created_at is None:
            continue
        day = note.created_at.date()
        for phrase, span in said_days(note.text, day):
            if phrase.casefold() in said:
                told = f"You told me that on {_day(day)}"
                return f"({told}.)" if span == (day, day) else f"({told}, so “{phrase}” was {_days(span)}.)"
    return ""


def _day(day: date) -> str:
    return f"{day:%A} {day.day} {day:%B %Y}"


def _days(span: Span) -> str:
    first, last = span
    if first == last:
        return _day(first)
    if (first.year, first.month) == (last.year, last.month):
        return f"{first.day}–{last.day} {last:%B %Y}"
    return f"{first.day} {first:%B} – {last.day} {last:%B %Y}"


def _spoken(part: str) -> str:
    """A part of a note said back to the person, as a sentence of its own."""
    said = second_person(_capitalised(part.strip()))
    return said if said.endswith((".", "!", "?")) else said + "."


def model_settings(backend: Backend, max_tokens: int) -> ModelSettings:
    """Greedy, short, and with llama.cpp's prompt cache on."""
    settings = ModelSettings(max_tokens=max_tokens, temperature=0.0)
    if backend.name == "embedded":
        settings["extra_body"] = {"cache_prompt": True}
    return settings


async def say(
    backend: Backend,
    system: str,
    prompt: str,
    max_tokens: int,
    history: Sequence[ModelMessage] = (),
) -> str:
    """One plain-text generation (streamed from the server, returned whole: every caller checks it
    before anything is shown).

    Raises:
        Model and connection errors (pydantic-ai's `ModelAPIError`, httpx errors), for the caller
        to turn into the one user-facing failure message.
    """
    agent = Agent(backend.model, instructions=system)
    settings = model_settings(backend, max_tokens)
    async with agent.run_stream(prompt, message_history=list(history), model_settings=settings) as run:
        return await run.get_output()
