"""The passage reader: a small model that reads a question *with* a sentence.

The gate's other features compare the question and a passage from the outside
(terms held, a similarity of two separately embedded texts); a question put in
other words than its passage's, or one about a neighbouring thing, looks the same
to them. The reader is MiniLM (the default embedder's architecture, 6 layers)
fine-tuned as a cross-encoder: the question and the sentence go through the model
together (``[CLS] question [SEP] sentence [SEP]``), and a linear head on the mean of
its output says how likely the sentence answers the question. It was trained by
``bench/train_reader.py`` on the train halves of the team's dev sets only (question,
and the centre sentences of the gate's best windows), and ships inside the package
(``memo_core/data/answer-reader``: an ONNX graph with int8 weights, its tokenizer
and the head), so it needs no download; ONNX Runtime and ``tokenizers`` come with
the ``local`` extra (fastembed).

The gate reads its best probability as one feature (``reader`` in
:data:`~memo_core.answer.gate.FEATURES`), weighed by the calibration like the others.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memo_core.errors import MissingDependencyError

__all__ = ["DEFAULT_READER", "PassageReader"]

#: The reader shipped with the package.
DEFAULT_READER = Path(__file__).resolve().parents[1] / "data" / "answer-reader"


class PassageReader:
    """How likely each sentence answers a question, read together by a cross-encoder.

    ``folder`` holds ``model.onnx`` (inputs ``input_ids``, ``attention_mask``,
    ``token_type_ids``; output the last hidden state), ``tokenizer.json`` and
    ``reader.json`` (the head: ``weights``, ``bias``, ``scale``, ``max_length``).
    The model loads on first use; one reader is safe to share between threads.
    """

    def __init__(self, folder: str | Path = DEFAULT_READER, *, threads: int | None = None) -> None:
        self.folder = Path(folder)
        self._threads = threads
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None
        head = json.loads((self.folder / "reader.json").read_text("utf-8"))
        self.max_length = int(head["max_length"])
        self._head: tuple[list[float], float, float] = (
            [float(w) for w in head["weights"]],
            float(head["scale"]),
            float(head["bias"]),
        )

    @staticmethod
    @functools.cache
    def shipped() -> PassageReader:
        """The reader in the package (one per process)."""
        return PassageReader()

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._loaded is None:
                try:
                    import onnxruntime as ort
                    from tokenizers import Tokenizer
                except ImportError as exc:  # pragma: no cover - the local extra brings both
                    raise MissingDependencyError(
                        "onnxruntime and tokenizers", "local", "the passage reader"
                    ) from exc
                tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
                tokenizer.no_padding()
                tokenizer.enable_truncation(self.max_length, strategy="only_second")
                options = ort.SessionOptions()
                if self._threads:
                    options.intra_op_num_threads = self._threads
                session = ort.InferenceSession(
                    str(self.folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
                )
                self._loaded = (session, tokenizer)
            return self._loaded

    def probabilities(self, question: str, sentences: Sequence[str]) -> list[float]:
        """For each of ``sentences``, the probability that it answers ``question``."""
        if not sentences:
            return []
        import numpy as np  # with the local extra; memo_core imports without it

        session, tokenizer = self._load()
        encoded = tokenizer.encode_batch([(question, s) for s in sentences])
        width = max(len(e.ids) for e in encoded)
        ids = np.zeros((len(encoded), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, e in enumerate(encoded):
            n = len(e.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = e.ids, e.attention_mask, e.type_ids
        (hidden,) = session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        )
        weights, scale, bias = self._head
        kept = mask[..., None].astype(np.float32)
        pooled = (hidden * kept).sum(axis=1) / kept.sum(axis=1)
        logits = pooled @ np.asarray(weights, dtype=np.float32) * scale + bias
        return [float(p) for p in 1.0 / (1.0 + np.exp(-logits))]
