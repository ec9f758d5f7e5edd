"""Two people of one name: formation keeps them apart, the answer names the ambiguity, and the
person can merge or split (real SQLite + sqlite-vec + Kuzu in tmp_path, the real embedder; the
policy path's voice is the scripted FunctionModel of test_policy_path)."""

from __future__ import annotations

import pytest

from app.settings import Settings
from capabilities.context import TwoLevelContext
from dreaming.consolidation import entity_merges
from memory.assembly import ContextRequest
from memory.portability import export_user, forget_memory, import_user
from memory.store import MemoryStore

from .test_policy_path import Voice, _reply, _runtime, _say, _told  # pyright: ignore[reportPrivateUsage]

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]  # (backends: tests/conftest.py)
TWO = "You've told me about two Anas — your sister and your colleague."


def _anas(storage: MemoryStore, uid: int) -> dict[str, int]:
    """Each Ana's id by who she is to the person."""
    return {n.roles[0]: n.id for n in storage.entities.namesakes(uid, "Ana")}


def _facts(storage: MemoryStore, uid: int, entity_id: int) -> set[tuple[str, str]]:
    """(predicate, object) of an entity's current relations."""
    rows = storage.entities.current_relations(uid, entity_id)
    names = storage.entities.get_many(uid, [r.object_id for r in rows])
    return {(r.predicate, names[r.object_id].name) for r in rows}


async def test_sister_ana_and_colleague_ana_stay_two_entities_and_the_answer_names_the_ambiguity(
    settings: Settings, storage: MemoryStore
) -> None:
    rt = _runtime(settings, storage, Voice())
    uid = storage.accounts.create("maya", "correct-horse").id or 0
    _told(rt, uid, "a", "My sister Ana lives in Lyon.")
    _told(rt, uid, "b", "My colleague Ana works at Globex.")
    anas = _anas(storage, uid)
    assert set(anas) == {"sister", "colleague"}
    assert _facts(storage, uid, anas["sister"]) == {("LIVES_IN", "Lyon")}
    assert _facts(storage, uid, anas["colleague"]) == {("WORKS_AT", "Globex")}
    assert storage.entities.apart(uid) == {tuple(sorted(anas.values()))}
    # the nightly consolidation merges same-named entities, never these two
    assert entity_merges(uid, storage.entities.active(uid), storage.entities.apart(uid)) == []

    work = _reply(await _say(rt, uid, "q1", "Where does Ana work?"))
    assert work.reply == f"{TWO} Your colleague Ana works at Globex."
    live = _reply(await _say(rt, uid, "q2", "Where does Ana live?"))
    assert live.reply == f"{TWO} Your sister Ana lives in Lyon."
    age = _reply(await _say(rt, uid, "q3", "How old is Ana?"))
    assert age.reply.startswith(TWO) and "don't know" in age.reply and age.confidence == "low"
    named = _reply(await _say(rt, uid, "q4", "Where does my sister Ana live?"))
    assert named.reply == "Your sister Ana lives in Lyon."  # the question said which: nothing to ask

    _told(rt, uid, "c", "My colleague Ana lives in Paris.")
    both = _reply(await _say(rt, uid, "q5", "Where does Ana live?"))
    assert both.reply == (
        "Which Ana — your sister or your colleague? Your sister Ana lives in Lyon. Your colleague Ana lives in Paris."
    )


async def test_a_role_named_later_mention_resolves_to_the_right_ana(settings: Settings, storage: MemoryStore) -> None:
    rt = _runtime(settings, storage, Voice())
    uid = storage.accounts.create("maya", "correct-horse").id or 0
    _told(rt, uid, "a", "My sister Ana lives in Lyon.")
    _told(rt, uid, "b", "My colleague Ana works at Globex.")
    _told(rt, uid, "c", "My sister Ana moved to Paris.")  # the sister's move, not the colleague's
    _told(rt, uid, "c", "Ana from work loves salsa dancing.")
    _told(rt, uid, "d", "My sister Bea lives in Rome.")  # another sister: not an Ana because both are sisters
    anas = _anas(storage, uid)
    assert len(anas) == 2
    assert _facts(storage, uid, anas["sister"]) == {("LIVES_IN", "Paris")}
    assert _facts(storage, uid, anas["colleague"]) == {("WORKS_AT", "Globex"), ("LOVES", "salsa dancing")}
    assert [n.entity.name for n in storage.entities.namesakes(uid, "Bea")] == ["Bea"]
    answer = _reply(await _say(rt, uid, "q", "What does Ana from work love?"))
    assert "salsa" in answer.reply and "Paris" not in answer.reply


