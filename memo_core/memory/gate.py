"""The recall gate: is this message worth a memory search, or is it small talk?

A missed recall is worse than an extra one, so the gate **skips only when small
talk clearly wins**:

* **Lexical rule** (always on, and the whole gate without a model): a short
  message made only of acknowledgements, greetings, good-nights, thanks, laughter
  and fillers (``"ok cool"``, ``"спасибо, понял"``, ``"Доброй ночи, до завтра"``),
  or of emoji only (``"👍"``), is small talk.
* **Model2Vec** (when a model is loaded): the message is embedded with a static
  model and compared with a small labelled set of small-talk and memory-question
  examples in English and Russian shipped in ``memo_core/memory/data/``. The gate
  averages the cosine of the ``neighbours`` nearest examples of each class and
  skips when ``small_talk - memory >= margin`` *and* the message has at most
  ``max_content_words`` meaningful words, so a long request never looks like
  small talk to a model that has not seen its language.

The model ships inside the package (``memo_core/data/gate-model``: a 256-dimension
Model2Vec distillation of all-MiniLM-L6-v2, 15 MB; a gate decision costs about
0.1 ms, against ~37 ms for the MiniLM ONNX embedder on the same 2 busy cores), so
nothing is downloaded; another Model2Vec model (a multilingual ``potion`` one) is
chosen through :func:`~memo_core.memory.config.resolve_gate_model`.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from memo_core.errors import ConfigError, MissingDependencyError, ProviderError
from memo_core.memory import lexicon as lx
from memo_core.memory.config import MemoryConfig, resolve_gate_model
from memo_core.memory.types import GateDecision
from memo_core.search.text import STOPWORDS, tokenize

__all__ = ["GateExample", "RecallGate", "load_gate_examples"]

log = logging.getLogger(__name__)

#: A message longer than this (in meaningful words) is never skipped.
MAX_CONTENT_WORDS = 2
#: A message with more tokens than this is never lexical small talk.
MAX_SMALL_TALK_TOKENS = 8
#: A message of pleasantries only (greetings, thanks, good-nights) up to this length.
MAX_PLEASANTRY_TOKENS = 12


_ASKS_ABOUT_ME = re.compile(
    r"\b(?:my|mine|our|i|me)\b|(?<!\w)(?:мой|моя|моё|мое|мои|моего|моей|моему|моих|мою|наш\w*|"
    r"у меня|у нас|мне|я)(?!\w)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class GateExample:
    text: str
    label: str  # "small_talk" | "memory"
    lang: str = "en"


class _Encoder(Protocol):
    def encode(self, sentences: list[str]) -> Any: ...


def load_gate_examples() -> list[GateExample]:
    """The labelled examples shipped with memo (``data/gate_examples.jsonl``)."""
    text = (
        resources.files("memo_core.memory")
        .joinpath("data/gate_examples.jsonl")
        .read_text(encoding="utf-8")
    )
    out: list[GateExample] = []
    for line in text.splitlines():
        if line.strip():
            row = json.loads(line)
            out.append(GateExample(row["text"], row["label"], row.get("lang", "en")))
    return out


def _load_static_model(path: str | Path) -> _Encoder:
    try:
        from model2vec import StaticModel
    except ImportError as exc:
        raise MissingDependencyError("model2vec", "local", "the recall gate") from exc
    # A local folder has no model card; the hub library warns about it on every load.
    card_log = logging.getLogger("huggingface_hub.repocard")
    level = card_log.level
    card_log.setLevel(logging.ERROR)
    try:
        model: _Encoder = StaticModel.from_pretrained(str(path))
    except Exception as exc:
        raise ProviderError(f"could not load the gate model {str(path)!r}: {exc}") from exc
    finally:
        card_log.setLevel(level)
    return model


class RecallGate:
    """Decides ``"recall"`` or ``"skip"`` for an incoming message."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        model: _Encoder | None = None,
        examples: Sequence[GateExample] | None = None,
        margin: float | None = None,
        neighbours: int | None = None,
    ) -> None:
        defaults = MemoryConfig()
        self.margin = defaults.gate_margin if margin is None else float(margin)
        self.neighbours = max(1, defaults.gate_neighbours if neighbours is None else neighbours)
        self.examples = list(examples) if examples is not None else load_gate_examples()
        self.model_path = str(model_path) if model_path is not None else None
        self._model: _Encoder | None = model
        if self._model is None and model_path is not None:
            self._model = _load_static_model(model_path)
        self._matrix: Any = None
        self._labels: list[str] = []
        if self._model is not None:
            self._index_examples()

    @classmethod
    def default(
        cls, model: str | Path | None = None, *, config: MemoryConfig | None = None
    ) -> RecallGate:
        """A Model2Vec gate from :func:`resolve_gate_model`, or the lexical gate if it fails."""
        cfg = config or MemoryConfig()
        source = resolve_gate_model(model)
        try:
            return cls(source, margin=cfg.gate_margin, neighbours=cfg.gate_neighbours)
        except (MissingDependencyError, ProviderError) as exc:
            log.warning("recall gate falls back to the lexical rule: %s", exc)
            return cls(margin=cfg.gate_margin, neighbours=cfg.gate_neighbours)

    @property
    def uses_model(self) -> bool:
        return self._model is not None

    def encode(self, sentences: Sequence[str]) -> Any:
        """Static embeddings of ``sentences`` from the gate's model (None without a model);
        capture's classifier reuses the model instead of loading another."""
        if self._model is None:
            return None
        return self._model.encode(list(sentences))

    def _index_examples(self) -> None:
        import numpy as np

        if self._model is None:  # no model: the lexical rule alone, nothing to index
            return
        vectors = np.asarray(self._model.encode([e.text for e in self.examples]), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self._matrix = vectors / norms
        self._labels = [e.label for e in self.examples]

    def _model_scores(self, text: str) -> tuple[float, float]:
        import numpy as np

        if self._model is None:
            raise ConfigError("the recall gate has no model to score with")
        vector = np.asarray(self._model.encode([text]), dtype=np.float32)[0]
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:
            return 0.0, 0.0
        sims = self._matrix @ (vector / norm)
        scores: dict[str, float] = {}
        for label in ("small_talk", "memory"):
            mask = np.array([lab == label for lab in self._labels])
            top = np.sort(sims[mask])[-self.neighbours :]
            scores[label] = float(top.mean()) if top.size else 0.0
        return scores["small_talk"], scores["memory"]

    def decide(self, message: str) -> GateDecision:
        """``recall`` unless small talk clearly wins."""
        tokens = tokenize(message)
        fillers = sum(1 for t in tokens if t in lx.FILLER_WORDS)
        content = [t for t in tokens if t not in lx.FILLER_WORDS and t not in STOPWORDS]
        lexical_small = fillers / len(tokens) if tokens else 1.0
        pleasantry = len(tokens) <= MAX_PLEASANTRY_TOKENS and all(
            t in lx.PLEASANTRY_WORDS or t in lx.FILLER_WORDS for t in tokens
        )
        if (
            not tokens
            or pleasantry
            or (not content and len(tokens) <= MAX_SMALL_TALK_TOKENS and lexical_small >= 0.5)
        ):
            return GateDecision("skip", 1.0, small_talk=1.0, memory=0.0, method="lexical")
        if self._model is None:
            return GateDecision(
                "recall",
                round(lexical_small - 1.0, 4),
                small_talk=lexical_small,
                memory=1.0,
                method="lexical",
            )
        if "?" in message and _ASKS_ABOUT_ME.search(message):
            # "Thanks! And how much is my parking permit?": a question about the user's
            # own things is a memory question, however chatty the rest of it is.
            return GateDecision("recall", -1.0, small_talk=0.0, memory=1.0, method="lexical")
        small, memory = self._model_scores(message)
        margin = small - memory
        skip = margin >= self.margin and len(content) <= MAX_CONTENT_WORDS
        return GateDecision(
            "skip" if skip else "recall",
            round(margin, 4),
            small_talk=round(small, 4),
            memory=round(memory, 4),
            method="model2vec",
        )
