"""`reverie` subcommands for documents (registered into the main parser by app/cli.py)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add this area's subcommands; each sets `func(settings, args) -> int`."""
    return None
