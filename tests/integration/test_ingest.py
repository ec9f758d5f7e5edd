"""Document ingestion on real SQLite + sqlite-vec + Kuzu files and on PostgreSQL + pgvector (the
module is `both_backends`): idempotency, resume after `kill -9`, fusion with the personal graph,
removal, retrieval, and the LLM extractor."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from app.runtime import open_storage
from app.settings import Settings
from capabilities.context import TwoLevelContext
from memory.assembly import ContextRequest, frame_tokens
from memory.db.postgres import is_postgres
from memory.documents.chunking import chunk_stream
from memory.documents.ingest import IngestConfig, Ingestor
from memory.documents.store import CROSS_DOMAIN, DocumentStore
from memory.store import MemoryStore
from memory.tokens import estimate_tokens

pytestmark = pytest.mark.both_backends
DATA = Path(__file__).parent.parent / "data"
BOOK = """# The Demeter at Whitby

The schooner Demeter sailed from Varna with fifty boxes of earth. Count Dracula travelled on the Demeter,
hidden in a box. The Demeter arrived at Whitby in a great storm, and Count Dracula leapt ashore at Whitby
as a huge dog. Mina Harker and Lucy Westenra were staying at Whitby that summer.

Lucy Westenra walked in her sleep at Whitby. Mina Harker followed Lucy Westenra to the churchyard.
Count Dracula met Lucy Westenra on the East Cliff. The captain of the Demeter was found lashed to the wheel;
the log of the Demeter told of the crew vanishing one by one between Varna and Whitby.
"""


def _count(store: MemoryStore, sql: str, **params: object) -> int:
    with store.engine.connect() as conn:
        return int(conn.execute(text(sql), params).scalar_one())


@pytest.fixture
def user(storage: MemoryStore) -> int:
    row = storage.accounts.create("ana", "password-123")
    assert row.id is not None
    return row.id


@pytest.fixture
def book(tmp_path: Path) -> Path:
    path = tmp_path / "demeter.md"
    path.write_text(BOOK)
    return path


def _ingestor(storage: MemoryStore, **config: int) -> Ingestor:
    docs = DocumentStore(storage.engine, storage.entities)
    return Ingestor(docs, storage.memories, storage.embedder, None, IngestConfig(**config))  # type: ignore[arg-type]


def test_ingest_is_idempotent_by_content_hash(storage: MemoryStore, user: int, book: Path, tmp_path: Path) -> None:
    first = _ingestor(storage).ingest(user, book)
    assert not first.skipped and first.document.status == "done"
    assert first.document.entities >= 4 and first.document.relations >= 3
    memories = _count(storage, "SELECT count(*) FROM memories WHERE document_id = :d", d=first.document.id)
    assert memories == first.document.chunks_total
    copy = tmp_path / "same-content.md"
    copy.write_text(BOOK)
    again = _ingestor(storage).ingest(user, copy)
    assert again.skipped and again.document.id == first.document.id
    assert _count(storage, "SELECT count(*) FROM memories WHERE document_id = :d", d=first.document.id) == memories
    assert _count(storage, "SELECT count(*) FROM documents") == 1


def test_ingest_fuses_domains_and_answers_across_them(storage: MemoryStore, user: int, book: Path) -> None:
    ents = storage.entities
    sister = ents.upsert_entity(user, "Ines", "Person", summary="the user's sister", aliases=["sister"])
    home = ents.upsert_entity(user, "Whitby", "Location", summary="where Ines lives")
    assert sister.id is not None and home.id is not None
    ents.add_relation(user, sister.id, "LIVES_IN", home.id)
    doc = _ingestor(storage).ingest(user, book).document
    doc_whitby = ents.find_by_name(user, "Whitby", fuzzy=False, domain=f"doc:{doc.id}")
    assert len(doc_whitby) == 1 and doc_whitby[0].id != home.id  # linked, not merged
    fused = _count(storage, "SELECT count(*) FROM relations WHERE predicate = :p AND document_id = :d",
                   p=CROSS_DOMAIN, d=doc.id)
    assert fused == 1
    req = ContextRequest(context_turns=0, vector_limit=2, similarity_threshold=0.5, triple_depth=3, budget_tokens=1500)
    ctx = storage.assembler.assemble(user, "t1", "What does the book say about the place where my sister lives?", req)
    names = {e.name for e in ctx.entities.values()}
    assert {"Ines", "Whitby"} <= names
    assert names & {"Demeter", "Count Dracula", "Lucy Westenra", "Mina Harker"}, names
    assert any(e.domain == f"doc:{doc.id}" for e in ctx.entities.values())


def test_document_context_shows_evidence_not_bare_cooccurrence(storage: MemoryStore, user: int, book: Path) -> None:
    _ingestor(storage).ingest(user, book)
    req = ContextRequest(context_turns=0, vector_limit=1, similarity_threshold=0.5, triple_depth=2, budget_tokens=1024)
    question = "Who travelled on the Demeter?"
    ctx = storage.assembler.assemble(user, "t1", question, req)
    lines = [i.full for i in ctx.loaded if i.kind == "relation" and " RELATED_TO " in i.full]
    # A co-occurrence comes with the sentence joining its names, when it holds a word the question asks.
    assert "Count Dracula RELATED_TO Demeter: “Count Dracula travelled on the Demeter, hidden in a box.”" in lines
    assert all("“" in line for line in lines) and not any(line.startswith("Lucy Westenra RELATED_TO") for line in lines)
    storage.assembler.evidence = False  # as before issue 14: bare lines, whatever the question asks
    before = storage.assembler.assemble(user, "t1", question, req)
    bare = sorted(i.full for i in before.loaded if i.kind == "relation" and " RELATED_TO " in i.full)
    assert "Count Dracula RELATED_TO Demeter" in bare and "Lucy Westenra RELATED_TO Whitby" in bare


@pytest.mark.parametrize("budget", [100, 160, 240])
def test_document_context_block_stays_within_its_budget(
    storage: MemoryStore, user: int, book: Path, budget: int
) -> None:
    """Issue 14: the block the model is sent (entities packed as a name shown as a name, the pointer
    line and the headers counted) is no longer than the budget, though the graph holds more."""
    _ingestor(storage).ingest(user, book)
    req = ContextRequest(context_turns=0, vector_limit=1, similarity_threshold=0.5, triple_depth=2,
                         budget_tokens=budget)  # fmt: skip
    ctx = storage.assembler.assemble(user, "t1", "Who travelled on the Demeter from Varna to Whitby?", req)
    block = TwoLevelContext.from_assembled(ctx).block()
    assert ctx.skipped and ("Related but not loaded" in block) == (ctx.related_shown > 0)  # more than fits
    assert estimate_tokens(block) <= budget
    assert ctx.tokens + frame_tokens(ctx.skipped, req.triple_depth, req.vector_limit, ctx.related_shown) <= budget


def test_document_context_brings_a_further_chunks_sentence_with_the_answer(
    storage: MemoryStore, user: int, tmp_path: Path
) -> None:
    """Issue 14: an answer said once (no core entity) in a chunk past the granted memories reaches
    the context as the sentence holding the question's words beside it, not as the whole chunk."""
    notes = tmp_path / "zoo.md"
    notes.write_text("\n\n".join([
        "Mina Harker asked Lucy Westenra who looks after the wolf at the Zoological Gardens, and Lucy Westenra "
        "said she did not know who looks after the wolf.",
        "Mina Harker and Lucy Westenra read in the paper about the wolf at the Zoological Gardens.",
        "It was a grey day. The keeper, an old man called Bilder, looks after the wolf at the Zoological Gardens "
        "and feeds it every evening. The rain went on all afternoon and the paths were empty.",
    ]))
    _ingestor(storage, chunk_chars=240, overlap_chars=0).ingest(user, notes)
    req = ContextRequest(context_turns=0, vector_limit=1, similarity_threshold=0.5, triple_depth=2, budget_tokens=1024)
    question = "Who looks after the wolf at the Zoological Gardens?"
    ctx = storage.assembler.assemble(user, "t1", question, req)
    assert "Bilder" not in ctx.hits[0].memory.content  # the granted memory does not answer
    excerpts = [i for i in ctx.loaded if "excerpt" in i.full]
    assert [i.full.split(") ", 1)[1] for i in excerpts if "Bilder" in i.full] == [
        "The keeper, an old man called Bilder, looks after the wolf at the Zoological Gardens and feeds it "
        "every evening."
    ]
    storage.assembler.evidence = False
    assert "Bilder" not in TwoLevelContext.from_assembled(storage.assembler.assemble(user, "t1", question, req)).block()


