"""The learned keep/drop decision of capture: is this user sentence worth remembering?

Rules (:mod:`~memo_core.memory.extract`) name what a sentence is (a health fact, a plan,
a preference) but miss what they have no pattern for ("ibuprofen upsets my stomach
badly, so I avoid it") and keep what only looks like a commitment ("let me sleep on
it"). A small logistic regression decides instead, over two kinds of features:

* the sentence's static embedding from the recall gate's Model2Vec model (the same
  model, loaded once; no PyTorch), L2-normalised;
* cue features, English and Russian: each capture signal of the lexicon, a first
  person or possessive, a Russian verb in the first person (the pronoun dropped:
  "Пью варфарин"), a relative or pet leading the sentence, a value (date, time, amount, name, place), a polarity, a
  question, a request, a hypothetical, a quote of the assistant, length.

The weights ship with the package (``data/capture_classifier.json``), trained by
``python bench/train_capture.py`` on ``bench/data/memory/capture_labels.jsonl`` (which
reports precision and recall on the held-out templates). Two weight sets ship: one
with the embedding (when the gate model is loaded and has the trained dimension), one
with cues only (the lexical gate, or another model). numpy is the only run-time need.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from memo_core.errors import InvalidInputError
from memo_core.memory import lexicon as lx
from memo_core.memory.extract import clean_sentence, detect_subject, speaks_of_self
from memo_core.memory.morph import first_person_verb
from memo_core.search.text import tokenize
from memo_core.values import extract_values, polarity

__all__ = ["CUE_NAMES", "CaptureClassifier", "cue_features", "load_capture_classifier"]

_HYPOTHETICAL = lx.HYPOTHETICAL
_REQUEST = lx.REQUEST
_ASSISTANT_QUOTE = re.compile(
    r"\b(?:as you (?:said|mentioned|suggested)|you (?:said|told me|suggested|mentioned)|"
    r"according to you|your (?:suggestion|advice))\b|"
    r"как ты (?:сказал|говорил|советовал)\w*|ты (?:сказал|говорил|советовал|предложил)\w*|"
    r"по твоим словам",
    re.IGNORECASE,
)
_NONCOMMITTAL = lx.NONCOMMITTAL
_OTHERS = re.compile(
    r"\b(?:someone|somebody|a (?:woman|man|guy|girl|lady|stranger|person)|people say|they say|"
    r"i read|i heard|apparently|celebrit\w*)\b|"
    r"кто-то|какая-то|какой-то|говорят|читал\w*,? что|слышал\w*,? что|по новостям",
    re.IGNORECASE,
)

#: Relations a bare mention of means the user's own ("Мама живёт в Сочи", "Dad drives").
_KIN_OR_PET = lx.FAMILY_RELATIONS | {"dog", "cat", "pet"}


def _lead_relation(text: str) -> str:
    """The relation the sentence leads with ("mother" for "Мама, ...", "" for none)."""
    subject, _ = detect_subject(clean_sentence(text), None)
    return subject.relation if subject is not None else ""


#: Names of the cue features, in order (the weights file records them too).
CUE_NAMES: tuple[str, ...] = (
    *(f"signal:{s.name}" for s in lx.SIGNALS),
    "self",
    "self_verb",
    "kin",
    "value",
    "value:date",
    "value:number",
    "value:name",
    "polarity",
    "question",
    "request",
    "hypothetical",
    "assistant_quote",
    "noncommittal",
    "others",
    "cyrillic",
    "log_tokens",
    "bias_one",
)


def cue_features(text: str) -> list[float]:
    """The cue features of one sentence (see :data:`CUE_NAMES`)."""
    lowered = text.lower()
    values = extract_values(text)
    kinds = {v.kind for v in values}
    out = [1.0 if s.pattern.search(lowered) else 0.0 for s in lx.SIGNALS]
    out += [
        1.0 if speaks_of_self(text) else 0.0,
        1.0 if first_person_verb(text) else 0.0,
        1.0 if _lead_relation(text) in _KIN_OR_PET else 0.0,
        1.0 if values else 0.0,
        1.0 if kinds & {"date", "time"} else 0.0,
        1.0 if "number" in kinds else 0.0,
        1.0 if kinds & {"name", "place"} else 0.0,
        float(polarity(text) != 0),
        1.0 if "?" in text else 0.0,
        1.0 if _REQUEST.search(text) else 0.0,
        1.0 if _HYPOTHETICAL.search(text) else 0.0,
        1.0 if _ASSISTANT_QUOTE.search(text) else 0.0,
        1.0 if _NONCOMMITTAL.search(text) else 0.0,
        1.0 if _OTHERS.search(text) else 0.0,
        1.0 if re.search(r"[а-яё]", lowered) else 0.0,
        math.log1p(len(tokenize(text))) / 4.0,
        1.0,
    ]
    return out


Encoder = Callable[[Sequence[str]], Any]


@dataclass(frozen=True)
class _Weights:
    weights: tuple[float, ...]
    threshold: float
    dimensions: int  # embedding dimensions (0: cues only)


class CaptureClassifier:
    """``probability(sentence)`` that a user sentence holds a durable fact about the user.

    ``encoder`` embeds sentences (the gate's Model2Vec model); without one, or with a
    model of another dimension than the weights were trained on, cues alone decide.
    """

    def __init__(self, data: dict[str, Any], encoder: Encoder | None = None) -> None:
        if list(data.get("cues", [])) != list(CUE_NAMES):
            raise InvalidInputError("the capture weights were trained on other cue features")
        self._sets = {
            name: _Weights(tuple(map(float, w["weights"])), float(w["threshold"]), int(w["dims"]))
            for name, w in data["models"].items()
        }
        self.encoder = encoder
        self.trained_on = str(data.get("embedding_model", ""))

    def _choose(self, dims: int) -> _Weights:
        full = self._sets.get("embedding")
        if full is not None and full.dimensions == dims:
            return full
        return self._sets["cues"]

    def _score(self, sentences: Sequence[str]) -> tuple[list[float], _Weights]:
        import numpy as np

        rows = np.asarray([cue_features(s) for s in sentences], dtype=np.float64)
        chosen = self._sets["cues"]
        if self.encoder is not None:
            vectors = np.asarray(self.encoder(list(sentences)), dtype=np.float64)
            chosen = self._choose(int(vectors.shape[1]))
            if chosen.dimensions:
                norms = np.linalg.norm(vectors, axis=1, keepdims=True)
                norms[norms == 0] = 1.0
                rows = np.hstack([vectors / norms, rows])
        z = rows @ np.asarray(chosen.weights)
        return [float(p) for p in 1.0 / (1.0 + np.exp(-z))], chosen

    def probabilities(self, sentences: Sequence[str]) -> list[float]:
        """Keep probabilities of ``sentences`` (one encoder call for all of them)."""
        return self._score(sentences)[0] if sentences else []

    def keeps(self, sentences: Sequence[str]) -> list[tuple[float, bool]]:
        """(probability, kept) per sentence, at the threshold of the weight set used."""
        if not sentences:
            return []
        probs, chosen = self._score(sentences)
        return [(p, p >= chosen.threshold) for p in probs]


def load_capture_classifier(encoder: Encoder | None = None) -> CaptureClassifier:
    """The classifier shipped with memo (``memo_core/memory/data/capture_classifier.json``)."""
    text = (
        resources.files("memo_core.memory")
        .joinpath("data/capture_classifier.json")
        .read_text(encoding="utf-8")
    )
    return CaptureClassifier(json.loads(text), encoder)
