"""Step 2 of a turn: the agent asks for the context it needs, as schema-constrained JSON.

Tiny models pick poor values and sometimes produce nothing usable: the request is parsed
leniently, every missing dimension falls back to its default, and the fallback is recorded
(the notes end up in the execution report and the usage log).
"""

from __future__ import annotations

import time

import httpx
from pydantic_ai import Agent
from pydantic_ai.exceptions import AgentRunError

from app.llm import Backend, output_spec
from capabilities.resources import Limits, ResourceRequest, parse_request, request_prompt

MAX_REQUEST_TOKENS = 120
MESSAGE_EXCERPT_CHARS = 1500


async def request_resources(
    backend: Backend, limits: Limits, hardware_label: str, message: str, previous_report: str
) -> tuple[ResourceRequest, list[str], float]:
    """Ask the model for its resource request.

    Returns:
        The (possibly partial) request, notes on anything dropped or defaulted, and the time
        the step took in ms.
    """
    started = time.perf_counter()
    agent = Agent(
        backend.model,
        instructions=request_prompt(limits, hardware_label),
        output_type=output_spec(backend, ResourceRequest),
    )
    parts = [previous_report] if previous_report else []
    parts.append(f"User message:\n{message[:MESSAGE_EXCERPT_CHARS]}")
    settings = {**backend.structured_settings(ResourceRequest), "max_tokens": MAX_REQUEST_TOKENS, "temperature": 0.0}
    try:
        result = await agent.run("\n\n".join(parts), model_settings=settings)  # pyright: ignore[reportArgumentType]
        request, notes = parse_request(result.output)
    except (AgentRunError, httpx.HTTPError, OSError, TimeoutError) as exc:
        request = ResourceRequest(reason="fallback: the model gave no usable request")
        notes = [f"request step failed ({type(exc).__name__}); every dimension uses its default"]
    return request, notes, (time.perf_counter() - started) * 1000
