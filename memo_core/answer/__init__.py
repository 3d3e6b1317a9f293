"""memo_core.answer: the guarded "quote or refuse" answer engine's parts.

The citation check (:func:`verify_quote`, :class:`CitationVerifier`), the
typographic normaliser it relies on, the sentence splitter and the no-LLM
extractive picker, the tool-less prompt and its tolerant parser, and the
values an answer produces (:class:`Answer`, :class:`Refusal`, :class:`Citation`).
"""

from memo_core.answer.engine import Explanation, GuardedAnswerer
from memo_core.answer.extractive import ExtractiveConfig, PickWeights, extractive_answer
from memo_core.answer.gate import GateCalibration, SufficiencyGate
from memo_core.answer.normalize import NormalizedText, normalize, normalize_quote, normalize_text
from memo_core.answer.prompting import (
    ANSWER_SYSTEM_PROMPT,
    ParsedAnswer,
    ParsedCitation,
    ParsedClaim,
    build_answer_messages,
    build_repair_messages,
    parse_answer,
)
from memo_core.answer.sentences import split_sentences
from memo_core.answer.types import (
    Answer,
    AnswerResult,
    Citation,
    Claim,
    GateDecision,
    MatchMethod,
    QuoteCheck,
    Refusal,
    RelatedPassage,
    result_from_dict,
)
from memo_core.answer.verify import (
    DEFAULT_FUZZY_THRESHOLD,
    CitationVerifier,
    VerifierConfig,
    verify_quote,
)

__all__ = [
    "ANSWER_SYSTEM_PROMPT",
    "DEFAULT_FUZZY_THRESHOLD",
    "Answer",
    "AnswerResult",
    "Citation",
    "CitationVerifier",
    "Claim",
    "Explanation",
    "ExtractiveConfig",
    "GateCalibration",
    "GateDecision",
    "GuardedAnswerer",
    "MatchMethod",
    "NormalizedText",
    "ParsedAnswer",
    "ParsedCitation",
    "ParsedClaim",
    "PickWeights",
    "QuoteCheck",
    "Refusal",
    "RelatedPassage",
    "SufficiencyGate",
    "VerifierConfig",
    "build_answer_messages",
    "build_repair_messages",
    "extractive_answer",
    "normalize",
    "normalize_quote",
    "normalize_text",
    "parse_answer",
    "result_from_dict",
    "split_sentences",
    "verify_quote",
]
