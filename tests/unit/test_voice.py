"""Guards on what the small model says: loops, leaked prompt text, hedges, inventions, pronouns."""

from __future__ import annotations

from datetime import datetime

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

from app.grounded import _my_phrase, ack_reply, acknowledgement  # pyright: ignore[reportPrivateUsage]
from app.voice import clean, cut_loop, extractive, grounded_prompt, grounded_reply, second_person, without_opener
from capabilities.evidence import Note
from capabilities.situation import read, stem
from memory.formation.patterns import third_person

NOTES = [Note("m1", "I started a new job at Siemens in March 2024.", datetime(2026, 11, 20), 0.9)]
QUESTION = "When did I start at Siemens?"


def test_grounded_reply_keeps_a_supported_answer_in_the_second_person() -> None:
    text, problem = grounded_reply("I started at Siemens in March 2024.", NOTES, QUESTION)
    assert problem == "" and text == "You started at Siemens in March 2024."


def test_grounded_reply_rejects_what_the_notes_do_not_support() -> None:
    rejected = [
        "Ana birthday",
        "I don't know.",
        "You're sorry for any confusion, but as a data engineer at the headquarters in Germany you started.",
        "Notes: (2026-11-20) I started",
        "</recalled_context> March",
        "The answer is: The answer is: The answer is: The answer is:",
    ]
    for raw in rejected:
        assert grounded_reply(raw, NOTES, QUESTION)[1], raw


def test_clean_cuts_loops_and_rejects_language_switches_and_echoes() -> None:
    assert cut_loop("1. chocolate cake 2. chocolate cake 3. chocolate cake") == "1. chocolate cake"
    assert clean("Le Grand Paris, la femme de la France.", "What's the capital of France?")[1]
    assert clean("thanks!", "thanks!")[1]
    assert clean("You're welcome! Have a good day. See you. Bye.", "thanks!")[0] == "You're welcome! Have a good day."
    # a reply cut off by the token limit ends where its clause did, not on "so"
    assert clean("The wedding is Saturday 16 August in Mahikeng, so", "When was the wedding?")[0] == (
        "The wedding is Saturday 16 August in Mahikeng")
    assert clean("You're Mara, a physio at Otago Hospital, and you work as", "what do I do for work?")[0] == (
        "You're Mara, a physio at Otago Hospital")
    rent = "Rent is going up to $3,450 a month"  # (a figure's comma ends no clause)
    assert clean(f"{rent} from", "what's my rent?")[0] == rent


def test_second_person_and_acknowledgement() -> None:
    assert second_person("I'm Maya and I live in Lisbon.") == "You're Maya and you live in Lisbon."
    assert second_person("The user's cat is Miso.") == "Your cat is Miso."
    assert second_person("hey im sam, i work as a barista") == "Hey you're sam, you work as a barista"  # lower case
    assert second_person("He's FIFO on a mine site, back to the US in May with us.") == (
        "He's FIFO on a mine site, back to the US in May with you."
    )  # a pit, a country
    assert acknowledgement("My cat is called Miso.") == "Got it — your cat is called Miso. I'll remember that."
    assert extractive(NOTES) == "You started a new job at Siemens in March 2024."
    # read as a stranger would: no chat opener, no capital mid-sentence, "we" is the person
    assert acknowledgement("hiya, I'm Owen.") == "Got it — you're Owen. I'll remember that."
    assert acknowledgement("His wife Nia is a midwife.") == "Got it — his wife Nia is a midwife. I'll remember that."
    assert acknowledgement("We have a beagle called Biscuit.").startswith("Got it — you have a beagle")
    assert acknowledgement("Oh and Gareth moved to Cardiff now.").startswith("Got it — Gareth moved to Cardiff")
    assert acknowledgement("change of plan, my marathon goal is now 3:30") == (
        "Got it — your marathon goal is now 3:30. I'll remember that."
    )  # was "Got it — Change of plan, your marathon goal…"
    # a greeting with a name and more: greeted, and the rest said back (was "Got it — you're Omar.")
    assert acknowledgement("hey, I'm Omar. I'm a second-year architecture student in Lyon.") == (
        "Nice to meet you, Omar! Got it — you're a second-year architecture student in Lyon. I'll remember that."
    )
    # the chat words a message ends on are not said back, nor remembered as a fact
    assert acknowledgement("I'm allergic to shellfish btw") == (
        "Got it — you're allergic to shellfish. I'll remember that."
    )
    assert third_person("I'm allergic to shellfish btw") == "The user is allergic to shellfish."


def test_grounded_prompt_is_short_dated_and_plain() -> None:
    prompt = grounded_prompt(NOTES, QUESTION)
    assert prompt == "Notes:\n(2026-11-20) I started a new job at Siemens in March 2024.\n\nQuestion: " + QUESTION


