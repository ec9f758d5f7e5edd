"""The pattern extractor and the rules every extractor's output goes through (pure)."""

from __future__ import annotations

from memory.formation.grounding import grounded
from memory.formation.patterns import (
    USER,
    Extraction,
    Triple,
    canonical_entity,
    canonical_predicate,
    extract_patterns,
    is_functional,
    third_person,
)


def test_extraction_relative_and_move_give_fact_and_two_triples() -> None:
    found = extract_patterns("my sister Ana moved to Porto last spring")
    assert found.facts == ("The user's sister Ana moved to Porto last spring.",)
    assert found.triples == (
        Triple(USER, "HAS_SISTER", "Ana", "Person", "Person"),
        Triple("Ana", "LIVES_IN", "Porto", "Person", "Location"),
    )


def test_extraction_allergy_list_splits_into_objects() -> None:
    found = extract_patterns("I'm allergic to peanuts and shellfish.")
    assert found.facts == ("The user is allergic to peanuts and shellfish.",)
    assert [t.object for t in found.triples] == ["peanuts", "shellfish"]
    assert {t.predicate for t in found.triples} == {"IS_ALLERGIC_TO"}


def test_extraction_work_likes_and_named_subjects() -> None:
    found = extract_patterns("I work at Acme Corp. I really love green tea! Bob works for Google.")
    assert Triple(USER, "WORKS_AT", "Acme Corp", "Person", "Organization") in found.triples
    assert Triple(USER, "LOVES", "green tea", "Person", "Concept") in found.triples
    assert Triple("Bob", "WORKS_AT", "Google", "Person", "Organization") in found.triples
    assert "The user works at Acme Corp." in found.facts


def test_extraction_new_jobs_and_preferences() -> None:
    job = extract_patterns("I started a new job at Siemens as a data engineer last week.")
    assert job.triples == (Triple(USER, "WORKS_AT", "Siemens", "Person", "Organization"),)
    tea = extract_patterns("I prefer tea over coffee. Ana likes jazz rather than rock.")
    assert [(t.subject, t.predicate, t.object) for t in tea.triples] == [
        (USER, "PREFERS", "tea"),
        ("Ana", "LIKES", "jazz"),
    ]
    assert tea.facts[0] == "The user prefers tea over coffee."


def test_extraction_strips_leading_non_names_and_keeps_mentions() -> None:
    found = extract_patterns("Yesterday Ana moved back to Lisbon. We met Carlos at the station.")
    assert Triple("Ana", "LIVES_IN", "Lisbon", "Person", "Location") in found.triples
    assert ("Carlos", "Concept") in found.mentions


def test_extraction_small_talk_and_questions_yield_nothing() -> None:
    assert extract_patterns("Hi there, how are you?").empty
    assert extract_patterns("where does my sister live?").triples == ()


def test_extraction_third_person_conjugates_common_verbs() -> None:
    assert third_person("I'm allergic to peanuts") == "The user is allergic to peanuts."
    assert (
        third_person("I have two cats and my dog likes me")
        == "The user has two cats and the user's dog likes the user."
    )
    assert third_person("I live in Porto.") == "The user lives in Porto."


def test_extraction_predicates_fold_synonyms_and_functional_rule() -> None:
    assert canonical_predicate("moved to") == "LIVES_IN"
    assert canonical_predicate("worksFor") == "WORKS_AT"
    assert canonical_predicate("allergic to") == "IS_ALLERGIC_TO"
    assert is_functional("resides in") and is_functional("WORKS_AT")
    assert not is_functional("IS_ALLERGIC_TO") and not is_functional("HAS_SISTER") and not is_functional("LIKES")


def test_extraction_user_aliases_become_one_entity() -> None:
    assert {canonical_entity(n) for n in ("I", "me", "the user", "User", "my")} == {USER}
    assert canonical_entity(" Ana. ") == "Ana"


def test_grounded_drops_what_the_message_does_not_say() -> None:
    source = "My sister Ana moved to Porto."
    raw = Extraction(
        facts=("The user's sister Ana lives in Porto.", "The user is a famous astronaut on Mars.", "ok"),
        triples=(
            Triple("me", "has sister", "Ana", "human", "human"),
            Triple("Ana", "moved to", "Porto", "PER", "city"),
            Triple("Ana", "lives in", "Paris", "Person", "Location"),  # invented place
            Triple("Zorg", "OWNS", "Porto", "Person", "Location"),  # invented person
        ),
    )
    out = grounded(raw, source)
    assert out.facts == ("The user's sister Ana lives in Porto.",)
    assert out.triples == (
        Triple(USER, "HAS_SISTER", "Ana", "Person", "Person"),
        Triple("Ana", "LIVES_IN", "Porto", "Person", "Location"),
    )


def test_grounded_drops_pronoun_entities_and_schema_echoes() -> None:
    # What SmolLM2-135M returned for LoCoMo turns and a hiking message: the pronoun is the person
    # spoken to, "user_storys" is its schema leaking into a fact, "<story>" a tag it made up.
    out = grounded(
        Extraction(facts=("The user_storys.",), triples=(Triple("You", "USER", "User"),)),
        "That's really cool. You've got guts. The transgender stories were so inspiring!",
    )
    assert out == Extraction()
    sister = "My sister Ana moved to Porto."
    junk = (
        Triple("ANA", "HAS_SISTER", "Sister"),
        Triple("ANA", "IS_ALLERGIC_TO", "Sister"),
        Triple("Ana", "OWNS", "Porto"),
        Triple("Porto", "MOVED_TO_PORTO_LAST_SPRING", "Ana"),
        Triple("Ana", "LIVES_IN", "Ana is in Porto"),
    )
    assert grounded(Extraction(triples=junk), sister) == Extraction()
    said = grounded(Extraction(triples=(Triple("Ana", "MOVED_TO", "Porto"), Triple("I", "has sister", "Ana"))), sister)
    assert [(t.subject, t.predicate, t.object) for t in said.triples] == [
        ("Ana", "LIVES_IN", "Porto"),
        (USER, "HAS_SISTER", "Ana"),
    ]
    looping = ("Lisbon lisbon Ana.", "Dog Rex loves the beach lives in Dog Rex.")
    assert grounded(Extraction(facts=looping), "Ana moved back to Lisbon. My dog Rex loves the beach.") == Extraction()
    tagged = grounded(Extraction(facts=("<story>We went hiking in the Alps.",)), "We went hiking in the Alps.")
    assert tagged.facts == ("We went hiking in the Alps.",)
    listed = grounded(Extraction(facts=("1. Miso is a cat.",)), "We adopted a cat called Miso in March.")
    assert listed.facts == ("Miso is a cat.",)
    kept = grounded(Extraction(triples=(Triple("I", "likes", "Yours Truly"),)), "I like Yours Truly, the band.")
    assert [t.object for t in kept.triples] == ["Yours Truly"]


def test_grounded_caps_items_at_five() -> None:
    source = " ".join(f"I like thing{i}." for i in range(9))
    raw = Extraction(
        facts=tuple(f"The user likes thing{i}." for i in range(9)),
        triples=tuple(Triple("I", "likes", f"thing{i}") for i in range(9)),
    )
    out = grounded(raw, source)
    assert len(out.facts) == 5 and len(out.triples) == 5
