"""Which of two people of one name a text means, and the reply that says so (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

from capabilities.namesakes import Ambiguity, ambiguities, named_in, reply
from memory.graph.entities import Namesake
from memory.graph.names import roles_agree
from memory.models import EntityRow

T = datetime(2025, 3, 1, tzinfo=UTC)


def _person(entity_id: int, name: str, roles: tuple[str, ...] = (), employers: tuple[str, ...] = ()) -> Namesake:
    row = EntityRow.model_validate(
        {"id": entity_id, "user_id": 1, "name": name, "type": "Person", "created_at": T, "updated_at": T}
    )
    return Namesake(row, roles, employers)


SISTER, COLLEAGUE = _person(2, "Ana", ("sister",)), _person(4, "Ana", ("colleague",), ("Globex",))
ANAS = Ambiguity("Ana", (SISTER, COLLEAGUE))


def test_namesakes_roles_agree_only_for_one_role_or_two_social_ones() -> None:
    assert roles_agree("friend", "colleague") and roles_agree("best friend", "neighbour")
    assert not roles_agree("sister", "colleague") and not roles_agree("sister", "mother")
    assert not roles_agree("dog", "cat")


def test_namesakes_a_text_says_which_by_role_qualifier_or_employer() -> None:
    assert ANAS.about("The user's sister Ana lives in Lyon.") == [SISTER]
    assert ANAS.about("Ana from work loves salsa.") == [COLLEAGUE]
    assert ANAS.about("Ana started at Globex in May.") == [COLLEAGUE]
    assert ANAS.about("Ana loves jazz.") == []  # the name without a mark: either
    assert ANAS.about("My sister Bea lives in Rome.") == []  # not about an Ana at all


def test_namesakes_the_question_names_one_or_none() -> None:
    def lookup(name: str) -> list[Namesake]:
        return [SISTER, COLLEAGUE] if name == "Ana" else [_person(9, "Bea", ("sister",))]

    (meant,) = ambiguities(["Ana", "Bea"], "Where does my sister Ana live?", lookup)
    assert meant.meant is SISTER
    (unsaid,) = ambiguities(["Ana"], "Where does Ana work?", lookup)
    assert unsaid.meant is None
    assert unsaid.elsewhere("The user's colleague Ana works at Globex.") is False  # nobody meant: nothing set aside
    assert meant.elsewhere("The user's colleague Ana works at Globex.") and not meant.elsewhere("Ana loves jazz.")


def test_namesakes_reply_names_both_then_says_which() -> None:
    two = "You've told me about two Anas — your sister and your colleague."
    assert reply(ANAS, [(COLLEAGUE, "Ana works at Globex.")], "") == f"{two} Your colleague Ana works at Globex."
    assert reply(ANAS, [(COLLEAGUE, "It is Globex.")], "") == f"{two} About your colleague Ana: It is Globex."
    assert reply(ANAS, [], "I don't know.") == f"{two} I don't know."
    both = reply(ANAS, [(SISTER, "Your sister Ana lives in Lyon."), (COLLEAGUE, "She lives in Paris.")], "")
    assert both == "Which Ana — your sister or your colleague? Your sister Ana lives in Lyon. " \
        "About your colleague Ana: She lives in Paris."


def test_namesakes_plain_names_and_people_without_a_role() -> None:
    chris = Ambiguity("Chris", (_person(1, "Chris", ("brother",)), _person(3, "Chris", (), ("Initech",))))
    assert chris.two() == "two people called Chris — your brother and the one at Initech"
    assert named_in(chris, chris.namesakes[1], "Chris rides a bike.") == "Chris (the one at Initech) rides a bike."
