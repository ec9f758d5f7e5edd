"""The dream report's charts drawn as PNG by matplotlib (Agg), in a child process.

matplotlib costs about 53 MB of resident memory and 1.5-2 s to import (docs/benchmarks.md, issue 15),
and a process never gives that back: drawn in the chat server, every chat after a look at `/dreams`
would carry it. So `render` runs this file as a script (`python -I`: nothing from the environment or
the project on its path) once per `/dreams` view, all its charts in one go, and the server only reads
the PNG bytes. This module imports nothing but the standard library at its top, so the child starts
with matplotlib alone.

A chart is a plain-data spec (`dreaming.charts` writes them, every text already in plain words):
- `{"kind": "bars", "title", "xlabel", "ylabel", "bars": [[label, count, role]]}`, role one of
  "asked", "limit", "proposed";
- `{"kind": "days", "title", "days": [label], "seconds": [p95], "mb": [peak or null], "budget_mb"}`.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes

WIDTH_IN, HEIGHT_IN, DPI = 7.0, 3.2, 100  # 700 x 320 px: the width of a chat message
TIMEOUT_S = 120  # a busy two-core box: the import alone took 2 s on a quiet one
COLOURS = {"asked": "#7c8cf8", "limit": "#e0a030", "proposed": "#40b070", "time": "#9aa5f0", "memory": "#c0504d"}


def render(specs: list[dict[str, Any]]) -> list[bytes]:
    """Each spec drawn as PNG bytes, by one child process; raises OSError when it could not draw."""
    if not specs:
        return []
    try:
        done = subprocess.run([sys.executable, "-I", __file__], input=json.dumps(specs).encode(),
                              capture_output=True, timeout=TIMEOUT_S, check=True)  # fmt: skip
    except (subprocess.SubprocessError, OSError) as exc:
        raise OSError(f"the charts could not be drawn: {exc}") from exc
    return [base64.b64decode(png) for png in json.loads(done.stdout)]


def draw(spec: dict[str, Any]) -> bytes:
    """One spec as PNG bytes (in the child: this is where matplotlib is imported)."""
    import io

    import matplotlib

    matplotlib.use("Agg")  # no display, no GUI toolkit
    from matplotlib.figure import Figure  # (not pyplot: no global figure registry to leak)

    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    (_bars if spec["kind"] == "bars" else _days)(ax, spec)
    ax.set_title(spec["title"], fontsize=11, loc="left")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=DPI)
    return out.getvalue()


def _bars(ax: Axes, spec: dict[str, Any]) -> None:
    """How many turns asked for each value, the limit and the proposal in their own colours."""
    labels = [str(b[0]) for b in spec["bars"]]
    counts = [int(b[1]) for b in spec["bars"]]
    bars = ax.bar(labels, counts, color=[COLOURS[b[2]] for b in spec["bars"]], width=0.6)
    ax.bar_label(bars, padding=2, fontsize=9)
    ax.set_xlabel(spec["xlabel"])
    ax.set_ylabel(spec["ylabel"])
    ax.set_ylim(0, max(counts, default=1) * 1.2 + 0.5)
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # turns are whole


def _days(ax: Axes, spec: dict[str, Any]) -> None:
    """p95 reply time as bars (left axis), peak memory as a line against the budget (right axis)."""
    days = spec["days"]
    ax.bar(days, spec["seconds"], color=COLOURS["time"], width=0.6, label="reply time (95 in 100 were faster)")
    ax.set_ylim(0, max(spec["seconds"], default=1.0) * 1.5 + 0.1)  # headroom: the budget line runs above the bars
    ax.set_ylabel("reply time (seconds)")
    ax.set_xlabel("day")
    ax.tick_params(axis="x", labelsize=8, labelrotation=45 if len(days) > 10 else 0)
    memory = ax.twinx()
    points = [(d, mb) for d, mb in zip(days, spec["mb"], strict=True) if mb is not None]
    memory.plot([d for d, _ in points], [mb for _, mb in points], color=COLOURS["memory"], marker="o",
                label="peak memory, app and model")  # fmt: skip
    memory.axhline(spec["budget_mb"], color=COLOURS["memory"], linestyle="--", linewidth=1,
                   label=f"memory budget, {spec['budget_mb']:.0f} MB")  # fmt: skip
    memory.set_ylim(0, spec["budget_mb"] * 1.15)
    memory.set_ylabel("memory (MB)")
    memory.spines["top"].set_visible(False)
    handles = [*ax.get_legend_handles_labels()[0], *memory.get_legend_handles_labels()[0]]
    ax.figure.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=8, frameon=False)


if __name__ == "__main__":
    drawn = [base64.b64encode(draw(spec)).decode() for spec in json.load(sys.stdin)]
    sys.stdout.write(json.dumps(drawn))
