"""The answer engine's values: quote checks, citations, answers and refusals.

All are frozen dataclasses that round-trip through JSON (``to_dict`` /
``from_dict``). A :class:`Refusal` is a value, not an exception: "not in the
base" is a normal outcome. ``Answer.refused`` is ``False`` and
``Refusal.refused`` is ``True`` so callers can branch without ``isinstance``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from memo_core.errors import InvalidInputError

__all__ = [
    "Answer",
    "AnswerResult",
    "Citation",
    "Claim",
    "GateDecision",
    "MatchMethod",
    "QuoteCheck",
    "Refusal",
    "RelatedPassage",
    "result_from_dict",
]

#: How a quote was located in its source.
MatchMethod = Literal["exact", "normalized", "fuzzy"]
_METHODS: frozenset[str] = frozenset({"exact", "normalized", "fuzzy"})


def _method(value: object) -> MatchMethod | None:
    if value is None:
        return None
    if value not in _METHODS:
        raise InvalidInputError(f"unknown match method: {value!r}")
    return cast(MatchMethod, value)


def _opt_int(value: object) -> int | None:
    return None if value is None else int(cast(int, value))


@dataclass(frozen=True)
class QuoteCheck:
    """The result of checking one quote against one source text.

    ``start``/``end`` index the *original* source (``source[start:end]`` is the
    matched text); ``similarity`` is 1.0 for exact and normalized matches, the
    character similarity of the aligned window for fuzzy ones, and the best
    similarity seen when the quote failed. ``reason`` says why it failed.
    """

    verified: bool
    method: MatchMethod | None = None
    start: int | None = None
    end: int | None = None
    similarity: float = 0.0
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "verified": self.verified,
            "method": self.method,
            "start": self.start,
            "end": self.end,
            "similarity": self.similarity,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QuoteCheck:
        return cls(
            verified=bool(data["verified"]),
            method=_method(data.get("method")),
            start=_opt_int(data.get("start")),
            end=_opt_int(data.get("end")),
            similarity=float(data.get("similarity", 0.0)),
            reason=data.get("reason"),
        )


@dataclass(frozen=True)
class Citation:
    """A verified quote and everything needed to show where it comes from.

    ``start``/``end`` are the quote's span relative to the start of its chunk, which
    begins at ``chunk_start`` in its document, so :attr:`document_start` and
    :attr:`document_end` locate it in the stored document text. A quote is a whole
    sentence of the document also where the chunk cut it (``answer/passages.py``),
    so the span may reach past the chunk's edges (``start < 0``). ``locator``
    holds what a person needs to find it (``page``, ``heading``, ``timecode``...).
    ``sentence`` is the whole source sentence that holds the quote: what a person
    should read, so a quote cut short cannot hide what follows it.
    """

    quote: str
    chunk_id: str
    document_id: str
    source: str
    start: int
    end: int
    title: str = ""
    locator: dict[str, Any] = field(default_factory=dict, hash=False)
    chunk_start: int = 0
    method: MatchMethod = "exact"
    similarity: float = 1.0
    sentence: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "locator", dict(self.locator))
        if not self.sentence:
            object.__setattr__(self, "sentence", self.quote)
        _method(self.method)

    @property
    def document_start(self) -> int:
        return self.chunk_start + self.start

    @property
    def document_end(self) -> int:
        return self.chunk_start + self.end

    @property
    def page(self) -> Any:
        """The page number from the locator, if the source has pages."""
        return self.locator.get("page")

    @property
    def is_memory(self) -> bool:
        """A quote from a remembered fact (``source="memory:<fact id>"``), not a document."""
        return self.source.startswith("memory:")

    def to_dict(self) -> dict[str, Any]:
        return {
            "quote": self.quote,
            "chunk_id": self.chunk_id,
            "document_id": self.document_id,
            "source": self.source,
            "title": self.title,
            "locator": dict(self.locator),
            "page": self.page,
            "start": self.start,
            "end": self.end,
            "chunk_start": self.chunk_start,
            "method": self.method,
            "similarity": self.similarity,
            "sentence": self.sentence,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Citation:
        method = _method(data.get("method", "exact"))
        return cls(
            quote=str(data["quote"]),
            chunk_id=str(data["chunk_id"]),
            document_id=str(data["document_id"]),
            source=str(data.get("source", "")),
            start=int(data["start"]),
            end=int(data["end"]),
            title=str(data.get("title", "")),
            locator=dict(data.get("locator") or {}),
            chunk_start=int(data.get("chunk_start", 0)),
            method=method or "exact",
            similarity=float(data.get("similarity", 1.0)),
            sentence=str(data.get("sentence") or ""),
        )


@dataclass(frozen=True)
class Claim:
    """One statement of an answer and the verified citations it rests on."""

    text: str
    citations: tuple[Citation, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "citations", tuple(self.citations))

    @property
    def memory_only(self) -> bool:
        """The claim rests on remembered facts only, no document quote."""
        return bool(self.citations) and all(c.is_memory for c in self.citations)

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "citations": [c.to_dict() for c in self.citations],
            "memory_only": self.memory_only,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Claim:
        return cls(
            text=str(data["text"]),
            citations=tuple(Citation.from_dict(c) for c in data.get("citations", ())),
        )


@dataclass(frozen=True)
class Answer:
    """An answer whose every claim carries at least one verified citation.

    ``unsupported`` lists the parts of the question that found no support, so
    a partial answer says what it leaves out. ``citations`` are document quotes
    only; quotes from remembered facts given as evidence are in
    ``memory_citations`` (markers ``[m1]``...).
    """

    text: str
    citations: tuple[Citation, ...]
    gate_score: float
    claims: tuple[Claim, ...] = ()
    unsupported: tuple[str, ...] = ()
    memory_citations: tuple[Citation, ...] = ()

    def __init__(
        self,
        text: str,
        citations: Sequence[Citation],
        gate_score: float,
        claims: Sequence[Claim] = (),
        unsupported: Sequence[str] = (),
        memory_citations: Sequence[Citation] = (),
    ) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "citations", tuple(citations))
        object.__setattr__(self, "gate_score", float(gate_score))
        object.__setattr__(self, "claims", tuple(claims))
        object.__setattr__(self, "unsupported", tuple(unsupported))
        object.__setattr__(self, "memory_citations", tuple(memory_citations))

    @property
    def refused(self) -> bool:
        return False

    def to_dict(self) -> dict[str, Any]:
        return {
            "refused": False,
            "reason": None,
            "answer": self.text,
            "citations": [c.to_dict() for c in self.citations],
            "claims": [c.to_dict() for c in self.claims],
            "unsupported": list(self.unsupported),
            "gate_score": self.gate_score,
            "memory_citations": [c.to_dict() for c in self.memory_citations],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Answer:
        if data.get("refused"):
            raise InvalidInputError("this dict describes a Refusal, not an Answer")
        return cls(
            text=str(data["answer"]),
            citations=[Citation.from_dict(c) for c in data.get("citations", ())],
            gate_score=float(data["gate_score"]),
            claims=[Claim.from_dict(c) for c in data.get("claims", ())],
            unsupported=[str(u) for u in data.get("unsupported", ())],
            memory_citations=[Citation.from_dict(c) for c in data.get("memory_citations", ())],
        )


@dataclass(frozen=True)
class RelatedPassage:
    """A passage near the question that does *not* answer it: shown after a refusal
    so the user can look further ("the base has this nearby"), never as a citation."""

    text: str
    chunk_id: str
    document_id: str
    source: str = ""
    title: str = ""
    locator: dict[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "locator", dict(self.locator))

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "chunk_id": self.chunk_id,
            "document_id": self.document_id,
            "source": self.source,
            "title": self.title,
            "locator": dict(self.locator),
            "answer": False,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RelatedPassage:
        return cls(
            text=str(data["text"]),
            chunk_id=str(data["chunk_id"]),
            document_id=str(data["document_id"]),
            source=str(data.get("source", "")),
            title=str(data.get("title", "")),
            locator=dict(data.get("locator") or {}),
        )


@dataclass(frozen=True)
class Refusal:
    """An honest "not in the base": why, how confident the gate was, what was searched,
    and the nearest passages (``related``), which are clearly not an answer."""

    reason: str
    gate_score: float
    searched: tuple[str, ...] = ()
    related: tuple[RelatedPassage, ...] = ()

    def __init__(
        self,
        reason: str,
        gate_score: float,
        searched: Sequence[str] = (),
        related: Sequence[RelatedPassage] = (),
    ) -> None:
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "gate_score", float(gate_score))
        object.__setattr__(self, "searched", tuple(searched))
        object.__setattr__(self, "related", tuple(related))

    @property
    def refused(self) -> bool:
        return True

    def to_dict(self) -> dict[str, Any]:
        return {
            "refused": True,
            "reason": self.reason,
            "answer": None,
            "citations": [],
            "searched": list(self.searched),
            "gate_score": self.gate_score,
            "related": [r.to_dict() for r in self.related],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Refusal:
        if not data.get("refused", True):
            raise InvalidInputError("this dict describes an Answer, not a Refusal")
        return cls(
            reason=str(data["reason"]),
            gate_score=float(data["gate_score"]),
            searched=[str(s) for s in data.get("searched", ())],
            related=[RelatedPassage.from_dict(r) for r in data.get("related", ())],
        )


#: What the answer engine returns.
AnswerResult = Answer | Refusal


def result_from_dict(data: Mapping[str, Any]) -> AnswerResult:
    """Rebuild an :class:`Answer` or a :class:`Refusal` from its ``to_dict`` form."""
    if data.get("refused"):
        return Refusal.from_dict(data)
    return Answer.from_dict(data)


@dataclass(frozen=True)
class GateDecision:
    """The sufficiency gate's verdict: ``passed`` when ``score >= threshold``.

    ``signals`` keeps the raw evidence (top vector similarity, rare-term
    coverage, rerank score...) for ``--explain``.
    """

    passed: bool
    score: float
    threshold: float
    signals: dict[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "signals", dict(self.signals))

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "score": self.score,
            "threshold": self.threshold,
            "signals": dict(self.signals),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GateDecision:
        return cls(
            passed=bool(data["passed"]),
            score=float(data["score"]),
            threshold=float(data["threshold"]),
            signals=dict(data.get("signals") or {}),
        )
