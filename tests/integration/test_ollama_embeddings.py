"""EMBEDDING_BACKEND=ollama, against a loopback fake of Ollama's `/api/embed` that answers with
the real MiniLM vectors stretched to 768 dimensions (same cosines, another width): a new store
takes the model's dimension, a MiniLM store switches over with `reverie reindex`, and a stopped
Ollama or a model never pulled is a clear error."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from sqlalchemy import text

from app.cli import cmd_reindex, cmd_run
from app.doctor import report
from app.runtime import open_storage
from app.settings import Settings
from memory.recall.embedder import Embedder, EmbedderUnavailable, EmbeddingIndexMismatch
from memory.recall.reindex import vector_dim
from memory.store import MemoryStore
from tests.integration.ollama_fake import FakeOllama, FakeOllamaState, fake_ollama

MODEL = "nomic-embed-text"
FACTS = [
    "My sister Ana lives in Porto.",
    "I am allergic to peanuts.",
    "We adopted a golden retriever called Biscuit.",
]


def wide(embedder: Embedder) -> Callable[[list[str]], list[list[float]]]:
    def embed(texts: list[str]) -> list[list[float]]:
        v = embedder.embed(texts)
        return (np.hstack([v, v]) / np.sqrt(2)).tolist()

    return embed


@pytest.fixture
def ollama(embedder: Embedder) -> Iterator[FakeOllama]:
    with fake_ollama(FakeOllamaState(models=[MODEL], embed=wide(embedder))) as fake:
        yield fake


def on_ollama(settings: Settings, fake: FakeOllama, model: str = MODEL) -> Settings:
    return settings.model_copy(
        update={"embedding_backend": "ollama", "ollama_host": fake.host, "ollama_embedding_model": model}
    )


def seeded(store: MemoryStore) -> int:
    account = store.accounts.create("ana", "correct horse battery")
    assert account.id is not None
    for fact in FACTS:
        store.memories.add(account.id, "fact", fact)
    return account.id


def recalled(store: MemoryStore, user_id: int, question: str) -> str:
    hits = store.memories.search(user_id, question, limit=1, threshold=0.5)
    assert hits, question
    return hits[0].memory.content


def embedding_meta(store: MemoryStore) -> tuple[int, dict[str, str]]:
    with store.engine.connect() as conn:
        meta = dict(conn.execute(text("SELECT key, value FROM meta WHERE key LIKE 'embedding_%'")).all())
        return vector_dim(conn), {str(k): str(v) for k, v in meta.items()}


def test_a_new_store_takes_the_ollama_models_dimension(settings: Settings, ollama: FakeOllama) -> None:
    store = open_storage(on_ollama(settings, ollama))
    try:
        assert store.embedder.name == f"ollama:{MODEL}" and store.embedder.dim == 768
        assert embedding_meta(store) == (768, {"embedding_model": f"ollama:{MODEL}", "embedding_dim": "768"})
        uid = seeded(store)
        assert recalled(store, uid, "Where does my sister live?") == FACTS[0]
        assert recalled(store, uid, "What am I allergic to?") == FACTS[1]
    finally:
        store.close()
    assert any(path == "/api/embed" and body["model"] == MODEL for path, body in ollama.state.requests)


def test_switching_embedders_is_refused_until_reindex(
    settings: Settings, ollama: FakeOllama, capsys: pytest.CaptureFixture[str]
) -> None:
    store = open_storage(settings)
    uid = seeded(store)
    store.close()
    there = on_ollama(settings, ollama)
    with pytest.raises(EmbeddingIndexMismatch, match="reverie reindex"):
        open_storage(there)

    assert cmd_reindex(there, argparse.Namespace()) == 0
    assert f"re-embedded 3 memories with ollama:{MODEL} (768 dimensions)" in capsys.readouterr().out
    store = open_storage(there)
    try:
        assert embedding_meta(store)[0] == 768
        assert recalled(store, uid, "Where does my sister live?") == FACTS[0]
        store.memories.add(uid, "fact", "My brother Tom works at Siemens.")
        assert recalled(store, uid, "Where is my brother employed?") == "My brother Tom works at Siemens."
    finally:
        store.close()

    with pytest.raises(EmbeddingIndexMismatch):  # and back again
        open_storage(settings)
    assert cmd_reindex(settings, argparse.Namespace()) == 0
    store = open_storage(settings)
    try:
        assert embedding_meta(store)[0] == 384
        assert recalled(store, uid, "What am I allergic to?") == FACTS[1]
    finally:
        store.close()


def test_a_missing_model_or_a_stopped_ollama_names_the_fix(
    settings: Settings, ollama: FakeOllama, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(EmbedderUnavailable, match="ollama pull all-minilm"):
        open_storage(on_ollama(settings, ollama, model="all-minilm"))
    stopped = on_ollama(settings, ollama).model_copy(update={"ollama_host": "http://127.0.0.1:9"})
    with pytest.raises(EmbedderUnavailable, match="did not answer"):
        open_storage(stopped)
    assert cmd_reindex(stopped, argparse.Namespace()) == 2
    assert "EMBEDDING_BACKEND=minilm" in capsys.readouterr().err
    assert cmd_run(stopped, argparse.Namespace(host=None, port=None)) == 2  # no traceback, the fix named
    assert capsys.readouterr().err.startswith("error: Reverie cannot start: Ollama did not answer")


def test_doctor_reports_the_ollama_embedder(settings: Settings, ollama: FakeOllama) -> None:
    lines, _ = report(on_ollama(settings, ollama))
    assert f"  embedder: ollama:{MODEL} at {ollama.host}, 768 dimensions" in lines
    lines, ok = report(on_ollama(settings, ollama, model="all-minilm"))
    assert not ok and any(line.startswith("  ✗ embedder:") and "ollama pull all-minilm" in line for line in lines)
