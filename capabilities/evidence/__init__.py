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

The judgements live in their own modules: `asked` reads what a question asks, `people` who is who in
the notes, `choice` ranks and joins the notes (`choose`), `refusals` decides when the chosen notes do
not answer and how sure to be; `words` holds what they share (`Note`, `Ask`, `Evidence`, the patterns).

No answer passes → "I don't know", said without calling the model. Confidence: high when every
key word of the question is covered by notes the best of which was recalled at `SURE_RELEVANCE` or
more, and the question asks no amount (that is where answers were measured right three times in four
on personas nobody had read); medium otherwise; low for "I don't know".
"""

from capabilities.evidence.asked import (
    AGE,
    asks_a_name,
    day_months,
    described,
    has_type,
    read_ask,
    said_of,
    type_level,
)
from capabilities.evidence.choice import (
    ANOTHER_WAY,
    BARE_RELEVANCE,
    JOIN_STARTS,
    MAX_NOTES,
    by_what_they_did,
    cased,
    cased_question,
    choose,
    denied,
    glossed,
    rank,
    superseded,
    tells_change,
    who_assumed,
)
from capabilities.evidence.people import (
    ALIAS_STEPS,
    HER_KIN,
    HIS_KIN,
    aliases,
    asks_by_age,
    by_age,
    entities,
    in_one_step,
    kin_hops,
    kin_named,
    kin_words,
    reading,
    roles,
)
from capabilities.evidence.refusals import (
    HIGH_RELEVANCE,
    SURE_RELEVANCE,
    said_as_object,
)
from capabilities.evidence.words import (
    CLOCK_TIME,
    KIND,
    MEDICINE,
    NAMING,
    NAMING_STEMS,
    ROLE,
    ROLE_STEMS,
    SURNAME,
    WHO_IS_NAMED,
    AnswerType,
    Ask,
    Evidence,
    Note,
    Verdict,
    answer_type,
    candidates,
    corrects,
    covers,
    headed,
    is_calendar,
    is_question,
    kinship,
    parts,
    people_in,
)

__all__ = [
    "AGE",
    "ALIAS_STEPS",
    "ANOTHER_WAY",
    "BARE_RELEVANCE",
    "CLOCK_TIME",
    "HER_KIN",
    "HIGH_RELEVANCE",
    "HIS_KIN",
    "JOIN_STARTS",
    "KIND",
    "MAX_NOTES",
    "MEDICINE",
    "NAMING",
    "NAMING_STEMS",
    "ROLE",
    "ROLE_STEMS",
    "SURE_RELEVANCE",
    "SURNAME",
    "WHO_IS_NAMED",
    "AnswerType",
    "Ask",
    "Evidence",
    "Note",
    "Verdict",
    "aliases",
    "answer_type",
    "asks_a_name",
    "asks_by_age",
    "by_age",
    "by_what_they_did",
    "candidates",
    "cased",
    "cased_question",
    "choose",
    "corrects",
    "covers",
    "day_months",
    "denied",
    "described",
    "entities",
    "glossed",
    "has_type",
    "headed",
    "in_one_step",
    "is_calendar",
    "is_question",
    "kin_hops",
    "kin_named",
    "kin_words",
    "kinship",
    "parts",
    "people_in",
    "rank",
    "read_ask",
    "reading",
    "roles",
    "said_as_object",
    "said_of",
    "superseded",
    "tells_change",
    "type_level",
    "who_assumed",
]
