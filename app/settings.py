"""Configuration: one `Settings` read once at start-up from the environment and `.env`.

The seed's resource-range names (`MAX_VECTOR_SEARCH_LIMIT`, …) are the public contract and
are accepted exactly as written; everything else uses the `REVERIE_` prefix. Lower layers
receive plain values from here, never this object.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import tzlocal
from pydantic import AliasChoices, Field, create_model, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from capabilities.resources import BOUNDS, Dimension

_BOUND_WORDS = {
    "min": "Least {} the agent may ask for",
    "max": "Most {} the agent may ask for",
    "default": "{} when the agent does not say",
}


def _seed(name: str) -> AliasChoices:
    # Accept the seed name as written, and the field name for Settings(field=...) in tests.
    return AliasChoices(name, name.lower())


def limit_fields(dims: Iterable[Dimension]) -> dict[str, Any]:
    """The min, max and default of each declared dimension as settings fields, for `create_model`:
    read under the seed's names (`MAX_TRIPLE_DEPTH`), each defaulting to the seed's value."""
    return {
        d.env_name(b).lower(): (
            d.value.kind,
            Field(
                default=d.value.seed.value_of(b),
                validation_alias=_seed(d.env_name(b)),
                description=f"{_BOUND_WORDS[b].format(d.name)}; assembly {d.value.assembly}.",
            ),
        )
        for d in dims
        for b in BOUNDS
    }


# The resource ranges are fields derived from the dimensions' one declaration (`capabilities.resources`).
class Settings(create_model("_ResourceRanges", __base__=BaseSettings, **limit_fields(Dimension))):
    """Every knob of a Reverie installation, each with a default."""

    model_config = SettingsConfigDict(
        env_prefix="REVERIE_", env_file=".env", extra="ignore", populate_by_name=True
    )

    data_dir: Path = Path("data")
    """Everything Reverie stores lives here: backup is a copy, reset is a delete."""
    database_url: str = ""
    """Empty (the default): one SQLite file in the data directory. `postgresql://user:pass@host/db`:
    the same tables on that PostgreSQL server with pgvector instead (docs/postgres.md: what works there
    so far); the graph's projection and the other files stay in the data directory."""
    host: str = "127.0.0.1"
    """Interface the web UI binds to. Loopback by default: Reverie is private."""
    port: int = 8000
    """Port of the web UI."""

    llm_backend: Literal["auto", "ollama", "embedded"] = "auto"
    """`auto` uses Ollama when it answers at `OLLAMA_HOST`, else the embedded model."""
    judgement: Literal["auto", "policy", "model"] = "auto"
    """Who judges the context request, the evidence and the confidence: `auto` measures the model once
    (app/judgement.py) and lets only a model that passes judge; `policy` or `model` force a path."""
    ollama_host: str = Field(
        default="http://127.0.0.1:11434", validation_alias=AliasChoices("OLLAMA_HOST", "ollama_host")
    )
    """Where Ollama listens (its own variable name, as the ollama CLI uses it)."""
    ollama_model: str = "qwen2.5:0.5b"
    """Ollama model tag; see app/ollama_backend.py for why this one fits 2 GB."""
    embedding_backend: Literal["minilm", "ollama"] = "minilm"
    """`minilm`: the bundled all-MiniLM-L6-v2 (recall's calibration is fitted on it). `ollama`:
    REVERIE_OLLAMA_EMBEDDING_MODEL at OLLAMA_HOST. Changing it needs `reverie reindex` once."""
    ollama_embedding_model: str = "nomic-embed-text"
    """The Ollama model that embeds when REVERIE_EMBEDDING_BACKEND=ollama (`ollama pull` it first)."""
    embedded_model_path: Path | None = None
    """A .gguf to serve instead of the packaged SmolLM2-135M-Instruct."""
    embedded_threads: int = 1
    """llama.cpp threads; on a busy 2-core box two threads collapsed to 2-12 tokens/s."""
    embedded_ctx: int = 4096
    """Context window of the embedded model, in tokens."""
    embedded_cache_mb: int = Field(default=128, ge=0)
    """Host memory llama.cpp keeps the states of earlier prompts in, to reuse one a new prompt starts
    with (0: none). Each state of a 1,400-token prompt holds ~32 MB; llama.cpp's own default is 8 GB."""
    llm_timeout_s: float = 120.0
    """Longest wait for one model call before the turn fails with a clear message."""

    report_constraint_violations: bool = Field(
        default=True, validation_alias=_seed("REPORT_CONSTRAINT_VIOLATIONS")
    )
    """Tell the agent when and why a request was clamped."""
    include_execution_report: bool = Field(default=True, validation_alias=_seed("INCLUDE_EXECUTION_REPORT"))
    """Put the previous turn's execution report into the agent's next context."""

    memory_limit_mb: int = 2048
    """Resident-memory budget of the whole installation, reported every turn."""
    hardware_label: str = "2 GB RAM / 1 vCPU"
    """How the hardware is named to the agent in its prompt and reports."""
    context_budget_tokens: int = 1200
    """Token budget for recalled context (memories, graph) packed into one turn."""
    max_info_requests: int = 3
    """Hard cap on mid-answer rounds of asking for more information."""

    dream_time: str = "03:00"
    """Local time (HH:MM) of the nightly dream."""
    default_proactive_interval_minutes: int = Field(
        default=120, validation_alias=_seed("DEFAULT_PROACTIVE_INTERVAL_MINUTES")
    )
    """Failsafe interval for proactive follow-ups when the agent sets none."""
    timezone: str = ""
    """The IANA time zone reminders are read and shown in ("tomorrow at 9" is 09:00 there), e.g.
    `Europe/Lisbon`. Empty: the machine's own zone, the one the nightly dream's REVERIE_DREAM_TIME
    is read in (APScheduler asks tzlocal too). One zone per installation: Reverie runs on the
    person's own machine. Due times are stored in UTC, so changing it moves no stored reminder."""

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: str) -> str:
        value = value.strip()
        if value and value.split("://", 1)[0].split("+", 1)[0] not in ("postgresql", "postgres"):
            raise ValueError(
                f"REVERIE_DATABASE_URL={value.split('@')[-1]!r} is not a PostgreSQL URL: use "
                "postgresql://user:password@host:5432/reverie, or leave it empty for the SQLite file"
            )
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        if value.strip():
            try:
                ZoneInfo(value.strip())
            except (ZoneInfoNotFoundError, ValueError) as exc:
                raise ValueError(
                    f"REVERIE_TIMEZONE={value!r} is not a time zone: use an IANA name such as Europe/Lisbon, "
                    "or leave it empty for the machine's zone"
                ) from exc
        return value.strip()

    @property
    def zone(self) -> ZoneInfo:
        """The time zone of REVERIE_TIMEZONE, or the machine's."""
        return ZoneInfo(self.timezone) if self.timezone else tzlocal.get_localzone()

    @property
    def db_path(self) -> Path:
        """The one SQLite file."""
        return self.data_dir / "reverie.db"

    @property
    def graph_dir(self) -> Path:
        """The Kuzu graph directory (a projection of SQLite, rebuildable)."""
        return self.data_dir / "graph"
