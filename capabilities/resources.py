"""The resource dimensions, declared once, their limits, the agent's request for them and its clamping."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum, StrEnum
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

Number = int | float
Bound = Literal["min", "max", "default"]
BOUNDS: tuple[Bound, ...] = ("min", "max", "default")
REASON_MAX_CHARS = 200
# Absorbs binary float noise (0.1 + 0.2) only; real differences are at least 0.01.
_EPS = 1e-9
# Graph expansion grows roughly as degree**depth. At ~10 edges per entity depth 5 is ~10^5 nodes,
# more than one core walks within a turn, and a small-world personal graph is fully reachable well
# before that: deeper walks would add cost without adding recall.
TRIPLE_DEPTH_CEILING = 5


class LimitsError(ValueError):
    """A configured or overridden limit is invalid; the message names the exact variable."""


@dataclass(frozen=True)
class Range:
    """The allowed values of one dimension and where they came from.

    ``source`` is the origin of the base values (".env"); ``overrides`` records, in the order they
    were applied, each bound an approved override replaced and that override's description.
    """

    min: Number
    max: Number
    default: Number
    source: str = ".env"
    overrides: tuple[tuple[Bound, str], ...] = ()

    def source_of(self, bound: Bound) -> str:
        """Where the current value of one bound came from, e.g. "override #3 approved 2026-11-21"."""
        return next((src for b, src in reversed(self.overrides) if b == bound), self.source)

    def value_of(self, bound: Bound) -> Number:
        """The value of one bound by name."""
        return {"min": self.min, "max": self.max, "default": self.default}[bound]


@dataclass(frozen=True, kw_only=True)
class DimensionSpec:
    """The declaration of one dimension; everything else about it is derived from this.

    Settings (``MIN_``/``MAX_``/``DEFAULT_`` + ``env_stem``, seeded with ``seed``), validation and
    clamping, the request schema the model fills in, the request prompt and its examples, the
    execution report, the context step, the dream's analysis and its simulation all read it.
    Adding a fifth dimension means declaring it in `Dimension` and making memory/ retrieve it (a
    field named ``field`` on `memory.assembly.ContextRequest` and the assembly step that uses it),
    nothing else: `tests/unit/test_dimension_declaration.py` derives all of the above for a
    declaration with an extra dimension.
    """

    field: str
    """The request key and the `ContextRequest` field, e.g. ``triple_depth``."""
    env_stem: str
    """``MIN_``/``MAX_``/``DEFAULT_`` + this names its `.env` variables, e.g. ``MAX_TRIPLE_DEPTH``."""
    kind: type[int] | type[float]
    """The type of its values: a count or depth is an int, a threshold a float."""
    floor: Number
    """The meaningful domain starts here: a request or limit below it is a failure, not a need."""
    ceiling: Number | None
    """The meaningful domain ends here (None: no end); a float's floor and ceiling are exclusive."""
    seed: Range
    """The seed's `.env` values: min, max and default when nothing is configured."""
    description: str
    """To the model, in the request prompt and schema."""
    label: str
    """To the person, in a dream report."""
    words: str
    """To the person, in each reply's context step, beside the name."""
    assembly: str
    """What assembly does with the granted value, in plain words."""


class DeclaredDimension(Enum):
    """What any declared dimension can say about itself. It has no members, so that a test can
    declare a list of its own beside the real one, `Dimension`."""

    _value_: DimensionSpec

    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self.name}>"

    @property
    def spec(self) -> DimensionSpec:
        """The metadata of this dimension."""
        return self.value

    @property
    def label(self) -> str:
        """The dimension in plain words, for a person reading a dream report."""
        return self.value.label

    def meaningful(self, value: float) -> bool:
        """Whether a requested value is a request at all: a threshold of 0 or 1 (everything or nothing
        matches), a negative count or depth past the ceiling is a model failure, not a need."""
        spec = self.value
        if spec.kind is float and spec.ceiling is not None:
            return spec.floor < value < spec.ceiling
        return value >= spec.floor and (spec.ceiling is None or value <= spec.ceiling)

    def env_name(self, bound: Bound) -> str:
        """The configuration variable of one bound, e.g. ``MAX_EPISODIC_CONTEXT_TURNS``."""
        return f"{bound.upper()}_{self.value.env_stem}"


