"""The public surface of memo_core.answer and memo_core.llm is pinned."""

from __future__ import annotations

import memo_core.answer
import memo_core.llm

ANSWER = {
    "ANSWER_SYSTEM_PROMPT", "DEFAULT_FUZZY_THRESHOLD", "Answer", "AnswerResult", "Citation",
    "CitationVerifier", "Claim", "ExtractiveConfig", "GateDecision", "MatchMethod",
    "NormalizedText", "ParsedAnswer", "ParsedCitation", "ParsedClaim", "QuoteCheck", "Refusal",
    "VerifierConfig", "build_answer_messages", "build_repair_messages", "extractive_answer",
    "normalize", "normalize_quote", "normalize_text", "parse_answer", "result_from_dict",
    "split_sentences", "verify_quote",
}  # fmt: skip
LLM = {
    "LLM", "PRESETS", "ChatMessage", "EndpointPreset", "FakeLLM", "FakeLLMCall",
    "OpenAICompatibleLLM", "Role", "supports_json_mode",
}  # fmt: skip


def test_answer_exports_are_pinned() -> None:
    # the engine (gate, GuardedAnswerer) may add names; these must stay
    assert set(memo_core.answer.__all__) >= ANSWER
    for name in memo_core.answer.__all__:
        assert hasattr(memo_core.answer, name), name


def test_llm_exports_are_pinned() -> None:
    assert set(memo_core.llm.__all__) == LLM
    assert len(memo_core.llm.__all__) == len(LLM)
    for name in memo_core.llm.__all__:
        assert hasattr(memo_core.llm, name), name
