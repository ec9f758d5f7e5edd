"""The one SQLite file: the engine (sqlean + sqlite-vec, WAL) and the named migrations.

Private to memory/: the other boxes open memory through `memory.store`."""
