"""Episodic turns as the agent's message history (the answering agent itself is app/answer_loop.py)."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

from memory.models import TurnRow


def history_messages(turns: list[TurnRow]) -> list[ModelMessage]:
    """Episodic turns (oldest first) as the agent's message history."""
    messages: list[ModelMessage] = []
    for turn in turns:
        if turn.role == "user":
            messages.append(ModelRequest(parts=[UserPromptPart(turn.content)]))
        else:
            messages.append(ModelResponse(parts=[TextPart(turn.content)]))
    return messages