def test_extractive_says_the_sentences_that_answer_with_who_they_are_about() -> None:
    notes = [
        Note("m1", "Oh, small correction: my sister moved to Porto last month."),
        Note("m2", "Rhys is not impressed about changing schools. He just turned twelve and loves rugby."),
        Note("m3", "We meet every Thursday in a tram depot."),
    ]
    assert extractive(notes[:1]) == "Your sister moved to Porto last month."  # the chat opener is dropped
    # the sentence that gives the answer, with the one before it that says who "he" is; the
    # context note that says nothing asked is left out
    assert extractive(notes[1:], "How old is my nephew?", {"twelve"}) == (
        "Rhys is not impressed about changing schools. He just turned twelve and loves rugby."
    )
    carla = Note("m4", "My friend Carla got me into pottery. She's a nurse at St. Georg hospital.")
    assert extractive([carla], "What does Carla do?").endswith("She's a nurse at St. Georg hospital.")


def test_grounded_reply_refuses_a_corrected_value() -> None:
    notes = [Note("m1", "Gareth rang: they're leaving Swansea, moving to Cardiff in September.")]
    question = "Which city does Gareth live in?"
    text, problem = grounded_reply("Gareth lives in Swansea.", notes, question, {"cardiff"}, {"swansea"})
    assert not text and problem


def test_grounded_reply_refuses_a_name_the_notes_never_say() -> None:
    notes = [Note("m1", "And I got promoted, I'm a senior UX researcher now!")]
    assert grounded_reply('Your title is "UX Research and Development".', notes, "What's my job title?")[1]
    assert grounded_reply("You are a senior UX researcher.", notes, "What's my job title?")[0]


def test_grounded_reply_refuses_a_denial_no_note_makes() -> None:
    # a real chat: "who is Rui?" from "the shop manager is a guy called Rui, very chill"
    notes = [Note("m10", "the shop manager is a guy called Rui, very chill")]
    assert grounded_reply("Rui is a shop manager, not a guy.", notes, "who is Rui?")[1]
    assert grounded_reply("Rui is the shop manager.", notes, "who is Rui?")[0] == "Rui is the shop manager."
    corrected = [Note("m11", "actually Fumo is a lurcher, not a whippet, the vet said")]
    assert grounded_reply("Fumo is a lurcher, not a whippet.", corrected, "what breed is Fumo?")[0]
    assert grounded_reply("You spent 2026-11-23 at the shop.", notes, "who is Rui?")[1]  # a date stamp


def test_a_number_the_notes_do_not_say_is_not_given() -> None:
    from app.voice import grounded_reply
    from capabilities.evidence import Note

    notes = [Note("m1", "The hospital letter came through with a date for the operation in March.")]
    assert grounded_reply("The date is March 24th.", notes, "What date is my operation?")[1]
    assert grounded_reply("It is in March.", notes, "What date is my operation?") == ("It is in March.", "")
    # an amount is one number: "$5,000.00" is not said by "R37,000", nor by "5 minutes" and "000"
    lease = [Note("m2", "Security deposit: R37,000, paid 5 minutes after signing.")]
    assert grounded_reply("The security deposit is $5,000.00.", lease, "How much was the deposit?")[1]
    assert not grounded_reply("The security deposit is R37 000.", lease, "How much was the deposit?")[1]
    # a day and a month no note says together
    told = [Note("m3", "Sipho turns 44 on the 22nd!"), Note("m4", "Gogo turns 70 on 14 September.")]
    assert grounded_reply("Sipho's birthday is on 22 September.", told, "When's Sipho's birthday?")[1]
    assert not grounded_reply("Gogo's birthday is September 14th.", told, "When's Gogo's birthday?")[1]


def test_the_voice_does_not_agree_with_what_nobody_said() -> None:
    from app.voice import grounded_reply
    from capabilities.evidence import Note

    notes = [Note("m1", "I sing alto with the Cellardyke Community Choir.")]
    text, problem = grounded_reply("You're right, you sing alto with the choir.", notes, "Which part do I sing?")
    assert not problem
    assert text.casefold().startswith("you sing alto")


def test_which_of_my_neighbours_is_answered_with_the_one_said_as_a_neighbour() -> None:
    from app.grounded import _one_of_mine
    from capabilities.evidence import Note

    notes = [
        Note("m1", "Bramble was the runt of a litter on my neighbour Sheena's brother's farm."),
        Note("m2", "Sheena lives across the road since Douglas passed. Her brother is Alec, he farms near Ceres."),
    ]
    question = "Which of my neighbours is related to the farmer who bred Bramble?"
    assert _one_of_mine(question, notes) == {"sheena"}  # though both notes say her: not Douglas, not Alec
    assert _one_of_mine("Who bred Bramble?", notes) == set()
    assert grounded_reply("The farmer who bred Bramble is Douglas.", notes, question, {"sheena"})[1]


def test_what_the_person_says_they_do_is_the_answer_to_what_do_i_do() -> None:
    from app.grounded import _done
    from capabilities.evidence import Note

    notes = [Note("m1", "oh and I play bass in a band called the Loose Units. Fitz is on drums, Danika sings.")]
    assert _done(notes, stem("play")) == {"bass"}  # not Fitz's drums
    assert grounded_reply("You play on drums.", notes, "What do I play in the band?", {"bass"})[1]


def test_what_someone_else_is_said_to_do_is_the_answer_to_what_does_gary_do() -> None:
    from app.grounded import _ANYONE, _done
    from capabilities.evidence import Note

    notes = [Note("m1", "My husband Gary retired two years ago, and he has basically moved into the garage since "
                        "then — he builds cedar birdhouses and sells them at the farmers' market.")]  # fmt: skip
    assert _done(notes, stem("build"), _ANYONE) == {"cedar"}  # what the reply must say: not just the garage
    assert grounded_reply("Gary has moved into the garage.", notes, "What does Gary build in the garage?", {"cedar"})[1]


