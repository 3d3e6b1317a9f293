"""The HNSW libraries behind ``ann_index.AnnVectorIndex``: faiss (preferred) or usearch.

Both keep a graph of cosine neighbours over float16 vectors keyed by chunk rowid,
answer a walk or an exact scan, add and remove vectors, and save to one file. faiss
(MIT) is used when installed, usearch (Apache-2.0) otherwise: with the same graph
parameters at 100k chunks (M = 32, efConstruction 128, ef 256) faiss's walk takes
about 1.1 ms of CPU against usearch's 4.5 for the same recall@10 (0.997 against
exact), and its build a third of the CPU (bench/README.md, issue 21.1). The index's
header names the engine, so a file saved by one is rebuilt, never read, by the other.

faiss's HNSW cannot take a vector out of its graph: a removed chunk is marked in the
rowid table (``-1``) and left out of every answer by a bitmap of the live entries;
the graph keeps it as a waypoint, as usearch does with its own removals.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from memo_core.errors import InvalidInputError

__all__ = ["ENGINES", "Graph", "installed", "new_graph", "pick_engine", "restore_graph"]

#: The engines, preferred first.
ENGINES = ("faiss", "usearch")
_MODULES = {"faiss": "faiss", "usearch": "usearch"}


class Graph(Protocol):
    """A cosine HNSW graph over float16 vectors keyed by chunk rowid."""

    def __len__(self) -> int: ...

    def add(self, keys: Any, vectors: Any) -> None:
        """Add rows (``keys``: int64 array, ``vectors``: float32 matrix)."""

    def remove(self, keys: Sequence[int]) -> None:
        """Take out the listed keys (absent ones are ignored)."""

    def contains(self, key: int) -> bool: ...

    def get(self, keys: Sequence[int]) -> Any:
        """Float32 vectors of keys that ``contains`` (unit length for faiss)."""

    def search(
        self, vector: Any, count: int, ef: int, exact: bool
    ) -> tuple[list[int], list[float]]:
        """The ``count`` nearest keys and their cosine, best first."""

    def save(self, path: Path) -> None: ...

    @property
    def dimensions(self) -> int: ...

    @property
    def memory_usage(self) -> int: ...


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (looked up, not imported)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # an import hook refused it: not usable here
        return False


def pick_engine(wanted: str) -> str | None:
    """``wanted`` ("auto": the first installed of :data:`ENGINES`) if installed, else None."""
    names = ENGINES if wanted == "auto" else (wanted,)
    return next((n for n in names if n in _MODULES and installed(_MODULES[n])), None)


def new_graph(
    engine: str, dims: int, connectivity: int, expansion_add: int, dtype: str = "f16"
) -> Graph:
    """An empty graph; ``dtype`` is the stored precision (faiss: "f16" only)."""
    if engine == "faiss":
        if dtype != "f16":
            raise InvalidInputError(f"the faiss graph stores float16 vectors, not {dtype!r}")
        return _FaissGraph.new(dims, connectivity, expansion_add)
    return _UsearchGraph.new(dims, connectivity, expansion_add, dtype)


def restore_graph(engine: str, path: Path) -> Graph | None:
    if engine == "faiss":
        return _FaissGraph.restore(path)
    return _UsearchGraph.restore(path)


def load_cpp_runtime_first() -> None:
    """Load the system's C++ runtime for the whole process before usearch loads.

    usearch's Linux wheel carries its own static copy of the C++ runtime; loaded first,
    its copy answers for the process and onnxruntime (the local embedder) imported after
    it crashes the interpreter (usearch 2.26, onnxruntime 1.32). With the shared runtime
    loaded globally beforehand both bind to it. Where that library has another name
    (not Linux), onnxruntime itself, when installed, is loaded first instead. faiss's
    wheel links the shared runtime; loading it first does no harm."""
    import ctypes

    try:
        ctypes.CDLL("libstdc++.so.6", mode=ctypes.RTLD_GLOBAL)
    except OSError:
        if importlib.util.find_spec("onnxruntime") is not None:
            import onnxruntime  # noqa: F401


def _faiss() -> Any:
    """The faiss module, untyped: its shipped stubs do not pass mypy."""
    return importlib.import_module("faiss")


class _UsearchGraph:
    def __init__(self, index: Any) -> None:
        import numpy

        self._np: Any = numpy
        self._index = index

    @classmethod
    def new(cls, dims: int, connectivity: int, expansion_add: int, dtype: str) -> _UsearchGraph:
        load_cpp_runtime_first()
        from usearch.index import Index

        return cls(
            Index(
                ndim=dims,
                metric="cos",
                dtype=dtype,
                connectivity=connectivity,
                expansion_add=expansion_add,
            )
        )

    @classmethod
    def restore(cls, path: Path) -> _UsearchGraph | None:
        load_cpp_runtime_first()
        from usearch.index import Index

        index = Index.restore(str(path))
        return None if index is None else cls(index)

    def __len__(self) -> int:
        return len(self._index)

    @property
    def dimensions(self) -> int:
        return int(self._index.ndim)

    @property
    def memory_usage(self) -> int:
        return int(self._index.memory_usage)

    def add(self, keys: Any, vectors: Any) -> None:
        self._index.add(self._np.asarray(keys, dtype=self._np.uint64), vectors)

    def remove(self, keys: Sequence[int]) -> None:
        for key in keys:
            if self._index.contains(key):
                self._index.remove(key)

    def contains(self, key: int) -> bool:
        return bool(self._index.contains(key))

    def get(self, keys: Sequence[int]) -> Any:
        np = self._np
        found = self._index.get(np.asarray(keys, dtype=np.uint64), dtype=np.float32)
        return np.asarray(found, dtype=np.float32)

    def search(
        self, vector: Any, count: int, ef: int, exact: bool
    ) -> tuple[list[int], list[float]]:
        self._index.expansion_search = ef
        found = self._index.search(vector, count, threads=1, exact=exact)
        keys, distances = found.keys.tolist(), found.distances.tolist()  # not per element
        return keys, [1.0 - d for d in distances]

    def save(self, path: Path) -> None:
        self._index.save(str(path))


class _FaissGraph:
    """faiss ``IndexHNSWSQ`` (float16 codes, inner product over unit vectors = cosine)
    and its own rowid table: faiss numbers rows 0, 1, 2, ... in the order added."""

    def __init__(self, index: Any, labels: Any) -> None:
        faiss = _faiss()
        import numpy

        self._faiss: Any = faiss
        self._np: Any = numpy
        self._index = index
        self._storage: Any = faiss.downcast_index(index.storage)
        n = len(labels)
        self._labels: Any = numpy.empty(max(1024, n), dtype=numpy.int64)
        self._labels[:n] = labels
        self._size = n
        self._removed = int((self._labels[:n] < 0).sum())
        self._sorted: tuple[Any, Any] | None = None  # (sorted rowids, their faiss rows)
        self._selector: tuple[Any, Any] | None = None  # (live bitmap, its IDSelector)

    @classmethod
    def new(cls, dims: int, connectivity: int, expansion_add: int) -> _FaissGraph:
        faiss = _faiss()
        import numpy

        index = faiss.IndexHNSWSQ(
            dims, faiss.ScalarQuantizer.QT_fp16, connectivity, faiss.METRIC_INNER_PRODUCT
        )
        index.hnsw.efConstruction = expansion_add
        return cls(index, numpy.empty(0, dtype=numpy.int64))

    @classmethod
    def restore(cls, path: Path) -> _FaissGraph | None:
        """The graph ``save`` wrote: faiss's own file, then the rowid table and its length."""
        faiss = _faiss()
        import numpy

        with open(path, "rb") as data:
            data.seek(-8, os.SEEK_END)
            count = int.from_bytes(data.read(8), "little")
            end = data.tell() - 8
            if count < 0 or 8 * count > end:
                return None
            data.seek(end - 8 * count)
            labels = numpy.fromfile(data, dtype="<i8", count=count)
        index = faiss.read_index(str(path))  # reads its own part, from the start
        if not isinstance(index, faiss.IndexHNSWSQ) or index.ntotal != count:
            return None
        return cls(index, labels)

    def __len__(self) -> int:
        return self._size - self._removed

    @property
    def dimensions(self) -> int:
        return int(self._index.d)

    @property
    def memory_usage(self) -> int:
        codes = self._storage.sa_code_size() * self._index.ntotal
        return int(codes + 4 * self._index.hnsw.neighbors.size() + 8 * len(self._labels))

    def _unit(self, vectors: Any) -> Any:
        np = self._np
        matrix = np.array(vectors, dtype=np.float32, ndmin=2)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms > 0, norms, 1.0)

    def add(self, keys: Any, vectors: Any) -> None:
        np = self._np
        keys = np.asarray(keys, dtype=np.int64).reshape(-1)
        if not len(keys):
            return
        self._index.add(self._unit(vectors))
        end = self._size + len(keys)
        if end > len(self._labels):
            grown = np.empty(max(end, 2 * len(self._labels)), dtype=np.int64)
            grown[: self._size] = self._labels[: self._size]
            self._labels = grown
        self._labels[self._size : end] = keys
        self._size = end
        self._sorted = None
        if self._removed:
            self._selector = None

    def _rows(self, keys: Sequence[int]) -> Any:
        """faiss rows of ``keys`` (-1 where absent)."""
        np = self._np
        if self._sorted is None:
            live = self._labels[: self._size]
            order = np.argsort(live, kind="stable")
            self._sorted = (live[order], order)
        ordered, order = self._sorted
        wanted = np.asarray(keys, dtype=np.int64).reshape(-1)
        if not len(ordered):
            return np.full(len(wanted), -1, dtype=np.int64)
        # The last entry of a key is its live one: an updated chunk was added again.
        at = np.searchsorted(ordered, wanted, side="right") - 1
        at = np.clip(at, 0, len(ordered) - 1)
        rows = order[at]
        return np.where(ordered[at] == wanted, rows, -1)

    def remove(self, keys: Sequence[int]) -> None:
        rows = self._rows(keys)
        rows = rows[rows >= 0]
        if len(rows):
            self._labels[rows] = -1
            self._removed += len(rows)
            self._sorted = self._selector = None

    def contains(self, key: int) -> bool:
        return bool(self._rows([key])[0] >= 0)

    def get(self, keys: Sequence[int]) -> Any:
        rows = self._rows(keys)
        return self._index.reconstruct_batch(rows[rows >= 0])

    def _params(self, ef: int | None) -> Any:
        faiss = self._faiss
        selector = None
        if self._removed:
            if self._selector is None:
                live = self._labels[: self._size] >= 0
                bits = self._np.packbits(live, bitorder="little")
                self._selector = (bits, faiss.IDSelectorBitmap(self._size, faiss.swig_ptr(bits)))
            selector = self._selector[1]
        if ef is None:
            return faiss.SearchParameters(sel=selector)
        return faiss.SearchParametersHNSW(efSearch=ef, sel=selector)

    def search(
        self, vector: Any, count: int, ef: int, exact: bool
    ) -> tuple[list[int], list[float]]:
        query = self._unit(vector)
        if exact:
            sims, rows = self._storage.search(query, count, params=self._params(None))
        else:
            sims, rows = self._index.search(query, count, params=self._params(ef))
        found = rows[0] >= 0
        keys = self._labels[rows[0][found]]
        return keys.tolist(), sims[0][found].tolist()

    def save(self, path: Path) -> None:
        # faiss writes its index to the file itself (no copy of it in RAM); the rowid
        # table and its length follow it.
        self._faiss.write_index(self._index, str(path))
        with open(path, "ab") as data:
            data.write(self._labels[: self._size].astype("<i8").tobytes())
            data.write(self._size.to_bytes(8, "little"))
