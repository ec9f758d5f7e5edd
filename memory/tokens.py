"""Token estimates for budgets and the turn log.

One estimate everywhere (about four characters a token for English) keeps budgets
comparable across backends: the embedded model and an Ollama model tokenize differently,
and calling a tokenizer on every packed item would cost more than the estimate saves.
"""

from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    """Estimated token count of `text` (0 for the empty string)."""
    return math.ceil(len(text) / 4) if text else 0
