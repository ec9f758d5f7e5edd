"""Which capitalised runs of a chunk are names, and what kind of thing each one names.

Rules of English only (no word list of any one book), each measured on the labelled excerpt and
the novel (docs/benchmarks.md, "Entities worth having"):

- **Capitalised by position is not a name.** A word at the start of a clause (the sentence, an
  opening quote, after a colon, a dash or a blank line; a line break inside a paragraph is none)
  is capitalised because of where it stands. It counts as name evidence only where it is also
  seen capitalised mid-clause: "Nay, sir" and "Take this" never are, "Lucy" is. Emphasis is no
  such evidence (diaries head entries with "_Later._"). A clause-initial word the chunk also
  writes in lower case is no name there ("Last", "Something"), and a mid-clause one written
  both ways is capitalised for emphasis ("the Vampire"). A word followed by a contraction
  ("Don't", "Can't") is not a name at all.
- **No glued words.** A clause-initial run sheds a first word that is a function word, that the
  chunk also writes in lower case, or that is an -ed/-ly/-ing form never seen mid-clause in the
  chunk ("Visited Renfield" → "Renfield"), and a last function word ("Thank God"). An honorific
  inside a run starts a new name ("Truly Miss Lucy" → "Truly", "Miss Lucy").
- **Emphasis is markup.** `_Demeter_` and `*Demeter*` are read as plain words; an emphasised
  capitalised run after "the", or with a vessel word in its sentence, is a vessel or another
  made thing with a name (Product): "the _Czarina Catherine_".
- **Types by votes.** A place word in the name ("Borgo Pass") → Location; an honorific → Person
  (3 votes); an organisation word → Organization; "the ship X" or the emphasis rule → Product
  (3 votes); a speech or action verb after ("Lucy said", "Lucy's"), a verb of saying, telling,
  meeting or writing to before ("said Lucy", "wrote to Quincey Morris"), "dear"/"poor" before,
  or "and I" after → Person; "in/at/near/through X", or "to/from X" after a verb of motion
  ("went to Whitby") → Location. A bare "to X" or "of X" is no vote: letters go to people and
  "the death of Lucy" is not a place. Document-level votes (a first name + surname pair of a
  known person) are added at selection (memory/documents/core_entities.py).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

HONORIFICS = (
    "Mr|Mrs|Miss|Ms|Dr|Doctor|Professor|Prof|Lord|Lady|Sir|Madam|Madame|Count|Countess|Captain|"
    "Capt|Father|Sister|Brother|Herr|Frau|Dame|Prince|Princess|King|Queen|Saint|St|Mister"
)
_WORD = r"[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+(?:-[A-ZÀ-ÞĀ-Ž]?[a-zß-ÿā-ž]+)*"
_NOT_HONORIFIC = rf"(?!(?:{HONORIFICS})\b)"
RUN = re.compile(
    rf"\b(?:(?P<hon>{HONORIFICS})\.?\s+)?"
    rf"(?P<name>{_WORD}(?:[ \t]+(?:van[ \t]+|von[ \t]+|de[ \t]+)?{_NOT_HONORIFIC}{_WORD}){{0,3}})"
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOP = _words(
    """a an the i me him us them himself herself he she it we they you his her hers my mine our ours their theirs its
    your yours this that these those there then than when what where who whom whose why how but and or nor if as
    at in on to for with by from of so not no yes all some one each every after before again still just now here
    well oh let come go do did does is was were be are am has have had will would shall should can could may
    might must very much many more most such only also once even ever never perhaps indeed however thus yet
    though although while until unless because since upon into onto out up down over under about above below
    between through during without within good dear poor sir madam mr mrs dr miss lord lady god oh ah alas hark
    see look tell ask say said like other another both january february march april may june july august
    september october november december monday tuesday wednesday thursday friday saturday sunday chapter letter
    telegram memorandum journal diary note postscript english to-morrow to-night to-day good-bye"""
)
LOCATION_WORDS = _words(
    """street road square castle pass hill hills abbey bay river sea station hotel church cathedral park heath
    lane place cliff cliffs harbour harbor island mountains mountain crescent terrace gardens bridge inn house
    hall town city county valley forest lake port mount asylum cemetery churchyard pier quay dock docks wharf"""
)
_PLACE_FIRST = frozenset({"castle", "mount", "lake", "port", "fort", "cape", "isle"})
_ORG_WORDS = _words("company society co ltd bank railway club lines office ministry college council")
BARE_TITLES = frozenset({"Count", "Countess", "Professor", "Doctor", "Captain", "King", "Queen", "Prince"})
_CLAUSE_START = re.compile(r"(?:^|[:;(\"“‘—]|--|\s'|\n[ \t\r]*\n)[\s\"'“‘(—-]*$")  # a blank line, not a wrapped one
_CONTRACTION = re.compile(r"^['’](?:t|ll|ve|re|d|m)\b")
_GLUED_FORM = re.compile(r"(?:ed|ly|ing)$")
_LOWER = re.compile(r"(?<![\w'’-])[a-z][a-z'’-]*")
_THE_BEFORE = re.compile(r"\bthe\s+$", re.I)
_VESSEL = re.compile(r"\b(?:ship|schooner|vessel|boat|steamer|yacht|brig|barque|sail(?:s|ed|ing)?|crew)\b", re.I)
_SHIP_BEFORE = re.compile(r"\b(?:ship|schooner|vessel|boat|steamer|yacht|brig)\s+$", re.I)
_PERSON_AFTER = re.compile(
    r"^(?:'s|’s|,?\s+(?:said|says|asked|replied|answered|cried|went|came|told|looked|smiled|wrote|thought|"
    r"whispered|laughed|spoke|took|sat|stood|and I|himself|herself|exclaimed|nodded|added))\b"
)
_PERSON_BEFORE = re.compile(
    r"\b(?:said|says|asked|cried|replied|answered|whispered|exclaimed|added|murmured|told|tell|thanked|thank|"
    r"met|meet|married|marry|kissed|dear|poor|(?:wrote|write|writes|written|letter|telegram)\s+(?:to|from))\s+$",
    re.I,
)
_LOC_BEFORE = re.compile(
    r"\b(?:in|at|near|towards?|through|into|across|via|reached|(?:went|go|goes|going|gone|came|come|comes|coming|"
    r"travell?ed|travel|journeyed|returned|return|sailed|sail|drove|arrived|started|way|road|train|back|bound|"
    r"left|leave)\s+(?:back\s+)?(?:to|for|from))\s+(?:the\s+)?$"
)


@dataclass(frozen=True)
class Found:
    """One name in one sentence: the name, its type vote and the vote's weight, where it was."""

    name: str
    type: str
    votes: int
    mid_clause: bool
    sentence: str


