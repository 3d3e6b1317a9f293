"""The embedder protocol: what memo needs from any embedding model.

An embedder is anything with ``embed_documents``, ``embed_query``, ``dimensions``
and ``fingerprint`` (a ``typing.Protocol``: LangChain or LlamaIndex objects adapt
without inheriting). The fingerprint is stored in every base so that opening it
with another model is an error instead of silently meaningless distances.
"""

from __future__ import annotations

import functools
import json
import math
import numbers
import operator
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import chain
from typing import Any, Protocol, TypeVar, runtime_checkable

from memo_core.errors import DimensionMismatchError, InvalidInputError, ProviderError

__all__ = [
    "Embedder",
    "EmbedderFingerprint",
    "batched",
    "checked_unit_blob",
    "checked_unit_blobs",
    "checked_unit_vector",
    "normalize_vector",
]

T = TypeVar("T")


@dataclass(frozen=True)
class EmbedderFingerprint:
    """What makes two embedders' vectors comparable."""

    provider: str
    model: str
    dimensions: int
    normalized: bool = True

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> EmbedderFingerprint:
        return cls(**json.loads(text))

    def describe(self) -> str:
        return f"{self.provider}:{self.model} ({self.dimensions}d)"


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors. Vectors must be L2-normalised when ``normalized``."""

    @property
    def dimensions(self) -> int: ...

    @property
    def fingerprint(self) -> EmbedderFingerprint: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed passages to be stored (batched by the implementation)."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query (asymmetric models add their query prefix)."""
        ...


def batched(items: Sequence[T], size: int) -> list[Sequence[T]]:
    """Split ``items`` into consecutive batches of at most ``size``."""
    if size < 1:
        raise InvalidInputError("batch size must be at least 1")
    return [items[i : i + size] for i in range(0, len(items), size)]


def normalize_vector(
    vector: Sequence[float], dims: int | None, *, source: str = "embedder"
) -> list[float]:
    """A foreign model's vector as memo stores it: floats, the expected length, unit norm.

    Adapters of LangChain or LlamaIndex embeddings use this, so a model that
    returns NaN, a zero vector or the wrong length fails with a typed error
    instead of writing meaningless distances.
    """
    values = [float(v) for v in vector]
    if dims is not None and len(values) != dims:
        raise DimensionMismatchError(f"the {source} returned {len(values)} dimensions, not {dims}")
    if not all(math.isfinite(v) for v in values):
        raise ProviderError(f"the {source} returned NaN or infinity")
    norm = math.sqrt(sum(v * v for v in values))
    if norm == 0.0:
        raise ProviderError(f"the {source} returned a zero vector")
    return [v / norm for v in values]


#: A sum of squares at or above this is far from float underflow: the fast path's norm is exact.
_SMALLEST_SAFE_SQUARES = 1e-200


def _plain_norm(vector: object, dims: int) -> float | None:
    """The norm of the common case of :func:`checked_unit_vector`, or None to check slowly.

    A list or tuple of ``dims`` plain floats whose sum of squares is finite and not
    tiny (so no value is NaN, infinite, or large enough to overflow the square).
    Anything else (ints, bools, zero, extremes) takes the slow path, which gives
    every refusal its own message.
    """
    if type(vector) not in (list, tuple) or len(vector) != dims:  # type: ignore[arg-type]
        return None
    values: Sequence[float] = vector  # type: ignore[assignment]
    if set(map(type, values)) != {float}:
        return None
    squares = sum(map(operator.mul, values, values))
    if not (math.isfinite(squares) and squares >= _SMALLEST_SAFE_SQUARES):
        return None
    return math.sqrt(squares)


def _unit_floats(vector: object, dims: int) -> list[float] | None:
    """The common case of :func:`checked_unit_vector` at C speed (scaled by its norm),
    or None to check slowly."""
    norm = _plain_norm(vector, dims)
    if norm is None:
        return None
    return [v / norm for v in vector]  # type: ignore[attr-defined]


@functools.cache
def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # the base install: the same numbers from the pure-Python path
        return None
    return numpy


def checked_unit_blob(vector: object, dims: int, *, what: str = "vector") -> bytes:
    """:func:`checked_unit_vector` as float32 bytes, the stored form of a vector.

    The common case (a list of ``dims`` plain floats) is divided by its norm in one
    array operation when numpy is installed: the same double divisions, rounded to
    float32 alike, so the same bytes as the pure-Python path.
    """
    norm = _plain_norm(vector, dims)
    np = _numpy() if norm is not None else None
    if np is None:
        return array("f", checked_unit_vector(vector, dims, what=what)).tobytes()
    values: Sequence[float] = vector  # type: ignore[assignment]  # checked by _plain_norm
    doubles = np.frombuffer(array("d", values), dtype=np.float64)
    return bytes((doubles / norm).astype(np.float32).tobytes())


def checked_unit_blobs(
    vectors: Sequence[object], dims: int, *, what: str = "vector"
) -> list[bytes]:
    """:func:`checked_unit_blob` of each vector, the same bytes: the common ones (lists
    of ``dims`` plain floats) checked and scaled :data:`_BLOCK` at a time in a few
    array operations, the rest (and all of them without numpy) one by one, each
    refusal with its own message."""
    np = _numpy()
    if np is None or len(vectors) < 2:
        return [checked_unit_blob(vector, dims, what=what) for vector in vectors]
    out: list[bytes] = []
    for start in range(0, len(vectors), _BLOCK):
        out += _block_blobs(np, vectors[start : start + _BLOCK], dims, what)
    return out


#: Vectors checked together: large enough that the per-block calls cost nothing
#: per vector, small enough that a block's float64 copy stays in cache (1.5 MB at 384).
_BLOCK = 512