@pytest.mark.parametrize(
    ("message", "reply"),
    [
        ("thanks!", "You're welcome!"),
        ("Thank you so much", "You're welcome!"),
        ("good morning :)", "Good morning! What's on your mind?"),
        ("hi", "Hi! What's on your mind?"),
        ("bye", "Bye for now — I'll remember what you told me."),
        ("ok cool", "Okay."),
    ],
)
def test_an_acknowledgement_gets_a_reply_in_kind_without_a_model(message: str, reply: str) -> None:
    assert ack_reply(message) == reply


def test_small_talk_to_reverie_is_answered_plainly_without_the_model_or_memory() -> None:
    # asked, the 135M model said "I'm just going to check my email." to "what's up?" and "I'm so sorry to
    # hear about the recent COVID-19 pandemic." to "how are you today?"
    for message in ("how are you?", "Good morning Reverie, how are you today?", "hey, how's it going"):
        assert read(message).kind == "ack"
        assert ack_reply(message) == "I'm well, thanks for asking! What's on your mind?"
    assert ack_reply("what's up?") == "Not much here. What's on your mind?"
    # (in a thread, "what's new with you?" read as going on from it, and the last telling was said back)
    assert read("what's new with you?", ["also Jonas got a new job"]).kind == "ack"
    assert ack_reply("what's new with you?") == "Not much here. What's on your mind?"
    assert ack_reply("who are you?").startswith("I'm Reverie, a private assistant")
    assert "upload documents" in ack_reply("what can you do?") and read("help").kind == "ack"
    # about someone else, or more than small talk: a question like any other
    for message in ("what's up with my sister?", "how are you feeling about my plan?", "who are you seeing tonight?"):
        assert read(message).kind != "ack"


def test_a_reply_may_not_say_a_relation_the_notes_do_not() -> None:
    kids = [Note("m1", "We have two kids, Maisie who is 7 and Alfie who is 4.", datetime(2026, 11, 1))]
    text, problem = grounded_reply("Alfie is Maisie's son.", kids, "What are my kids called?")
    assert text == "" and "relation" in problem
    assert grounded_reply("Your kids are Maisie and Alfie.", kids, "What are my kids called?")[1] == ""


def test_parallel_phrases_with_different_numbers_are_no_loop() -> None:
    said = "You have two kids, Maisie who is 7 and Alfie who is 4."
    assert cut_loop(said) == said
    assert cut_loop("The answer is: 7. The answer is: 7. The answer is: 7.") == "The answer is: 7."


def test_a_greeting_that_says_who_the_person_is_is_a_statement_greeted_back() -> None:
    for message, name in (("Hi, I'm Sam.", "Sam"), ("Hello! My name is Ana.", "Ana")):
        assert read(message).kind == "statement"
        assert acknowledgement(message) == f"Hi {name}, nice to meet you! I'll remember that."
    assert read("Hi there").kind == "ack" and read("I'm Spanish.").kind != "statement"
    # news told in a thread is a statement, though "I just" may also point back ("what did I just say?")
    assert read("Actually I just sold the Skoda, I drive a Tesla now.", ["I drive a Skoda."]).kind == "statement"
    assert read("What did I just tell you?", ["I drive a Skoda."]).kind == "continuation"


def test_the_prompts_date_said_back_is_dropped() -> None:
    raw = "Today is 2026-11-24, I'm glad you asked. Lentil curry is a good one."
    assert clean(raw, "what's a good vegetarian dinner idea?")[0] == "I'm glad you asked. Lentil curry is a good one."
    # said anywhere else, garbled or not, the prompt's form of a date is prompt text ("tell me a joke")
    assert clean("What's a joke about a 2020-11-29?", "tell me a joke") == ("", "the reply repeated prompt text")
    assert clean("2026-12-25 is a Friday.", "what day of the week is 2026-12-25?")[0] == "2026-12-25 is a Friday."
    heard = acknowledgement("hey! im priya, just moved to Leeds")  # the greeting is not what was said
    assert heard == "Got it — you're priya, just moved to Leeds. I'll remember that."


def test_a_clock_time_asked_is_found_whole_in_the_notes() -> None:
    from app.voice import said_tokens

    assert "8:15" in said_tokens("Friday at 8:15.")
    notes = [Note("m1", "Gary drives me. I go three mornings a week at 8:15.", datetime(2026, 1, 5), 0.8),
             Note("m2", "Discharged from PT on March 27th.", datetime(2026, 3, 27), 0.8)]  # fmt: skip
    assert extractive(notes, "What time were my PT appointments?", {"8:15"}).startswith("You go three mornings")


def test_a_figure_is_said_whole() -> None:
    from app.voice import said_tokens

    assert {"8,700", "4.60"} <= said_tokens("He let it go for €8,700, and oil was 4.60 a kilo.")


