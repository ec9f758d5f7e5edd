"""Measured resident memory: the app process plus the children it owns (the embedded model).

The budget is for the whole installation, so the embedded llama.cpp child counts too.
"""

from __future__ import annotations

import psutil


def rss_mb() -> float:
    """Resident memory of this process and its children, in MB."""
    me = psutil.Process()
    total = me.memory_info().rss
    for child in me.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            continue  # exited between listing and reading
    return total / (1024 * 1024)