def plain(sentence: str) -> str:
    """The sentence with emphasis markup (`_x_`, `*x*`) as spaces: offsets stay the same."""
    return sentence.replace("_", " ").replace("*", " ")


def clause_initial(before: str) -> bool:
    """Whether a word after `before` stands at the start of a clause (capitalised by position)."""
    return _CLAUSE_START.search(before) is not None


class ChunkNames:
    """What a chunk says about its capitalised words: which are seen mid-clause, which in lower case."""

    def __init__(self, sentences: list[str]) -> None:
        self.sentences = sentences
        self.lower = frozenset(w for s in sentences for w in _LOWER.findall(s))
        self.mid: set[str] = set()
        for s in sentences:
            text = plain(s)
            for m in RUN.finditer(text):
                if m.group("hon") or not clause_initial(text[: m.start()]):
                    self.mid.update(m.group("name").split())
                else:
                    self.mid.update(m.group("name").split()[1:])

    def glued(self, word: str) -> bool:
        """A clause-initial first word that is not part of the name after it."""
        low = word.casefold()
        return low in STOP or low in self.lower or (_GLUED_FORM.search(low) is not None and word not in self.mid)

    def found(self) -> list[Found]:
        """Every name in the chunk's sentences, with its type vote."""
        return [f for s in self.sentences for f in self._in_sentence(s)]

    def _in_sentence(self, sentence: str) -> list[Found]:
        text, out = plain(sentence), []
        short = " ".join(sentence.split())[:160]
        for m in RUN.finditer(text):
            hon, after = m.group("hon"), text[m.end() : m.end() + 20]
            if _CONTRACTION.match(after):
                continue
            words = m.group("name").split()
            mid = bool(hon) or not clause_initial(text[: m.start()])
            while words and (words[0].casefold() in STOP or (not mid and len(words) > 1 and self.glued(words[0]))):
                words, mid = words[1:], True  # what follows a shed word stands mid-clause
            while words and words[-1].casefold() in STOP:  # "Thank God"
                words = words[:-1]
            if not words or (not mid and len(words) == 1 and words[0] not in self.mid and self.glued(words[0])):
                continue  # a common word capitalised by position ("Last", "Something")
            if len(words) == 1 and words[0].casefold() in LOCATION_WORDS:
                continue  # "the Pass", "the Castle": a common noun standing for a place named elsewhere
            name = " ".join(words)
            kind, votes = type_vote(hon, name, text[: m.start()], after, sentence, m.start())
            full = f"{hon} {name}" if hon in ("Count", "Lord", "Lady") else name
            mid = mid or words[-1] in self.mid
            if len(words) == 1 and not hon and name.casefold() in self.lower:
                mid = False  # written both ways in the chunk: capitalised for emphasis ("the Vampire")
            out.append(Found(full, kind, votes, mid, short))
        return out


def _emphasised(sentence: str, start: int) -> bool:
    return start > 0 and sentence[start - 1] in "_*"


def place_name(words: list[str]) -> bool:
    """Whether a name's own words say it is a place ("Borgo Pass", "Castle Dracula"), casefolded."""
    return words[-1] in LOCATION_WORDS or words[0] in _PLACE_FIRST


def type_vote(hon: str | None, name: str, before: str, after: str, sentence: str, start: int) -> tuple[str, int]:
    """The type this mention votes for and how many votes (strong evidence counts 3)."""
    if place_name(name.casefold().split()):
        return "Location", 1
    if hon or name in BARE_TITLES:
        return "Person", 3
    if name.casefold().split()[-1] in _ORG_WORDS:
        return "Organization", 1
    emphasised = _emphasised(sentence, start)
    if _SHIP_BEFORE.search(before) or (emphasised and (_THE_BEFORE.search(before) or _VESSEL.search(sentence))):
        return "Product", 3
    if _PERSON_AFTER.match(after) or _PERSON_BEFORE.search(before[-40:]):
        return "Person", 1
    if _LOC_BEFORE.search(before[-40:]):
        return "Location", 1
    return "Concept", 1


def tally(found: list[Found]) -> dict[str, tuple[Counter[str], str, bool]]:
    """Per name: its type votes, the first sentence it is in, whether it was seen mid-clause."""
    out: dict[str, tuple[Counter[str], str, bool]] = {}
    for f in found:
        votes, sentence, mid = out.get(f.name, (Counter(), f.sentence, False))
        votes[f.type] += f.votes
        out[f.name] = (votes, sentence, mid or f.mid_clause)
    return out