def test_clean_rejects_a_drift_into_another_language_and_a_reply_that_only_loops() -> None:
    # the embedded model's answer to "What's the capital of France?": English words after the drift
    drift = "L'Alma, la France, la France. (The City of Light, the City of Light.)"
    assert clean(drift, "What's the capital of France?")[1]
    assert clean("The answer is: The answer is: The answer is: The answer is:", "where do I work?")[1]
    assert clean("Paris is the capital of France.", "What's the capital of France?") == (
        "Paris is the capital of France.", "")
    assert cut_loop("la France, la France") == "la France"  # two words said twice in a row
    assert cut_loop("I had a very good day, a good one.") == "I had a very good day, a good one."


def test_an_acknowledgement_greets_a_name_given_as_here_and_drops_a_wait() -> None:
    assert acknowledgement("hey, tom here. 34, living in leeds") == "Hi Tom, nice to meet you! I'll remember that."
    assert acknowledgement("oh wait, my cello lessons are on Tuesdays not Thursdays") == (
        "Got it — your cello lessons are on Tuesdays not Thursdays. I'll remember that.")


def _thread(*said: str) -> list[ModelMessage]:
    """A thread of alternating messages and replies, the person first."""
    return [
        ModelRequest(parts=[UserPromptPart(content=s)]) if i % 2 == 0 else ModelResponse(parts=[TextPart(content=s)])
        for i, s in enumerate(said)
    ]


@pytest.mark.parametrize(
    ("thread", "question", "read_as"),
    [
        # a month is no one: "where does March live?" was answered "March lives in Leeds."
        (("When is my mum's birthday?", "Your mum's birthday is on 14 March."), "Where does she live?",
         "Where does my mum live?"),
        (("When is my mum's birthday?", "14 March."), "what's her surname?", "what's my mum's surname?"),
        (("Who is my partner?", "Your partner's name is Jonas."), "what does he teach?", "what does Jonas teach?"),
        # the kin word of the pronoun's sex, the name said last
        (("My brother Tom and my sister are coming.", "I will remember that."), "when does she arrive?",
         "when does my sister arrive?"),
        (("I saw my mum and then Ana.", "I will remember that."), "where does she live?", "where does Ana live?"),
        # not one the person called by the other sex's pronoun earlier in the thread (a real chat, 2026-11-29)
        (("how many kids does Inês have?", "Inês has two kids.", "what's her husband's name?", "I don't know."),
         "what does he do?", "what does he do?"),
        (("how many kids does Inês have?", "Inês has two kids.", "what's her husband's name?", "I don't know."),
         "what does she do?", "what does Inês do?"),
        (("When is my mum's birthday?", "14 March."), "should I call her tomorrow?", "should I call my mum tomorrow?"),
        # a question that leaves out what it asks about is the one before, asked with its words
        (("when is my dentist appointment?", "Thursday 4 December."), "what time?",
         "what time is my dentist appointment?"),
        (("where is Jake getting married?", "In Cork."), "and when?", "when is Jake getting married?"),
        (("what's my marathon goal?", "3:30."), "what was it before?", "what was my marathon goal before?"),
        (("My dog is called Rex.", "Got it."), "when?", "when?"),  # nothing asked before
        # a place is no one: "And where does Matosinhos work?"
        (("What does my girlfriend do?", "Your girlfriend Inês is a vet, she works at a clinic in Matosinhos."),
         "And where does she work?", "And where does Inês work?"),
        # a reply says whom it is about first (a real chat read "she" as Ida, one of the twins)
        (("where does my sister live?",
          "Your sister Miriam lives in Vienna, she just had twins in October, Paul and Ida."),
         "and when did she have the twins?", "and when did Miriam have the twins?"),
        # "they" is the many things the question before asked about (the model said "They're both named Miriam.")
        (("and when did Miriam have the twins?", "In October."), "what are their names?", "what are the twins' names?"),
        (("how are my chickens doing?", "I don't know."), "how old are they?", "how old are my chickens?"),
    ],
)
def test_a_follow_up_pronoun_is_the_one_the_thread_named_last(
    thread: tuple[str, ...], question: str, read_as: str
) -> None:
    from app.grounded import followed_up

    assert followed_up(read(question), question, _thread(*thread))[1] == read_as


def test_a_correction_is_said_first_and_what_it_replaced_as_history() -> None:
    notes = [
        Note("m1", "my dentist appointment is on tuesday 2 december at 10am", datetime(2026, 11, 28, 12)),
        Note("m2", "actually the dentist moved to thursday 4 december, same time", datetime(2026, 11, 28, 13)),
    ]
    said = extractive(notes, "when is my dentist appointment?")
    assert said.startswith("The dentist moved to thursday 4 december") and "Earlier: Your dentist" in said
    assert extractive(notes[:1], "when is my dentist appointment?").startswith("Your dentist appointment is on")


def test_news_of_a_new_value_told_without_a_word_of_correction_is_said_first() -> None:
    # the evidence policy joins later news of the same thing (`tells_change`); the voice says it as the answer
    notes = [
        Note("m1", "my rent is $450 a month", datetime(2026, 10, 1, 12)),
        Note("m2", "landlord wrote, the rent is going from $450 to $520 in january", datetime(2026, 11, 28, 13)),
    ]
    said = extractive(notes, "how much is my rent?")
    assert said.startswith("Landlord wrote, the rent is going from $450 to $520")
    assert "Earlier: Your rent is $450" in said


