"""Everything Reverie stores and retrieves. Knows nothing of Chainlit, pydantic-ai or the scheduler."""
