"""Two people of one name in a question: which one is meant, which notes are about whom, and the
reply that says so instead of mixing them up.

Formation keeps the sister Ana and the colleague Ana apart (memory/formation/graph_writes.py); the
graph says who each one is to the person and where each works (`EntityStore.namesakes`). A text
says which Ana it is about by those *marks*: a role word ("my sister Ana", "The user's colleague
Ana…"), a qualifier ("Ana from work") or an employer ("Ana at Globex"). Model-free, like every
judgement on the policy path.

What the person reads, decided here:
- the question names one ("Where does my sister Ana live?"): notes about only the other Anas are
  set aside, and the reply is the usual one;
- it does not ("Where does Ana work?") and the answer is about one of them: the reply first says
  there are two, then which one it is about: "You've told me about two Anas — your sister and your
  colleague. Your colleague Ana works at Globex.";
- it is answered for several of them: "Which Ana — your sister or your colleague?", then what is
  known of each ("Your sister Ana lives in Lyon. Your colleague Ana lives in Paris.");
- nothing answers: the two are named with the "I don't know", so the person can say which.

An answer counts for one of them only when its notes say which one and hold every key word of the
question: the evidence policy answers "Where does Ana live?" with any place said of an Ana ("works
at Globex"), which is right for one Ana and wrong for the other one.

On the model path the model writes the answer, streamed as it comes, so what is said of the two is
put around it (`around`): "You've told me about two Anas — your sister and your colleague." before
it, and after it which one it was about when the answer cites one of them without saying so
("(That is your colleague Ana.)"), or "Which Ana — your sister or your colleague?" when it cites
both or neither and names neither.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from memory.graph.entities import Namesake
from memory.graph.names import ROLE_QUALIFIERS, name_key

_COUNTS = {2: "two", 3: "three", 4: "four"}
_PERSONS = ("Person", "Concept")  # a bare name formation could not type is a Concept


def _said(words: str, phrase: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(phrase.casefold())}(?!\w)", words) is not None


def marks(n: Namesake) -> list[str]:
    """The words that say which one a text means: role words, "from work" for a colleague, employers."""
    work = [f"from {q}" for q, role in ROLE_QUALIFIERS.items() if role in n.roles]
    return [*n.roles, *work, *n.employers]


@dataclass(frozen=True)
class Ambiguity:
    """A name of the question that calls several entities, and the one the question names, if any."""

    name: str
    namesakes: tuple[Namesake, ...]
    meant: Namesake | None = None

    def about(self, text: str) -> list[Namesake]:
        """The namesakes a text says it is about (none when it says the name without a mark)."""
        words = text.casefold()
        if not _said(words, self.name):
            return []
        by_role = [n for n in self.namesakes if any(_said(words, r) for r in n.roles)]
        return by_role or [n for n in self.namesakes if any(_said(words, m) for m in marks(n))]

    def elsewhere(self, text: str) -> bool:
        """Whether a text is about other namesakes only, not the one the question means."""
        about = self.about(text)
        return self.meant is not None and bool(about) and self.meant not in about

    def label(self, n: Namesake) -> str:
        """Who one of them is to the person: "your sister", "the one at Globex"."""
        if n.roles:
            return f"your {n.roles[0]}"
        return f"the one at {n.employers[0]}" if n.employers else "one you haven't said more about"

    def called(self, n: Namesake) -> str:
        """One of them by name: "your sister Ana", "Ana (the one at Globex)"."""
        return f"your {n.roles[0]} {self.name}" if n.roles else f"{self.name} ({self.label(n)})"

    def two(self) -> str:
        """ "two Anas — your sister and your colleague"."""
        many = _COUNTS.get(len(self.namesakes), str(len(self.namesakes)))
        plural = f"{self.name}s" if not re.search(r"(?:s|x|z|ch|sh)$", self.name) else f"people called {self.name}"
        labels = [self.label(n) for n in self.namesakes]
        return f"{many} {plural} — {', '.join(labels[:-1])} and {labels[-1]}"

    def which(self) -> str:
        """ "Which Ana — your sister or your colleague?"."""
        labels = [self.label(n) for n in self.namesakes]
        return f"Which {self.name} — {', '.join(labels[:-1])} or {labels[-1]}?"


def ambiguities(names: Sequence[str], question: str, lookup: Callable[[str], list[Namesake]]) -> list[Ambiguity]:
    """The question's names that call more than one person, each with the one it names, if it does.

    Args:
        names: the names the question says ("Ana").
        question: the question, for its role words, qualifiers and employers.
        lookup: the namesakes of a name (`EntityStore.namesakes` for this person).
    """
    found: list[Ambiguity] = []
    for name in dict.fromkeys(names):
        same = tuple(n for n in lookup(name) if n.entity.type in _PERSONS and name_key(n.entity.name) == name_key(name))
        if len(same) < 2:
            continue
        amb = Ambiguity(name, same)
        about = amb.about(question)
        found.append(Ambiguity(name, same, about[0] if len(about) == 1 else None))
    return found


def named_in(amb: Ambiguity, n: Namesake, text: str) -> str:
    """A reply about one of them that says which: "Ana works at Globex." → "Your colleague Ana works at
    Globex." (kept as it is when it says the role already)."""
    said = [m for m in marks(n) if m not in n.employers] if n.roles else marks(n)
    if any(_said(text.casefold(), m) for m in said):  # (an employer says which, but "your colleague" says it plainer)
        return text
    called = amb.called(n)
    found = re.search(rf"(?<!\w){re.escape(amb.name)}(?!\w)", text)
    if found is None:
        return f"About {called}: {text}"
    said = called if found.start() else called[0].upper() + called[1:]
    return f"{text[: found.start()]}{said}{text[found.end() :]}"


def reply(amb: Ambiguity, answers: Sequence[tuple[Namesake, str]], fallback: str) -> str:
    """The reply a person reads when the question did not say which one (see the module docstring).

    Args:
        amb: the ambiguity, with no `meant`.
        answers: what answers the question for each namesake it can be answered for.
        fallback: the reply when it answers for none of them (an "I don't know", or a note that
            says the name without saying which one).
    """
    if len(answers) > 1:
        return " ".join([amb.which(), *(named_in(amb, n, text) for n, text in answers)])
    intro = f"You've told me about {amb.two()}."
    if answers:
        n, text = answers[0]
        return f"{intro} {named_in(amb, n, text)}"
    return f"{intro} {fallback}"


def around(amb: Ambiguity, content: str, cited: Collection[int]) -> tuple[str, str]:
    """What the model path says before and after a model's answer to a question that did not say
    which one (see the module docstring): the intro, and the closing words ('' when the answer says
    which one itself).

    Args:
        amb: the ambiguity, with no `meant`.
        content: the model's answer.
        cited: the entity ids the answer cites (its `e4` refs).
    """
    intro = f"You've told me about {amb.two()}."
    said = amb.about(content)
    if len(said) == 1:
        return intro, ""
    by_ref = [n for n in amb.namesakes if n.entity.id in cited]
    if len(by_ref) == 1 and not said:
        return intro, f"(That is {amb.called(by_ref[0])}.)"
    return intro, amb.which()
