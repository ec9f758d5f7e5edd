"""Chat shorthand read as the words it stands for, before anything else reads a message or a note.

People who type fast write "bf is Kieran", "live w/ my flatmate", "dad = Declan", "aoife n ross",
"3 yrs", "mam's 60th". Every policy reads whole English words ("boyfriend", "with", "is", "and"),
so the shorthand is spelled out first: in the question (`capabilities.situation.read`) and in each
remembered note as the evidence policy reads it (`capabilities.evidence.cased`). Only whole tokens
that are shorthand in any English chat are spelled out; the list is generic, tuned to no persona.
What the person typed is stored unchanged.
"&" stays: it joins names ("Hanley & Sons").
"""

from __future__ import annotations

import re

_SPELLED = {
    "bf": "boyfriend", "gf": "girlfriend", "bff": "best friend", "hubby": "husband", "wifey": "wife",
    "bro": "brother", "sis": "sister", "mam": "mum", "mammy": "mum", "mummy": "mum", "bday": "birthday",
    "b-day": "birthday", "w/": "with", "w/o": "without", "bc": "because", "b/c": "because", "cos": "because",
    "cuz": "because", "coz": "because", "abt": "about", "tmrw": "tomorrow", "tmr": "tomorrow", "tho": "though",
    "thru": "through", "wk": "week", "wks": "weeks", "wkend": "weekend", "yr": "year", "yrs": "years",
    "hr": "hour", "hrs": "hours", "mins": "minutes", "appt": "appointment", "ppl": "people",
    "atm": "at the moment", "rn": "right now", "n": "and", "u": "you", "ur": "your", "pls": "please",
    "plz": "please", "thx": "thanks", "+": "and", "=": "is", "r": "are",
    # contractions typed without their apostrophe (not "its", "were", "well", "ill", "id", "wont": words too)
    "im": "I'm", "ive": "I've", "hes": "he's", "shes": "she's", "theyre": "they're", "youre": "you're",
    "dont": "don't", "didnt": "didn't", "doesnt": "doesn't", "isnt": "isn't", "wasnt": "wasn't",
    "arent": "aren't", "werent": "weren't", "havent": "haven't", "hasnt": "hasn't", "couldnt": "couldn't",
    "wouldnt": "wouldn't", "shouldnt": "shouldn't", "thats": "that's", "whats": "what's", "theres": "there's",
}  # fmt: skip
_ALTERNATIVES = "|".join(re.escape(k) for k in sorted(_SPELLED, key=len, reverse=True))
_TOKEN = re.compile(rf"(?<![\w/&+=-])({_ALTERNATIVES})(?=['’]s\b|[\s,.!?;:)]|$)", re.IGNORECASE)


def spelled_out(text: str) -> str:
    """The text with chat shorthand spelled out ("dad = Declan, drove buses 30 yrs" → "dad is Declan,
    drove buses 30 years"); a capitalised shorthand keeps its capital ("Bf's Kieran": "Boyfriend's")."""

    def word(m: re.Match[str]) -> str:
        token = m.group(1)
        if token.isupper() and len(token) > 1:  # an acronym: "an RN at the Royal", "the BC coast"
            return token
        if token == "R":  # a letter ("the letter R"); in chat "r" alone is "are"
            return token
        full = _SPELLED[token.casefold()]
        return full[:1].upper() + full[1:] if token[:1].isupper() else full

    return _mine(_KIN_OF.sub(r"\1's", _TOKEN.sub(word, text)))


# A possessive typed without its apostrophe: "whats my wifes name", "my sisters husband Tom" (not "my
# sisters live in Leeds", "my sons play", "my brothers and I": a plural before a verb or "and")
_KIN_OF = re.compile(
    r"\b((?:my|our|your|his|her|their)\s+(?:wife|husband|mum|mom|dad|sister|brother|son|daughter|boss|partner|"
    r"girlfriend|boyfriend|fiance|fiancee|nan|gran|grandma|grandpa|aunt|aunty|auntie|uncle|cousin|niece|nephew|"
    r"friend|neighbour|neighbor|landlord|landlady|kid))s(?=\s+(?!(?:are|were|have|had|and|or|both|all|live|lived|"
    r"work|worked|play|played|said|say|says|came|come|went|go|got|get|love|like|do|did|don't|didn't|can|will|"
    r"would|is|was|who|that|which|in|at|on|from|to|with|aren't|too|also|just|each)\b)[a-z])",
    re.IGNORECASE,
)


_MINE = re.compile(r"\b(mine)(?:['’]s|\s+is)\b", re.IGNORECASE)
_WHOSE = re.compile(r"\b([A-Za-zÀ-ÿ]+)['’]s\s+(?:(?:new|old|favourite|favorite)\s+)?([a-z]+)\b")
_NOT_OWNERS = frozenset(("it", "that", "he", "she", "what", "there", "who", "here", "let", "where", "how"))


def _mine(text: str) -> str:
    """ "Finn's birthday is 19 January. Mine's 11 May" reads "… my birthday is 11 May": "mine" is the
    thing last said as someone's."""

    def said(m: re.Match[str]) -> str:
        things = [w.group(2) for w in _WHOSE.finditer(text, 0, m.start()) if w.group(1).casefold() not in _NOT_OWNERS]
        if not things:
            return m.group(0)
        return f"{'M' if m.group(1)[0].isupper() else 'm'}y {things[-1]} is"

    return _MINE.sub(said, text)
