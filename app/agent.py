"""Episodic turns as the agent's message history (the answering agent itself is app/answer_loop.py)."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

from memory.models import TurnRow


def history_messages(turns: list[TurnRow]) -> list[ModelMessage]:
    """Episodic turns (oldest first) as the agent's message history; the person's turns carry
    their date, so "yesterday" in an old turn can be placed."""
    messages: list[ModelMessage] = []
    for turn in turns:
        if turn.role == "user":
            messages.append(ModelRequest(parts=[UserPromptPart(f"({turn.created_at:%Y-%m-%d}) {turn.content}")]))
        else:
            messages.append(ModelResponse(parts=[TextPart(turn.content)]))
    return messages
