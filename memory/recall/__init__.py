"""Recall: the embedder, the memories with their vectors, hybrid ranking, sign sketches,
conversation re-ranking, and re-embedding (`reverie reindex`)."""