def test_document_context_reads_a_further_chunks_answer_beside_its_neighbour(
    storage: MemoryStore, user: int, tmp_path: Path
) -> None:
    """Eighteenth session: the sentence holding the question's words names only the entity the
    question names ("the Count" for "Dracula": not an answer); the place it speaks of is named by
    the sentence before it, which the excerpt shows with it."""
    notes = tmp_path / "boxes.md"
    notes.write_text("\n\n".join([
        "Count Dracula sent boxes of earth to London, and Mina Harker said that Dracula bought houses there.",
        "Mina Harker read that the boxes of earth came to London by train, and Dracula watched the boxes.",
        "The carter gave me his notebook. He left six at Jamaica Lane, Bermondsey. If then the Count meant to "
        "scatter the boxes of earth over London, these places were the first of delivery.",
    ]))
    _ingestor(storage, chunk_chars=240, overlap_chars=0).ingest(user, notes)
    req = ContextRequest(context_turns=0, vector_limit=1, similarity_threshold=0.5, triple_depth=2, budget_tokens=1024)
    ctx = storage.assembler.assemble(user, "t1", "Where are Dracula's boxes of earth delivered in London?", req)
    assert "Bermondsey" not in ctx.hits[0].memory.content  # the granted memory does not answer
    excerpts = [i.full.split(") ", 1)[1] for i in ctx.loaded if "excerpt" in i.full]
    assert any("Jamaica Lane, Bermondsey. If then the Count" in e for e in excerpts), excerpts


