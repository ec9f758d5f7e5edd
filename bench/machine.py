"""The machine a benchmark ran on: cores, RAM, CPU model (every benchmark prints this first).

A number without its machine is not a result: the 2 GB / 1 vCPU budget is judged against the
box the numbers came from, and a shared CI box is slower than a quiet one.
"""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path

import psutil


@dataclass(frozen=True)
class Machine:
    """What the numbers were measured on."""

    cpu_model: str
    logical_cores: int
    usable_cores: int
    ram_gb: float
    python: str
    system: str

    def line(self) -> str:
        """One line for a report header."""
        return (
            f"machine: {self.cpu_model} | {self.logical_cores} logical cores "
            f"({self.usable_cores} usable by this process) | {self.ram_gb:.1f} GB RAM | "
            f"Python {self.python} | {self.system} | load average {load_average()}"
        )

    def markdown(self) -> str:
        """The same, as a markdown bullet."""
        return f"- {self.line()}"


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, else what `platform` knows."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for raw in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = raw.partition(":")
            if key.strip() in ("model name", "Hardware", "cpu model"):
                return value.strip()
    return platform.processor() or platform.machine() or "unknown CPU"


def load_average() -> str:
    """The 1/5/15-minute load averages: a busy shared box inflates wall-clock times."""
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def machine() -> Machine:
    """Measure the current machine."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return Machine(
        cpu_model=cpu_model(),
        logical_cores=os.cpu_count() or 1,
        usable_cores=usable,
        ram_gb=psutil.virtual_memory().total / 1024**3,
        python=platform.python_version(),
        system=f"{platform.system()} {platform.release()}",
    )


def print_machine() -> Machine:
    """Print the machine line (to stdout) and return it."""
    m = machine()
    print(m.line(), flush=True)
    return m


if __name__ == "__main__":
    print_machine()
    sys.exit(0)