def test_a_time_said_as_the_person_said_it_gets_the_days_it_meant() -> None:
    # "when did I adopt Fumo?", asked weeks later: "last weekend" alone answers nothing (a real chat)
    from app.voice import told_when

    notes = [Note("m8", "we adopted a dog last weekend, a grey whippet called Fumo", datetime(2026, 11, 29, 4))]
    reply = "You adopted a dog last weekend, a grey whippet called Fumo."
    assert told_when(reply, notes) == (
        "(You told me that on Sunday 29 November 2026, so “last weekend” was 21–22 November 2026.)"
    )
    today = [Note("m1", "Cataract surgery done today, right eye", datetime(2025, 7, 3, 18))]
    assert told_when("Your cataract surgery was done today.", today) == "(You told me that on Thursday 3 July 2025.)"
    assert told_when("You adopted a grey whippet called Fumo.", notes) == ""  # the reply says no such time


def test_a_documents_table_is_said_by_its_header_and_the_rows_asked() -> None:
    """The whole medication table ran past the reply's length before the vitamin D row, which says the day."""
    table = ("Daily medicines: | Medicine | Dose | When | Why | |---|---|---|---| | Bisoprolol | 2.5 mg, 1 tablet | "
             "8:00, with breakfast | heart rhythm | | Metformin | 500 mg, 1 tablet | with dinner | type 2 diabetes | | "
             "Vitamin D (cholecalciferol) | 100,000 IU, 1 ampoule | once every 3 months, next on 1 February 2027 | "
             "vitamin D deficiency |")  # fmt: skip
    said = extractive([Note("d1", table, source="chunk")], "When is my father's next vitamin D ampoule due?")
    assert said.startswith("Daily medicines: Medicine | Dose | When | Why — Vitamin D") and "1 February 2027" in said
    assert "Bisoprolol" not in said and "Metformin" not in said
    # a table nothing asked is said of stays whole
    assert "Bisoprolol" in extractive([Note("d1", table, source="chunk")], "what's in the plan?")


def test_a_message_that_opens_on_telling_reverie_is_said_back_without_it() -> None:
    father = Note("m1", "I need to tell you about my father, Nabil Haddad. He is 79 and lives in Lyon.")
    assert extractive([father], "how old is my father?").startswith("Your father, Nabil Haddad. He is 79")
    assert acknowledgement("I wanted to tell you that I got the job at the bakery") == (
        "Got it — you got the job at the bakery. I'll remember that."
    )


# --- twenty-third session, voice ---


def _voiced(question: str, said: str, notes: list[Note]) -> str:
    """The grounded reply to a question from these notes when the model says `said` (`app.grounded._grounded`)."""
    import asyncio
    from datetime import date

    from pydantic_ai.messages import ModelResponse, TextPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from app.grounded import _Found, _grounded  # pyright: ignore[reportPrivateUsage]
    from app.llm import Backend

    async def stream(messages: list[ModelMessage], info: AgentInfo):
        yield said

    async def request(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(said)])

    backend = Backend("embedded", "scripted", "", FunctionModel(request, stream_function=stream))
    found = _Found()
    found.notes.extend(notes)
    return asyncio.run(_grounded(backend, read(question), question, found, [], date(2026, 11, 29))).content


def test_the_value_a_change_says_is_the_answer_not_the_ones_after_it() -> None:
    """held19 "when is my english class now?": the voice said the evenings the person was too tired on,
    and the change's own value (saturday) was read as the stale one, being said before them."""
    note = Note("m1", "my yoga class change, now is online, saturday morning. monday and wednesday night I am "
                "too tired", datetime(2026, 11, 20))  # fmt: skip
    reply = _voiced("when is my yoga class now?", "Monday and wednesday night you are too tired.", [note])
    assert "saturday" in reply.casefold()


def test_a_thing_called_old_in_a_change_is_not_what_the_person_has_now() -> None:
    """held22 "What tractor have I got now?": "The old Fendt tractor finally died…" was said back."""
    note = Note("m1", "The old Volvo car finally died, from 1998 it was. I bought a second-hand Skoda Octavia from "
                "Autohaus Berg, 9,000 euro.", datetime(2026, 11, 20))  # fmt: skip
    reply = _voiced("What car have I got now?", "The old Volvo car finally died, from 1998 it was.", [note])
    assert "Skoda" in reply


def test_a_place_asked_through_someone_is_where_they_are_not_their_name() -> None:
    """held19 "in which city we stay the first week in Japan?": "in the house of Naoko" names the link, the
    note about Naoko says the city."""
    notes = [
        Note("m1", "I have a cousin in Canada, Priya, the daughter of my aunt. she go to Canada in 2001 as a nurse and "
             "never come back. she live in Winnipeg and work in a bank", datetime(2026, 11, 20)),
        Note("m2", "the first week in Canada we stay in the house of Priya. after we go to Banff by car",
             datetime(2026, 11, 21)),
    ]  # fmt: skip
    reply = _voiced("in which city we stay the first week in Canada?", "You stay in the house of Priya.", notes)
    assert "Winnipeg" in reply


