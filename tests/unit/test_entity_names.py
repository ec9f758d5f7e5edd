"""Pure normalization of entity types, predicates and names."""

from __future__ import annotations

import pytest

from memory.graph.names import ENTITY_TYPES, clean_name, name_key, normalize_predicate, normalize_type


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("people", "Person"),
        ("Human", "Person"),
        ("character", "Person"),
        ("PER", "Person"),
        ("place", "Location"),
        ("City", "Location"),
        ("country", "Location"),
        ("GPE", "Location"),
        ("LOC", "Location"),
        ("company", "Organization"),
        ("ORG", "Organization"),
        ("institution", "Organization"),
        ("Organizations", "Organization"),
        ("cities", "Location"),
        ("software product", "Product"),
        ("job_title", "Role"),
        ("Event", "Event"),
        ("spaceship", "Concept"),
        ("", "Concept"),
        (None, "Concept"),
    ],
)
def test_normalize_type_maps_synonyms(raw: str | None, expected: str) -> None:
    assert normalize_type(raw) == expected
    assert normalize_type(raw) in ENTITY_TYPES


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("lives in", "LIVES_IN"),
        ("LIVES_IN", "LIVES_IN"),
        ("worksAt", "WORKS_AT"),
        ("  is-married to!! ", "IS_MARRIED_TO"),
        ("café owner", "CAFE_OWNER"),
        ("2nd cousin of", "ND_COUSIN_OF"),
        ("--", "RELATED_TO"),
        ("", "RELATED_TO"),
        (None, "RELATED_TO"),
    ],
)
def test_normalize_predicate_gives_upper_snake_case(raw: str | None, expected: str) -> None:
    assert normalize_predicate(raw) == expected


def test_normalize_predicate_caps_length_without_trailing_underscore() -> None:
    long = normalize_predicate("word " * 40)
    assert len(long) <= 64 and not long.endswith("_") and long.startswith("WORD_WORD")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ana", "ana"),
        ("ANA  LIMA", "ana lima"),
        ("The Acme, Inc.", "Acme Inc"),
        ("Ana's", "Ana"),
        ("José", "jose"),
        ("Straße", "STRASSE"),
    ],
)
def test_name_key_matches_variants(a: str, b: str) -> None:
    assert name_key(a) == name_key(b)


def test_name_key_keeps_distinct_names_apart() -> None:
    assert name_key("Ana") != name_key("Anna")
    assert name_key("The") == "the"  # an article alone is the name, not noise
    assert name_key("...") == ""


def test_clean_name_collapses_whitespace_and_caps_length() -> None:
    assert clean_name("  Ana\n\tLima ") == "Ana Lima"
    assert len(clean_name("x" * 500)) == 200