async def test_one_person_per_name_is_still_one_entity(settings: Settings, storage: MemoryStore) -> None:
    """The common case: a role and a later plain mention are one Ana, asked about without any question."""
    rt = _runtime(settings, storage, Voice())
    uid = storage.accounts.create("maya", "correct-horse").id or 0
    _told(rt, uid, "a", "My friend Ana lives in Lyon.")
    _told(rt, uid, "b", "My colleague Ana works at Globex.")  # a friend may be a colleague: one Ana
    _told(rt, uid, "c", "Ana moved to Paris.")
    (ana,) = storage.entities.namesakes(uid, "Ana")
    assert ana.roles == ("friend", "colleague")
    assert _facts(storage, uid, ana.id) == {("LIVES_IN", "Paris"), ("WORKS_AT", "Globex")}
    answer = _reply(await _say(rt, uid, "q", "Where does Ana live?"))
    assert "Paris" in answer.reply and "two" not in answer.reply


def test_two_anas_survive_export_import_and_the_undo_of_a_forget(settings: Settings, storage: MemoryStore) -> None:
    """Import matches the second Ana of a file to the second Ana here (it matched the first, so the
    panel's Undo of a forget gave the colleague's job to the sister), and carries that they are two."""
    rt = _runtime(settings, storage, Voice())
    ada = storage.accounts.create("ada", "correct-horse").id or 0
    bob = storage.accounts.create("bob", "correct-horse").id or 0
    _told(rt, ada, "a", "My sister Ana lives in Lyon.")
    _told(rt, ada, "b", "My colleague Ana works at Globex.")
    before = export_user(storage, ada)
    said = next(m for m in before["memories"] if m["kind"] == "turn" and "Globex" in m["content"])
    forget_memory(storage, ada, said["ref"])
    import_user(storage, ada, before)  # the panel's Undo
    anas = _anas(storage, ada)
    assert _facts(storage, ada, anas["colleague"]) == {("WORKS_AT", "Globex")}
    assert _facts(storage, ada, anas["sister"]) == {("LIVES_IN", "Lyon")}

    import_user(storage, bob, export_user(storage, ada))
    assert set(_anas(storage, bob)) == {"sister", "colleague"} and len(storage.entities.apart(bob)) == 1


def test_the_model_path_is_told_which_ana_is_which(settings: Settings, storage: MemoryStore) -> None:
    """A model that may judge gets the two Anas as a candidate group in the context it reads, each with
    what she is to the person (the group used to appear only for entities stored apart by other means)."""
    rt = _runtime(settings, storage, Voice(), path="model")
    uid = storage.accounts.create("maya", "correct-horse").id or 0
    _told(rt, uid, "a", "My sister Ana lives in Lyon.")
    _told(rt, uid, "b", "My colleague Ana works at Globex.")
    anas = _anas(storage, uid)
    request = ContextRequest(context_turns=2, vector_limit=5, similarity_threshold=0.5, triple_depth=1)
    assembled = storage.assembler.assemble(uid, "q", "Where does Ana work?", request)
    group = TwoLevelContext.from_assembled(assembled).block().split("Ambiguous names", 1)[1].splitlines()[1]
    assert f"[e{anas['sister']}] Ana (Person) also called sister" in group
    assert f"[e{anas['colleague']}] Ana (Person) also called colleague" in group


async def test_a_lower_case_question_names_the_ambiguity_too(settings: Settings, storage: MemoryStore) -> None:
    rt = _runtime(settings, storage, Voice())
    uid = storage.accounts.create("maya", "correct-horse").id or 0
    _told(rt, uid, "a", "My sister Ana lives in Lyon.")
    _told(rt, uid, "b", "My colleague Ana works at Globex.")
    work = _reply(await _say(rt, uid, "q", "where does ana work?"))
    assert work.reply == f"{TWO} Your colleague Ana works at Globex."


async def test_a_new_role_at_another_employer_is_another_ana(settings: Settings, storage: MemoryStore) -> None:
    """Different employers disagree too: a friend may be a colleague, but not the colleague who works
    elsewhere. The same role at another job is a move, superseded as before."""
    rt = _runtime(settings, storage, Voice())
    uid = storage.accounts.create("maya", "correct-horse").id or 0
    _told(rt, uid, "a", "My colleague Ana works at Globex.")
    _told(rt, uid, "b", "My friend Ana works at Initech.")
    anas = _anas(storage, uid)
    assert set(anas) == {"colleague", "friend"}
    assert _facts(storage, uid, anas["colleague"]) == {("WORKS_AT", "Globex")}
    assert _facts(storage, uid, anas["friend"]) == {("WORKS_AT", "Initech")}
    assert storage.entities.apart(uid) == {tuple(sorted(anas.values()))}
    both = _reply(await _say(rt, uid, "q1", "Where does Ana work?"))
    assert both.reply == (
        "Which Ana — your colleague or your friend? "
        "Your colleague Ana works at Globex. Your friend Ana works at Initech."
    )
    _told(rt, uid, "c", "My colleague Ana works at Umbrella.")
    assert _anas(storage, uid) == anas
    assert _facts(storage, uid, anas["colleague"]) == {("WORKS_AT", "Umbrella")}