def test_a_bare_now_about_something_else_corrects_no_place() -> None:
    """held22 "which city does my only grandchild live in": "…now he is 19 and he still lives with us" in a
    later note about the foster son made Groningen a corrected answer and led the reply."""
    notes = [
        Note("m0", "She is married to Lotte, who is a vet at the practice in Dokkum, so we never have to wait for "
             "the vet.", datetime(2026, 11, 20), 0.9),
        Note("m1", "Pieter is 33, he is a physiotherapist in Groningen. His wife is Sanne and they have a little "
             "girl, Femke, she is 4, our only grandchild.", datetime(2026, 11, 20, 1), 0.9, after="m0"),
        Note("m2", "And then Dani, he came to us in 2019 when he was 12, now he is 19 and he still lives with us. He "
             "does an apprenticeship at the tractor dealer in Dokkum.", datetime(2026, 11, 20, 2), 0.9, after="m1"),
    ]  # fmt: skip
    assert _voiced("which city does my only grandchild live in", "Femke lives in Groningen.", notes) == (
        "Femke lives in Groningen."
    )


def test_a_message_that_opens_on_let_me_tell_you_is_said_back_without_it() -> None:
    """held22: "Let me tell you about the children…" was said back as "Let you tell you about the children…"."""
    note = Note("m1", "Let me tell you about my sister Ana, she is a nurse in Leeds.")
    said = extractive([note], "what does Ana do?")
    assert said == "Your sister Ana, she is a nurse in Leeds."

def test_a_name_given_in_a_clause_is_greeted_and_an_interjection_is_not_said_back() -> None:
    # "I'm Mira, I just moved…" was said back as "you're Mira, you just moved…", never greeted; "ugh my back
    # hurts" as "Got it — ugh your back hurts"
    assert acknowledgement("hi! I'm Mira, I just moved to Leeds for a job at a bakery called Crumb & Co") == (
        "Nice to meet you, Mira! Got it — you just moved to Leeds for a job at a bakery called Crumb & Co. "
        "I'll remember that."
    )
    assert acknowledgement("ugh my back hurts, the physio said it's a slipped disc") == (
        "Got it — your back hurts, the physio said it's a slipped disc. I'll remember that."
    )
    assert acknowledgement("also Pickle is now 4, her birthday was last week") == (
        "Got it — Pickle is now 4, her birthday was last week. I'll remember that."
    )
    tired = acknowledgement("I'm tired, my boss is mean")
    assert tired == "Got it — you're tired, your boss is mean. I'll remember that."


def test_a_remembered_message_is_said_back_without_a_news_opener_or_a_name_here() -> None:
    # "Correction on that, Fergal rang back…", "Bit of news, your mother…", "Dara here, you drive…" were
    # said back to the person as remembered
    assert without_opener("Correction on that, Fergal rang back and it's 340") == "Fergal rang back and it's 340"
    assert without_opener("Bit of news, my mother Bridie is moving in") == "my mother Bridie is moving in"
    assert without_opener("Dara here, I drive the 405 bus route") == "I drive the 405 bus route"
    assert without_opener("Here we go again") == "Here we go again"


def test_a_refusal_names_the_compound_the_question_ends_on() -> None:
    # "what medication am I on for my blood pressure?" got "you haven't told me that about your blood."
    assert _my_phrase("what medication am I on for my blood pressure?") == "blood pressure"
    assert _my_phrase("what is my phone number?") == "phone number"
    assert _my_phrase("where is my car parked?") == "car"
    assert _my_phrase("how old is my mum?") == "mum"
    assert _my_phrase("what does my dog eat?") == "dog"
    assert _my_phrase("in which neighbourhood is the apartment where my mother fall?") == "mother"


def test_a_newer_change_of_something_not_asked_does_not_lead_the_reply() -> None:
    # "when is Ola's wedding?" was answered "Pickle is now 4, her birthday was last week. Earlier: Ola moved
    # the wedding to September…" (the rabbit's news, told in the turn after the wedding's, joined to it)
    wedding = Note("m1", "oh btw Ola moved the wedding to September, the venue in June fell through",
                   datetime(2026, 11, 29, 10), 0.9)
    pickle = Note("m2", "also Pickle is now 4, her birthday was last week", datetime(2026, 11, 29, 11), 0.8)
    said = extractive([wedding, pickle], "when is Ola's wedding?", needed=("september", "week"))
    assert said.startswith("Ola moved the wedding to September")
    dentist = Note("m3", "the dentist moved to thursday 4 december, same time", datetime(2026, 11, 29, 12), 0.8)
    appointment = Note("m4", "my dentist appointment is on tuesday 2 december at 10am", datetime(2026, 11, 28), 0.9)
    assert extractive([appointment, dentist], "when is my dentist appointment?").startswith(
        "The dentist moved to thursday 4 december, same time. Earlier:"
    )


# --- twenty-fourth session, voice ---


def test_a_clause_that_says_one_did_what_takes_two_is_cut() -> None:
    """"what does he do?" was answered "Tomasz is a ship engineer, and he's seen each other every few weeks": the
    note's "we see each other" given to him alone, and every word of it in the notes, so no check refused it."""
    notes = [Note("m1", "my brother Lukas lives in Porto, he's a bus mechanic, we phone each other every sunday")]
    question = "what does Lukas do?"
    text, problem = grounded_reply("Lukas is a bus mechanic, and he's phoned each other every sunday.", notes, question)
    assert problem == "" and text == "Lukas is a bus mechanic."
    assert grounded_reply("She phones each other every sunday.", notes, question)[1]  # nothing else said: refused
    for said in ("Lukas and you phone each other every sunday.", "He says you phone each other every sunday."):
        assert grounded_reply(said, notes, question) == (said, "")  # two doers: as said