class Dimension(DeclaredDimension):
    """A resource the agent can ask for before answering: the one declaration of each."""

    CONTEXT_TURNS = DimensionSpec(
        field="context_turns", env_stem="EPISODIC_CONTEXT_TURNS", kind=int, floor=1, ceiling=None,
        seed=Range(1, 20, 10),
        description="recent turns of this chat to include",
        label="recent messages read",
        words="recent turns of this chat",
        assembly="loads the last N turns of this chat",
    )  # fmt: skip
    VECTOR_LIMIT = DimensionSpec(
        field="vector_limit", env_stem="VECTOR_SEARCH_LIMIT", kind=int, floor=0, ceiling=None,
        seed=Range(0, 15, 5),
        description="long-term memories to retrieve by meaning",
        label="memories recalled",
        words="memories found by meaning",
        assembly="recalls at most this many long-term memories, the closest to the message first",
    )  # fmt: skip
    SIMILARITY_THRESHOLD = DimensionSpec(
        field="similarity_threshold", env_stem="SIMILARITY_THRESHOLD", kind=float, floor=0, ceiling=1,
        seed=Range(0.5, 0.9, 0.7),
        description="minimum match score; lower finds more",
        label="how close a memory must match",
        words="least relevance",
        assembly="leaves out recalled memories whose calibrated relevance is below this",
    )  # fmt: skip
    TRIPLE_DEPTH = DimensionSpec(
        field="triple_depth", env_stem="TRIPLE_DEPTH", kind=int, floor=0, ceiling=TRIPLE_DEPTH_CEILING,
        seed=Range(0, 3, 1),
        description="hops to follow between related facts",
        label="steps between related facts",
        words="steps along links",
        assembly="follows the graph this many hops from the entities named in the message and in the "
        "recalled memories (0: no graph at all)",
    )  # fmt: skip


def _declared(dims: Iterable[Dimension]) -> type[Dimension]:
    """The declaration these dimensions belong to: `Dimension`, or the list a test declared."""
    return next((type(d) for d in dims), Dimension)


# The seed's .env values; the public contract when nothing is configured.
PRODUCT_DEFAULTS: Mapping[str, Number] = MappingProxyType(
    {d.env_name(b): d.value.seed.value_of(b) for d in Dimension for b in BOUNDS}
)
# Every spelling a model or a config is likely to use for a dimension, lower-cased.
_KEYS = {alias.lower(): d for d in Dimension for alias in (d.name, d.value.field, d.value.env_stem)}


def format_number(value: Number) -> str:
    """Render a value the way reports and prompts show it: ``20``, ``0.85``."""
    return str(value) if isinstance(value, int) else f"{value:g}"


