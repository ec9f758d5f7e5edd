"""Documents: the store, streaming chunks, resumable ingestion, entity extraction and core-entity selection."""