def test_a_newer_change_of_another_thing_leaves_the_answer_standing() -> None:
    """held20 "When is mama's party?": a later "the February trip's changed… Friday 26 February", joined through
    the brother both notes name, made the party's Saturday 16 January stale, so the right reply was refused."""
    wedding = Note("m1", "my cousin Ana's wedding is on saturday 14 june in Galway, my brother Tom is driving us",
                   datetime(2026, 11, 2), 0.9)
    trip = Note("m2", "the Lisbon trip changed, Tom and I fly out friday 20 june now instead",
                datetime(2026, 11, 20), 0.8)
    said = "Ana's wedding is on Saturday 14 June."
    assert _voiced("when is Ana's wedding?", said, [wedding, trip]) == said


def test_a_date_the_question_says_does_not_make_a_change_of_another_thing_about_it() -> None:
    """"In what year was the club I joined in September 2023 founded?" got "…founded in 2023.": "The Sicily trip moved
    to September 2027" shares only the month with the question, yet made the founding year stale."""
    notes = [Note("m1", "Cantabile was founded in 1987 by Hanne Vik, a retired organist from the cathedral.",
                  datetime(2026, 11, 1), 0.9),
             Note("m2", "I joined a choir called Cantabile in March 2024.", datetime(2026, 11, 1), 0.9),
             Note("m3", "The Crete trip moved to March 2027, we couldn't get time off in June.",
                  datetime(2026, 11, 20), 0.8)]  # fmt: skip
    said = "The choir was founded in 1987."
    assert _voiced("In what year was the choir I joined in March 2024 founded?", said, notes) == said


def test_a_newer_change_of_another_thing_does_not_lead_the_notes_said_back() -> None:
    """"which day is my physiotherapy now?" was answered "Now she work only three days in the week, monday, wednesday
    and friday. Earlier: After the surgery you do physiotherapy now on wednesday…": a colleague's days, said first."""
    notes = [Note("m1", "after the operation I do physio on thursday now, not tuesday", datetime(2026, 11, 1), 0.9),
             Note("m2", "my neighbour Ruth works only three days now, monday, thursday and friday",
                  datetime(2026, 11, 20), 0.7)]  # fmt: skip
    said = _voiced("which day is my physio now?", "I don't know.", notes)  # (the model's reply refused)
    assert said.startswith("After the operation you do physio on thursday now, not tuesday.") and "Earlier" not in said


def test_a_clause_after_the_answer_that_names_what_no_note_says_is_cut() -> None:
    """"The brother who sold you his car lives in Solihull, a small town in the UK.": the UK, said by no note, was no
    name to the check (all capitals), and the appositive was the model's own."""
    notes = [Note("m1", "my brother Olek sold me his old van, he lives in Tamworth now with his girlfriend")]
    question = "which town does the brother who sold me his van live in?"
    said = "The brother who sold you his van lives in Tamworth"
    for tail in (", a market town in the UK.", ", near Lichfield."):
        assert grounded_reply(said + tail, notes, question) == (f"{said}.", "")
    assert grounded_reply("He lives in the UK, in Tamworth.", notes, question)[1]  # (nothing before it to keep)


# --- twenty-fifth session, lead ---


def test_a_number_said_of_another_name_than_the_notes_say_it_of_is_refused() -> None:
    """"how old is Nell?" was answered "Your wife Aisling is 9, and Clara is 6." from "…Aisling is a nurse…, and we
    have two girls, Clara who's 9 and Nell who's 6": every word the notes', so no check saw the ages swapped."""
    notes = [Note("m1", "my husband Kwame drives a bus, and we have two boys, Kofi who's 11 and Yaw who's 7")]
    question = "how old is Yaw?"
    assert grounded_reply("Your husband Kwame is 11, and Kofi is 7.", notes, question)[1]
    for said in ("Kofi is 11 and Yaw is 7.", "Yaw who's 7 and Kofi who's 11."):
        assert grounded_reply(said, notes, question) == (said, "")  # each of its own: as said


def test_a_reply_left_at_a_clause_begun_ends_where_its_last_whole_clause_did() -> None:
    """"what does my wife do?" read "Your wife is a nurse at the Mercy hospital, and she's": the model's words ran
    out at a new clause's doer, and the person read the stub."""
    assert clean("Your husband is a baker at Murphy's, and he's", "what does my husband do?") == (
        "Your husband is a baker at Murphy's", "")  # fmt: skip
    branch = "The new branch is in Didsbury"
    assert clean(f"{branch} so it", "where is the new branch?") == (branch, "")
    assert clean("Your dog loves it", "what does my dog love?") == ("Your dog loves it", "")  # a whole clause: as said


# --- twenty-sixth session, voice ---