def test_document_context_reads_on_into_the_next_chunk_and_under_a_letters_heading(
    storage: MemoryStore, user: int, tmp_path: Path
) -> None:
    """Twentieth session: a read chunk ends on the news the question asks about ("a nurse wrote");
    the letter itself is the next chunk, ranked below the threshold, and its writer's sentence ("I
    write …", the past "wrote" asked) is read under the heading that names her."""
    notes = tmp_path / "letters.md"
    notes.write_text("\n\n".join([
        "Clara Voss waited all summer for news of Paul Weber and his illness, and Clara Voss asked everyone in town "
        "who wrote about Paul Weber. Nobody in town had written to Clara Voss about Paul Weber or about his illness "
        "that year, or since.",
        "Clara Voss walked by the lake every day and thought of the long winter to come and of the first snow on the "
        "hills above the town.\n\nAt last news of Paul Weber came to Clara Voss: he has been ill, and a nurse wrote to "
        "her from the hotel.",
        '_Letter, Anna Berg, Hotel Sonne, Basel._\n\n"I write at the wish of Mr. Paul Weber, who cannot hold a pen. '
        "The trains to the south are slow, the lake is grey, and the hotel kitchen is closed on Mondays.",
    ]))  # fmt: skip
    _ingestor(storage, chunk_chars=240, overlap_chars=0).ingest(user, notes)
    req = ContextRequest(context_turns=0, vector_limit=1, similarity_threshold=0.5, triple_depth=2, budget_tokens=1024)
    question = "Who wrote to Clara Voss about Paul Weber's illness?"
    ranked = storage.memories.search(user, question, 10, 0.5, kinds=["chunk"])
    assert not any("Anna Berg" in h.memory.content for h in ranked)  # the letter's chunk ranks below the threshold
    ctx = storage.assembler.assemble(user, "t1", question, req)
    excerpts = [i.full.split(") ", 1)[1] for i in ctx.loaded if "excerpt" in i.full]
    assert excerpts == ['Letter, Anna Berg, Hotel Sonne, Basel. "I write at the wish of Mr. Paul Weber, who cannot '
                        "hold a pen."]
    storage.assembler.continued = False  # before: the letter's chunk is not read
    before = storage.assembler.assemble(user, "t1", question, req)
    assert "Anna Berg" not in TwoLevelContext.from_assembled(before).block()


def test_document_context_fills_the_budget_when_no_entity_matches(
    storage: MemoryStore, user: int, tmp_path: Path
) -> None:
    notes = tmp_path / "garden.md"  # no name at all: the graph has nothing to start from
    notes.write_text("\n\n".join(
        f"tomatoes need water every {d} in the summer heat, and the soil should stay moist but never soaked."
        for d in ("morning", "evening", "second day", "third day", "week")
    ))
    _ingestor(storage, chunk_chars=120, overlap_chars=0).ingest(user, notes)
    req = ContextRequest(context_turns=0, vector_limit=1, similarity_threshold=0.5, triple_depth=2, budget_tokens=1024)
    question = "how often do tomatoes need water in summer?"
    ctx = storage.assembler.assemble(user, "t1", question, req)
    assert not ctx.entities
    chunks = [i for i in ctx.loaded if i.kind == "chunk"]
    assert len(chunks) > req.vector_limit and any("no entity matched" in i.reason for i in chunks)
    storage.assembler.evidence = False  # before issue 14: the granted memory alone, most of the budget unused
    assert len([i for i in storage.assembler.assemble(user, "t1", question, req).loaded if i.kind == "chunk"]) == 1


