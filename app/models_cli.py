"""`reverie models list|pull`: the Ollama models, with a progress bar for pulls."""

from __future__ import annotations

import asyncio
import sys

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

from app import ollama_backend
from app.settings import Settings


def models_command(settings: Settings, action: str) -> int:
    """Run `reverie models ACTION`; returns the exit code."""
    try:
        if action == "list":
            for model in asyncio.run(ollama_backend.list_models(settings.ollama_host)):
                print(model.name)
            return 0
        with Progress(
            TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TimeRemainingColumn()
        ) as bar:
            task = bar.add_task(f"pulling {settings.ollama_model}", total=None)

            def on_progress(p: ollama_backend.PullProgress) -> None:
                bar.update(
                    task,
                    description=f"{settings.ollama_model}: {p.status}",
                    total=p.total,
                    completed=p.completed or 0,
                )

            asyncio.run(ollama_backend.pull_model(settings.ollama_host, settings.ollama_model, on_progress))
        print(f"{settings.ollama_model} is ready")
        return 0
    except ollama_backend.OllamaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