def test_a_note_joined_through_no_word_asked_gives_the_voice_no_answer() -> None:
    """"what does my dad do for work" got "Your dad, Verónica, is a primary school teacher…": the mother's note,
    the turn before the father's, was chosen beside it and its name and job were said as the answer. A note
    that says no word asked, no name asked and is not the turn a chosen one leans on is not the voice's."""
    t = datetime(2026, 11, 2)
    parents = [Note("m1", "family stuff. my mum Ines is a nurse at the Royal in Leeds", t, 0.8),
               Note("m2", "my dad pedro has a bakery there, Pan Dulce, mostly bread and cakes", t, 0.8, after="m1")]
    said = _voiced("what does my dad do for work", "Your dad, Ines, is a nurse at the Royal in Leeds.", parents)
    assert "Pan Dulce" in said and "Ines" not in said
    crutches = [Note("m1", "The clinic rang, the wrist surgery moved from 3 May to 10 May.", t, 0.8),
                Note("m2", "So the Paris trip waits too, with four weeks in a cast I can't carry bags.", t, 0.8,
                     after="m1"),
                Note("m3", "Also we sold the caravan to a couple in Whitby, got 9,000 for it.", t, 0.7, after="m2")]
    said = _voiced("How long will I be in a cast after the surgery?", "You got 9,000 for the caravan.", crutches)
    assert "four weeks" in said and "caravan" not in said
    grandson = [Note("m1", "Tomás rang, he's doing medicine at Trinity now, first year, my grandson the doctor!",
                     t, 0.8, after="m0"),
                Note("m2", "Oh and Declan came by after a hurling match in Ennis, he has a pub out in Kilkee.", t, 0.6,
                     after="m1")]  # fmt: skip
    said = _voiced("What's my grandson studying at college?", "Your grandson is studying in Ennis.", grandson)
    assert "medicine" in said and "Ennis" not in said


def test_asked_how_long_the_answer_is_a_stretch_of_time_not_a_date_beside_it() -> None:
    """"How long will I be on crutches after the operation?" got "…so now you fly on 8 September.": the six weeks
    were read as a figure a newer date replaced. Asked how long, a count of days, weeks, months or years answers."""
    t = datetime(2026, 11, 2)
    cases = [
        ("How long will I wear the boot after the surgery?",
         [Note("m1", "The surgery moved, not 3 March anymore but Friday 13 March.", t, 0.8),
          Note("m2", "So the Rome trip moves as well, with five weeks in the boot I can't walk far. "
                     "Now we fly on 20 June.", t, 0.8, after="m1")], "five weeks"),
        ("how long have I been taking the atorvastatin?",
         [Note("m1", "been on atorvastatin for about three years now, the gp moved me from 10 to 20 mg", t, 0.8)],
         "three years"),
        ("How long is the course Lena started in May?",
         [Note("m1", "Lena started her welding course on 4 May, it runs for 18 months, then an exam on 30 November",
               t, 0.8)], "18 months"),
    ]  # fmt: skip
    for question, notes, length in cases:
        said = f"For {length}."
        assert _voiced(question, said, notes) == said  # (it was refused: the count read as a figure replaced)
        assert length in _voiced(question, "It is on 20 June.", notes)
# --- twenty-sixth session, hops ---


def _HP_next(question: str, *said: str) -> tuple[str, str] | None:
    """The policy's next search after the wide one, over notes said in this order."""
    from app.grounded import _next_search, widened_query  # pyright: ignore[reportPrivateUsage]
    from capabilities.evidence import choose

    notes = [Note(f"m{i}", text, datetime(2026, 10, 1 + i), 0.8) for i, text in enumerate(said)]
    sit = read(question)
    return _next_search(sit, question, choose(sit, notes), notes, {widened_query(sit, question)})


def test_a_hop_goes_through_a_person_not_a_word_that_opens_a_sentence_nor_a_month() -> None:
    found = _HP_next("Which hotel did the colleague who covered my shift stay at in Rome?",
                     "Big thanks to Oskar who covered my shift on Friday.",
                     "Oskar is off to Rome next week.")  # fmt: skip
    assert found is not None and found[0].startswith("Oskar ")
    found = _HP_next("Which prefecture is the village we want to visit in?",
                     "We plan to go in April, I want to see Onsenmura, the village of my grandmother.")  # fmt: skip
    assert found is None or not found[0].startswith("April")


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How old is the cat that had a tooth pulled?", "Tiger's tooth came out fine, the vet was quick."),
        ("what does the neighbour who fed our fish do?", "Our fish got fed by Lotte while we were away."),
        ("Where does the guy that sold us the van live?", "The van was sold to us by a guy called Ruben."),
    ],
)  # fmt: skip
def test_one_described_by_what_they_did_is_asked_of_memory_when_a_note_says_the_deed(question: str, said: str) -> None:
    """"the cat that had a tooth pulled" is the person's own: memory, not general knowledge, answers."""
    from app.grounded import _known  # pyright: ignore[reportPrivateUsage]

    notes = [Note("m1", said, datetime(2026, 10, 1), 0.8), Note("m2", "We had pasta for dinner.")]
    assert _known(read(question), notes)
    assert not _known(read("Who was the man that walked on the moon first?"), notes)


@pytest.mark.parametrize(
    "question",
    ["till when is our car insurance valid", "til when are the roadworks on", "till what time is the pool open"],
)
def test_till_when_opens_a_question(question: str) -> None:
    assert read(question).question