def _block_blobs(np: Any, vectors: Sequence[object], dims: int, what: str) -> list[bytes]:
    """:func:`checked_unit_blob` of each of ``vectors``. When every one is a list or
    tuple of ``dims`` plain floats (one type check over all their values), or a
    float array of that shape (a row of an embedding matrix), the sums of squares are
    taken in one array operation; any other block goes row by row."""
    doubles = _float_rows(np, vectors, dims)
    if doubles is None:
        return _row_blobs(np, vectors, dims, what)
    with np.errstate(all="ignore"):  # an overflowing square is refused below, row by row
        # Summed left to right, as _plain_norm's sum() does on Python 3.11 (numpy's
        # sum pairs them up and rounds differently): the same norm, the same bytes.
        squares = np.cumsum(doubles * doubles, axis=1)[:, -1]
        plain = np.isfinite(squares) & (squares >= _SMALLEST_SAFE_SQUARES)
        scaled = (doubles / np.sqrt(squares)[:, None]).astype(np.float32).tobytes()
    size = 4 * dims
    return [
        scaled[k * size : (k + 1) * size] if ok else checked_unit_blob(vectors[k], dims, what=what)
        for k, ok in enumerate(plain.tolist())
    ]


#: Array types whose values are exactly the Python floats their ``tolist()`` gives.
_FLOAT_TYPES = ("float16", "float32", "float64")


def _float_rows(np: Any, vectors: Sequence[object], dims: int) -> Any:
    """``vectors`` as a float64 matrix when each is a list or tuple of ``dims`` plain
    floats, or each a 1-D float array of ``dims`` values; None otherwise."""
    if dims <= 0:
        return None
    kinds = {type(v) for v in vectors}
    if kinds <= {list, tuple}:
        if not all(len(v) == dims for v in vectors):  # type: ignore[arg-type]
            return None
        count = len(vectors) * dims
        values: Iterator[object] = chain.from_iterable(vectors)  # type: ignore[arg-type]
        if operator.countOf(map(type, values), float) != count:
            return None
        return np.fromiter(
            chain.from_iterable(vectors),  # type: ignore[arg-type]
            dtype=np.float64,
            count=count,
        ).reshape(len(vectors), dims)
    if kinds == {np.ndarray} and all(
        v.shape == (dims,) and v.dtype.name in _FLOAT_TYPES  # type: ignore[attr-defined]
        for v in vectors
    ):
        return np.stack(vectors).astype(np.float64)
    return None


def _row_blobs(np: Any, vectors: Sequence[object], dims: int, what: str) -> list[bytes]:
    """:func:`_block_blobs` of a block holding something other than plain floats:
    each vector's norm by :func:`_plain_norm`, the plain ones scaled together."""
    norms = [_plain_norm(vector, dims) for vector in vectors]
    plain = [i for i, norm in enumerate(norms) if norm is not None]
    if len(plain) < 2:
        return [checked_unit_blob(vector, dims, what=what) for vector in vectors]
    doubles = np.array([vectors[i] for i in plain], dtype=np.float64)
    divisors = np.array([norms[i] for i in plain], dtype=np.float64)
    scaled = (doubles / divisors[:, None]).astype(np.float32).tobytes()
    size = 4 * dims
    out: list[bytes | None] = [None] * len(vectors)
    for k, i in enumerate(plain):
        out[i] = scaled[k * size : (k + 1) * size]
    return [
        blob if blob is not None else checked_unit_blob(vectors[i], dims, what=what)
        for i, blob in enumerate(out)
    ]


def checked_unit_vector(vector: object, dims: int, *, what: str = "vector") -> list[float]:
    """A caller's vector, checked and scaled to unit length, or one typed error.

    Every vector that reaches storage or a similarity search (written or asked
    for) passes here. Similarity is cosine everywhere, so scaling changes no
    result, while it keeps values that float32 would turn into infinity (1e39)
    or zero (1e-46) from becoming NaN distances. Refused with
    :class:`~memo_core.errors.InvalidInputError` (one line): something that is
    not a flat sequence of real numbers (a string, bytes, a mapping, a scalar, a
    nested list, a 2-D array, booleans), NaN or infinity, and the zero vector,
    which has no direction; a wrong length is a
    :class:`~memo_core.errors.DimensionMismatchError`.
    """
    if hasattr(vector, "tolist") and not isinstance(vector, str | bytes):
        vector = vector.tolist()  # numpy arrays and scalars become plain Python values
    fast = _unit_floats(vector, dims)
    if fast is not None:
        return fast
    if isinstance(vector, str | bytes | bytearray | Mapping) or not isinstance(vector, Sequence):
        raise InvalidInputError(
            f"the {what} must be a sequence of {dims} numbers, not {type(vector).__name__}"
        )
    for value in vector:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise InvalidInputError(
                f"the {what} must hold numbers only, not {type(value).__name__}"
            )
    if len(vector) != dims:
        raise DimensionMismatchError(
            f"the {what} has {len(vector)} dimensions, the base uses {dims}"
        )
    try:
        values = [float(v) for v in vector]
    except OverflowError:  # an int beyond float range
        raise InvalidInputError(f"the {what} holds a number too large for a float") from None
    if not all(math.isfinite(v) for v in values):
        raise InvalidInputError(f"the {what} contains NaN or infinity")
    largest = max((abs(v) for v in values), default=0.0)
    if largest == 0.0:
        raise InvalidInputError(f"the {what} is all zeros: a zero vector has no direction")
    scaled = [v / largest for v in values]  # no overflow or underflow in the norm
    norm = math.sqrt(math.fsum(v * v for v in scaled))
    return [v / norm for v in scaled]