def test_ingest_remove_takes_everything_it_added(storage: MemoryStore, user: int, book: Path) -> None:
    home = storage.entities.upsert_entity(user, "Whitby", "Location")
    docs = DocumentStore(storage.engine, storage.entities)
    doc = _ingestor(storage).ingest(user, book).document
    assert doc.id is not None and [d.id for d in docs.list(user)] == [doc.id]
    assert docs.remove(user, doc.id)
    assert _count(storage, "SELECT count(*) FROM memories WHERE document_id = :d", d=doc.id) == 0
    assert _count(storage, "SELECT count(*) FROM entities WHERE domain = :d", d=f"doc:{doc.id}") == 0
    assert _count(storage, "SELECT count(*) FROM relations") == 0
    if not is_postgres(storage.engine):  # (on PostgreSQL the vector is a column of the memory's row)
        assert _count(storage, "SELECT count(*) FROM memory_vec") == 0
    assert docs.list(user) == [] and not docs.remove(user, doc.id)
    assert home.id is not None and storage.entities.get(user, home.id) is not None  # personal graph intact
    assert storage.graph.count(user) == (1, 0)


_WORKER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from app.runtime import open_storage
    from app.settings import Settings
    from memory.documents.store import DocumentStore
    from memory.documents.ingest import IngestConfig, Ingestor
    store = open_storage(Settings(_env_file=None, data_dir=Path(sys.argv[1]), llm_backend="embedded"))
    ing = Ingestor(DocumentStore(store.engine, store.entities), store.memories, store.embedder, None,
                   IngestConfig(batch_chunks=1))
    def slow(p):
        print(p.phase, p.chunks_done, flush=True)
        time.sleep(0.3)
    ing.ingest(int(sys.argv[3]), Path(sys.argv[2]), slow)
""")


def test_ingest_resumes_after_kill_9(settings: Settings, tmp_path: Path) -> None:
    excerpt = tmp_path / "excerpt.txt"
    excerpt.write_text((DATA / "dracula_ch4_excerpt.txt").read_text()[:9000])
    store = open_storage(settings)
    user = store.accounts.create("ana", "password-123").id
    store.close()
    env = {**os.environ, "REVERIE_DATABASE_URL": settings.database_url}  # the worker's Settings read it
    proc = subprocess.Popen([sys.executable, "-c", _WORKER, str(settings.data_dir), str(excerpt), str(user)],
                            stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("chunks 4"):
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    store = open_storage(settings)
    try:
        doc = store.engine.connect().execute(text("SELECT id, status, chunks_done FROM documents")).one()
        assert doc.status == "ingesting" and 4 <= doc.chunks_done < 12
        assert _count(store, "SELECT count(*) FROM entities") == 0  # no half-written graph
        assert user is not None
        result = _ingestor(store).ingest(user, excerpt)
        total = sum(1 for _ in chunk_stream(excerpt.open()))
        assert result.document.status == "done" and result.document.chunks_done == total
        assert _count(store, "SELECT count(*) FROM memories WHERE document_id = :d", d=doc.id) == total
        assert _count(store, "SELECT count(DISTINCT content) FROM memories") == total  # no duplicates
        assert result.document.entities >= 2
    finally:
        store.close()


@pytest.mark.one_backend
@pytest.mark.anyio
async def test_ingest_with_the_embedded_llm_extractor(storage: MemoryStore, user: int, tmp_path: Path) -> None:
    from app.doc_extractor import LLMExtractor
    from app.llm import LLMConfig, open_backend

    short = tmp_path / "two-chunks.md"
    short.write_text(BOOK[:1500])
    async with open_backend(LLMConfig(backend="embedded")) as backend:
        extractor = LLMExtractor(backend, asyncio.get_running_loop(), timeout_s=60)
        docs = DocumentStore(storage.engine, storage.entities)
        ingestor = Ingestor(docs, storage.memories, storage.embedder, extractor, IngestConfig(batch_chunks=2))
        started = time.monotonic()
        result = await asyncio.to_thread(ingestor.ingest, user, short)
    assert result.document.status == "done" and result.document.extractor == "llm"
    assert result.document.entities >= 1  # from the model, or from the fallback where it failed
    assert time.monotonic() - started < 120


def test_every_chunk_of_a_document_is_about_its_title(storage: MemoryStore, user: int, book: Path) -> None:
    doc = _ingestor(storage, chunk_chars=300, overlap_chars=0).ingest(user, book).document
    assert doc is not None and doc.id is not None
    assert storage.memories.document_title(user, doc.id) == "The Demeter at Whitby"
    assert storage.memories.document_title(user + 1, doc.id) == ""  # another user's: nothing
    prose = book.with_name("prose.txt")
    prose.write_text("No title here, only a long first line that goes on " + "and on " * 20 + "\n\nMore.")
    untitled = _ingestor(storage).ingest(user, prose).document
    assert untitled is not None and untitled.id is not None
    assert storage.memories.document_title(user, untitled.id) == ""
