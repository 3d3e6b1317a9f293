"""Concrete rerankers: Cohere (cloud, with a key) and a local fastembed cross-encoder."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memo_core.errors import ConfigError, MissingDependencyError
from memo_core.ledger import SpendLedger

__all__ = ["CohereReranker", "CrossEncoderReranker"]


class CohereReranker:
    """Cohere's rerank endpoint through the ``cohere`` SDK; charged to the ledger first."""

    def __init__(
        self,
        api_key: str,
        *,
        model: str = "rerank-v3.5",
        ledger: SpendLedger | None = None,
        client: Any = None,
    ) -> None:
        if not api_key and client is None:
            raise ConfigError("Cohere rerank needs an API key (COHERE_API_KEY)")
        self.name = f"cohere:{model}"
        self.model = model
        self.ledger = ledger
        self._client = client
        self._key = api_key

    def _get_client(self) -> Any:
        if self._client is None:
            try:
                import cohere
            except ImportError as exc:
                raise MissingDependencyError("cohere", "cloud", "Cohere rerank") from exc
            self._client = cohere.ClientV2(api_key=self._key)
        return self._client

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        if self.ledger is not None:
            self.ledger.charge("cohere", "rerank", 1, note=self.model)
        response = self._get_client().rerank(
            model=self.model, query=query, documents=list(texts), top_n=len(texts)
        )
        scores = [0.0] * len(texts)
        for result in response.results:
            scores[int(result.index)] = float(result.relevance_score)
        return scores


class CrossEncoderReranker:
    """A local cross-encoder through fastembed's ``TextCrossEncoder`` (ONNX, no PyTorch).

    ``model_name`` is one of fastembed's cross-encoders, or any name for the model in
    ``model_path``: a folder with ``model.onnx`` (or ``onnx/model.onnx``),
    ``tokenizer.json`` and a ``tokenizer_config.json`` naming ``model_max_length``,
    registered with fastembed under that name and loaded from the folder, so nothing
    is downloaded. No PyPI package ships a permissively licensed cross-encoder
    (``bench/README.md``); memo ships its own, the answer gate's passage reader
    (``memo_core/data/answer-reader``, :mod:`memo_core.answer.reader`), trained to tell
    whether a sentence answers a question rather than to rank passages.
    """

    def __init__(self, model_name: str, *, model_path: str | Path | None = None) -> None:
        self.name = f"cross-encoder:{model_name}"
        self.model_name = model_name
        self.model_path = model_path
        self._model: Any = None

    def _load(self) -> Any:
        try:
            from fastembed.common.model_description import ModelSource
            from fastembed.rerank.cross_encoder import TextCrossEncoder
        except ImportError as exc:
            raise MissingDependencyError("fastembed", "local", "local rerank") from exc
        if self.model_path is None:
            return TextCrossEncoder(self.model_name)
        folder = Path(self.model_path)
        model_file = "model.onnx" if (folder / "model.onnx").exists() else "onnx/model.onnx"
        # ValueError: a name fastembed knows (or registered before): its description holds.
        with contextlib.suppress(ValueError):
            TextCrossEncoder.add_custom_model(
                self.model_name, sources=ModelSource(hf=self.model_name), model_file=model_file
            )
        return TextCrossEncoder(self.model_name, specific_model_path=str(folder))

    #: Pairs run through the model together, shortest first. A batch is padded to its
    #: longest pair, so a short sentence read beside a long one costs as much; on two
    #: cores one pair at a time answered a question 15-30% sooner than one batch for all
    #: (``bench/reader_batches.py``), and batches of 4 or 8 gained nothing.
    batch_size = 1

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        if self._model is None:
            self._model = self._load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        scores = [0.0] * len(texts)
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            raw = self._model.rerank(query, [texts[i] for i in batch])
            for i, logit in zip(batch, raw, strict=True):
                # logits -> 0..1 so thresholds mean the same across models
                scores[i] = 1.0 / (1.0 + math.exp(-float(logit)))
        return scores