def _checked_bound(dim: Dimension, bound: Bound, value: object) -> Number:
    """Type, precision and (for min and max) sanity checks; a default is checked against its range."""
    name, spec = dim.env_name(bound), dim.value
    # isfinite only on floats: it raises OverflowError on ints too large for a float.
    unusable_float = isinstance(value, float) and not math.isfinite(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or unusable_float:
        raise LimitsError(f"{name}={value!r} is not a number")
    if spec.kind is int and value != int(value):
        raise LimitsError(f"{name}={value} must be a whole number")
    value = int(value) if spec.kind is int else float(value)
    # Requests are rounded to 2 decimals, so a finer bound could never be granted exactly.
    if abs(round(value, 2) - value) > _EPS:
        raise LimitsError(f"{name}={value} has more than 2 decimals")
    if bound != "default" and (value < spec.floor or (spec.ceiling is not None and value > spec.ceiling)):
        sanity = f"at least {spec.floor}" if spec.ceiling is None else f"within {spec.floor}..{spec.ceiling}"
        raise LimitsError(f"{name} must be {sanity} (got {format_number(value)})")
    return value


def _checked_range(dim: Dimension, rng: Range) -> Range:
    lo, hi, default = (_checked_bound(dim, b, rng.value_of(b)) for b in BOUNDS)
    low, high, dflt = (format_number(v) for v in (lo, hi, default))
    if hi < lo:
        raise LimitsError(f"{dim.env_name('max')} ({high}) is below {dim.env_name('min')} ({low})")
    if not lo <= default <= hi:
        raise LimitsError(f"{dim.env_name('default')}={dflt} is outside [{low}, {high}]")
    return Range(lo, hi, default, rng.source, rng.overrides)


@dataclass(frozen=True)
class Limits(Mapping[Dimension, Range]):
    """The active, validated range of every dimension: a read-only mapping Dimension → Range."""

    ranges: Mapping[Dimension, Range]

    def __post_init__(self) -> None:
        declared = _declared(self.ranges)
        missing = [dim.name for dim in declared if dim not in self.ranges]
        if missing:
            raise LimitsError(f"no limits given for {', '.join(missing)}")
        checked = {dim: _checked_range(dim, self.ranges[dim]) for dim in declared}
        object.__setattr__(self, "ranges", MappingProxyType(checked))

    def __getitem__(self, dim: Dimension) -> Range:
        return self.ranges[dim]

    def __iter__(self) -> Iterator[Dimension]:
        return iter(self.ranges)

    def __len__(self) -> int:
        return len(self.ranges)

    def __hash__(self) -> int:
        return hash(tuple(self.ranges.items()))

    @classmethod
    def from_values(
        cls, values: Mapping[str, Number] | None = None, /, *, source: str = ".env", **named: Number
    ) -> Limits:
        """Build limits from plain numbers named like the seed's variables; others keep product defaults.

        Args:
            values: e.g. ``{"MAX_EPISODIC_CONTEXT_TURNS": 20}``; names are case-insensitive.
            source: where the values came from, shown in reports, e.g. ".env".
            **named: the same as keywords, e.g. ``max_triple_depth=3``.

        Raises:
            LimitsError: an unknown name, a value outside its sanity bounds, a max below its min,
                or a default outside its range.
        """
        given = {name.upper(): value for name, value in {**(values or {}), **named}.items()}
        unknown = sorted(set(given) - set(PRODUCT_DEFAULTS))
        if unknown:
            raise LimitsError(f"unknown limit variable {', '.join(unknown)}")
        merged = {**PRODUCT_DEFAULTS, **given}
        return cls({d: Range(*(merged[d.env_name(b)] for b in BOUNDS), source=source) for d in Dimension})

    def with_override(
        self,
        dim: Dimension,
        *,
        min: Number | None = None,  # shadows the builtin on purpose: named like the Range field
        max: Number | None = None,
        default: Number | None = None,
        source: str,
    ) -> Limits:
        """Return new limits with bounds of one dimension replaced by an approved override.

        An override that moves the range past the current default without giving a new one pulls
        the default to the nearest bound: an approval must not leave the limits unusable.

        Raises:
            LimitsError: the override sets nothing or makes the range invalid; the message names
                the variable and the override.
        """
        old = self.ranges[dim]
        given: dict[Bound, Number] = {b: v for b, v in zip(BOUNDS, (min, max, default), strict=True) if v is not None}
        if not given:
            raise LimitsError(f"{source} sets no bound of {dim.name}")
        lo, hi, new_default = (given.get(b, old.value_of(b)) for b in BOUNDS)
        if "default" not in given and lo <= hi and not lo <= new_default <= hi:
            given["default"] = new_default = lo if new_default < lo else hi
        added: tuple[tuple[Bound, str], ...] = tuple((b, source) for b in given)
        overrides = old.overrides + added
        try:
            return Limits({**self.ranges, dim: Range(lo, hi, new_default, old.source, overrides)})
        except LimitsError as exc:
            raise LimitsError(f"{exc} (in {source})") from exc

    def as_env(self) -> dict[str, Number]:
        """The effective values under their configuration names, for logs and ``reverie limits``."""
        return {dim.env_name(b): rng.value_of(b) for dim, rng in self.ranges.items() for b in BOUNDS}


def request_fields(dims: Iterable[Dimension]) -> dict[str, Any]:
    """One optional field per declared dimension, for `create_model`: what the model may ask for."""
    return {
        d.value.field: (d.value.kind | None, Field(default=None, allow_inf_nan=False, description=d.value.description))
        for d in dims
    }


class _Request(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    def value(self, dim: Dimension) -> Number | None:
        """The requested value of one dimension, or None when not given."""
        return getattr(self, dim.value.field)


# The dimensions' fields come first, in declaration order, then the reason: the order the model writes them.
class ResourceRequest(create_model("_Requested", __base__=_Request, **request_fields(Dimension))):
    """What the model asks for before answering; a missing dimension gets its default."""

    reason: str = Field(default="", max_length=REASON_MAX_CHARS, description="a few words on why")


# Small models sometimes spell numbers out; the ranges never need more than fifteen in words.
_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_WORDS += ("eleven", "twelve", "thirteen", "fourteen", "fifteen")


def _key(key: object) -> str:
    return str(key).strip().lower().replace("-", "_").replace(" ", "_")


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


def _as_mapping(raw: object, notes: list[str]) -> Mapping[Any, Any]:
    data = raw
    if isinstance(raw, str):
        # Small models wrap JSON in prose or code fences: fall back to the outermost braces,
        # found with find/rfind rather than a regex so adversarial text stays linear.
        data = None
        for text in (raw, raw[raw.find("{") : raw.rfind("}") + 1]):
            try:
                data = json.loads(text)
                break
            except (ValueError, RecursionError):
                continue
    if not isinstance(data, Mapping):
        notes.append("no resource request given" if raw is None else f"unreadable request {_short(raw)}")
        return {}
    values = list(data.values())
    if len(values) == 1 and isinstance(values[0], Mapping) and _key(next(iter(data))) not in _KEYS:
        return values[0]  # one level of wrapping, e.g. {"resources": {...}}
    return data


def _read_number(dim: Dimension, value: object, notes: list[str]) -> Number | None:
    number: Number = math.nan
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and len(value) <= 40:
        text = value.strip().lower()
        with contextlib.suppress(ValueError):
            number = _WORDS.index(text) if text in _WORDS else float(text)
    try:
        usable = (float(number) if dim.value.kind is float else number) if math.isfinite(number) else None
    except OverflowError:  # an int too large for a float
        usable = None
    if usable is None:
        notes.append(f"dropped {dim.value.field}={_short(value)}: not a usable number")
        return None
    if dim.value.kind is float:
        return usable
    whole = math.floor(usable + 0.5)  # half-up: round() would send 2.5 to 2
    if whole != usable:
        notes.append(f"rounded {dim.value.field}={format_number(usable)} to {whole}")
    return whole


def parse_request(raw: str | Mapping[Any, Any] | ResourceRequest | None) -> tuple[ResourceRequest, list[str]]:
    """Read whatever the model emitted as a request, keeping what is usable; never raises.

    Args:
        raw: JSON text (prose or code fences around it are tolerated), a decoded mapping, an
            already validated request, or None when the model produced nothing.

    Returns:
        The request (unreadable dimensions left None, so they get defaults) and notes on what was
        dropped, rounded or ignored, for the log and the execution report.
    """
    if isinstance(raw, ResourceRequest):
        return raw, []
    notes: list[str] = []
    fields: dict[str, Number | str] = {}
    for key, value in _as_mapping(raw, notes).items():
        name = _key(key)
        dim = _KEYS.get(name)
        if name == "reason":
            reason = "" if value is None else str(value).strip()
            fields["reason"] = reason[:REASON_MAX_CHARS]
            if len(reason) > REASON_MAX_CHARS:
                notes.append(f"reason cut to {REASON_MAX_CHARS} characters")
        elif dim is None:
            notes.append(f"ignored unknown key {_short(key)}")
        elif (number := _read_number(dim, value, notes)) is not None:
            fields[dim.value.field] = number
    return ResourceRequest.model_validate(fields), notes


class GrantStatus(StrEnum):
    """How a requested value became the provided one."""

    AS_REQUESTED = "as_requested"
    CLAMPED_TO_MAX = "clamped_to_max"
    CLAMPED_TO_MIN = "clamped_to_min"
    DEFAULTED = "defaulted"


_CLAMPS = (GrantStatus.CLAMPED_TO_MAX, GrantStatus.CLAMPED_TO_MIN)


@dataclass(frozen=True)
class Grant:
    """The outcome for one dimension: what was asked, what is provided, and why."""

    dimension: Dimension
    requested: Number | None
    provided: Number
    status: GrantStatus


def _grant(dim: Dimension, requested: Number | None, rng: Range) -> Grant:
    if requested is None:
        return Grant(dim, None, rng.default, GrantStatus.DEFAULTED)
    value = round(float(requested), 2) if dim.value.kind is float else math.floor(requested + 0.5)
    if value < rng.min - _EPS:
        return Grant(dim, requested, rng.min, GrantStatus.CLAMPED_TO_MIN)
    if value > rng.max + _EPS:
        return Grant(dim, requested, rng.max, GrantStatus.CLAMPED_TO_MAX)
    # Within the tolerance band, snap onto the bound so the provided value is exactly in range.
    snapped = rng.min if value < rng.min else rng.max if value > rng.max else value
    return Grant(dim, requested, snapped, GrantStatus.AS_REQUESTED)


@dataclass(frozen=True)
class Provision:
    """The granted value of every dimension, with the request and the limits it was decided from."""

    request: ResourceRequest
    limits: Limits
    grants: tuple[Grant, ...]

    def grant(self, dim: Dimension) -> Grant:
        """The grant of one dimension."""
        return next(g for g in self.grants if g.dimension is dim)

    def value(self, dim: Dimension) -> Number:
        """The provided value of one dimension (an int for every dimension but the threshold)."""
        return self.grant(dim).provided

    def fields(self) -> dict[str, Any]:
        """The provided values by request field, each of its dimension's type: the keyword arguments
        of `memory.assembly.ContextRequest`, whose queries need an int LIMIT and a float threshold."""
        return {g.dimension.value.field: g.dimension.value.kind(g.provided) for g in self.grants}

    @property
    def clamped(self) -> list[Grant]:
        """Grants whose value was pulled into range."""
        return [g for g in self.grants if g.status in _CLAMPS]

    @property
    def defaulted(self) -> list[Grant]:
        """Grants filled with the default because nothing usable was requested."""
        return [g for g in self.grants if g.status is GrantStatus.DEFAULTED]

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready form for the resource-usage log."""
        log: dict[str, Any] = {"reason": self.request.reason}
        for g in self.grants:
            log[g.dimension.name] = dict(requested=g.requested, provided=g.provided, status=g.status.value)
        return log


def clamp(request: ResourceRequest, limits: Limits) -> Provision:
    """Decide each dimension on its own: as asked when in range, else clamped, or the default if missing."""
    return Provision(request, limits, tuple(_grant(d, request.value(d), limits[d]) for d in limits))


# (situation, reason, wanted values by request field); None stands for the range's max, a dimension
# not named gets its default, and every value is fitted into the current ranges so the model never
# learns to ask for what it cannot get.
_EXAMPLES: tuple[tuple[str, str, Mapping[str, Number | None]], ...] = (
    ("long debugging thread", "need the earlier steps",
     {"context_turns": None, "vector_limit": 3, "similarity_threshold": 0.75, "triple_depth": 0}),
    ('"what do I like?"', "recall many preferences",
     {"context_turns": 2, "vector_limit": None, "similarity_threshold": 0.55, "triple_depth": 1}),
    ('"thanks!"', "nothing to recall",
     {"context_turns": 1, "vector_limit": 0, "similarity_threshold": 0.9, "triple_depth": 0}),
    ('"how is Anna connected to Berlin?"', "follow relations",
     {"context_turns": 2, "vector_limit": 5, "similarity_threshold": 0.7, "triple_depth": None}),
)  # fmt: skip


def _fit(rng: Range, want: Number | None) -> Number:
    return rng.max if want is None or want > rng.max else rng.min if want < rng.min else want


def _example(limits: Limits, wanted: Mapping[str, Number | None]) -> dict[str, Number]:
    fields = ((d.value.field, r) for d, r in limits.items())
    return {f: _fit(r, wanted[f]) if f in wanted else r.default for f, r in fields}


def request_prompt(limits: Limits, hardware_label: str) -> str:
    """The instruction asking the model for its resources: current ranges, defaults and four examples.

    Kept short on purpose: a 135M-parameter model reads it every turn.
    """
    lines = [
        f"Before answering, choose how much context to load. Machine: {hardware_label}.",
        "Reply with one JSON object. Ask for little when little is needed. Keys, ranges, defaults:",
    ]
    lines += [
        f"- {d.value.field}: {format_number(r.min)} to {format_number(r.max)}, default "
        f"{format_number(r.default)} ({d.value.description})"
        for d, r in limits.items()
    ]
    lines += ["- reason: a few words on why", "Examples:"]
    for situation, reason, wanted in _EXAMPLES:
        lines.append(f"- {situation}: {json.dumps({**_example(limits, wanted), 'reason': reason})}")
    lines.append("Values outside a range are clamped, and you are told what you got.")
    return "\n".join(lines)
