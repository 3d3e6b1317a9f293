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
(``memo_core/data/answer-reader``: an ONNX graph with int8 weights ending in the head,
the embedder's tokenizer), so it needs no download. It is an ordinary cross-encoder
folder: it runs through memo's local reranker
(:class:`~memo_core.rerank.providers.CrossEncoderReranker`, fastembed's
``TextCrossEncoder``), which the ``local`` extra brings.

The gate reads its best probability as one feature (``reader`` in
:data:`~memo_core.answer.gate.FEATURES`), weighed by the calibration like the others,
and the extractive picker weighs each candidate's (``PickWeights.reader``). The two
read many of the same sentences for one question: probabilities are kept in a
bounded cache, by question and sentence, so a sentence is read once.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from memo_core.rerank.providers import CrossEncoderReranker

__all__ = ["DEFAULT_READER", "PassageReader"]

#: The reader shipped with the package.
DEFAULT_READER = Path(__file__).resolve().parents[1] / "data" / "answer-reader"


class PassageReader:
    """How likely each sentence answers a question, read together by a cross-encoder.

    ``folder`` is a cross-encoder folder (``model.onnx`` whose output is one logit per
    pair, ``tokenizer.json``, ``tokenizer_config.json``); the model loads on first use.
    The last ``cache_size`` probabilities are kept, by question and sentence.
    """

    def __init__(self, folder: str | Path = DEFAULT_READER, *, cache_size: int = 4096) -> None:
        self.folder = Path(folder)
        self.cache_size = cache_size
        self._encoder = CrossEncoderReranker("memo/answer-reader", model_path=self.folder)
        self._read: OrderedDict[tuple[str, str], float] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    @functools.cache
    def shipped() -> PassageReader:
        """The reader in the package (one per process)."""
        return PassageReader()

    def probabilities(self, question: str, sentences: Sequence[str]) -> list[float]:
        """For each of ``sentences``, the probability that it answers ``question``."""
        if not sentences:
            return []
        unique = list(dict.fromkeys(sentences))
        with self._lock:
            known = {s: self._read[(question, s)] for s in unique if (question, s) in self._read}
        todo = [s for s in unique if s not in known]
        if todo:
            known.update(zip(todo, self._encoder.rerank(question, todo), strict=True))
        with self._lock:
            for sentence, probability in known.items():
                self._read[(question, sentence)] = probability
                self._read.move_to_end((question, sentence))
            while len(self._read) > self.cache_size:
                self._read.popitem(last=False)
        return [known[s] for s in sentences]
