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

A sentence seldom names what it is about: "The default is 30 seconds." under the
heading of one option, "Author: ..." in the record of one package. Read alone, it
answers a question about a neighbouring option or package as well as one about its
own. So the reader reads it after its context (:func:`reader_text`): its document's
title, the last heading above it and, for a record's field, the record's first field
(:func:`~memo_core.answer.windows.sentence_contexts`), as it was trained to
(``reader.json``'s ``context``; a reader trained on bare sentences reads them bare).

The gate reads its best probability as one feature (``reader`` in
:data:`~memo_core.answer.gate.FEATURES`), weighed by the calibration like the others,
and the extractive picker weighs each candidate's (``PickWeights.reader``). The two
read many of the same sentences for one question: probabilities are kept in a
bounded cache, by question and sentence, so a sentence is read once.
"""

from __future__ import annotations

import functools
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from memo_core.rerank.providers import CrossEncoderReranker

__all__ = ["DEFAULT_READER", "PassageReader", "reader_text"]

#: The reader shipped with the package.
DEFAULT_READER = Path(__file__).resolve().parents[1] / "data" / "answer-reader"


def reader_text(sentence: str, context: str = "") -> str:
    """What the reader reads of a sentence: what it is about (its document's title, its
    heading, its record: :func:`~memo_core.answer.windows.sentence_context`), then the
    sentence. The training reads it the same way."""
    return f"{context} — {sentence}" if context else sentence


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

    @functools.cached_property
    def reads_context(self) -> bool:
        """Whether the model was trained on sentences after their context
        (``reader.json``'s ``context``, written by ``bench/train_reader.py``)."""
        about = self.folder / "reader.json"
        return about.is_file() and bool(json.loads(about.read_text("utf-8")).get("context"))

    def probabilities(
        self, question: str, sentences: Sequence[str], contexts: Sequence[str] | None = None
    ) -> list[float]:
        """For each of ``sentences``, the probability that it answers ``question``;
        ``contexts`` (one per sentence: what it is about, ``windows.sentence_contexts``)
        are read before them when the model was trained so (:attr:`reads_context`)."""
        if not sentences:
            return []
        if contexts is not None and self.reads_context:
            sentences = [reader_text(s, c) for s, c in zip(sentences, contexts, strict=True)]
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
