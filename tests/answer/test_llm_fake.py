"""FakeLLM: replays queued replies, records calls, fails loudly when empty."""

from __future__ import annotations

import pytest

from memo_core.errors import InvalidInputError, ProviderError
from memo_core.llm import LLM, ChatMessage, FakeLLM, supports_json_mode


def test_replays_in_order_and_records_calls() -> None:
    llm = FakeLLM(["one", "two"])
    msgs = [ChatMessage("system", "s"), ChatMessage("user", "u")]
    assert llm.complete(msgs, json_mode=True, max_tokens=50) == "one"
    assert llm.complete(msgs) == "two"
    assert llm.messages == [msgs, msgs]
    assert (llm.calls[0].json_mode, llm.calls[0].max_tokens) == (True, 50)
    assert llm.calls[1].json_mode is False
    assert llm.remaining == 0


def test_empty_queue_raises_or_uses_default() -> None:
    llm = FakeLLM([])
    with pytest.raises(ProviderError, match="no queued reply"):
        llm.complete([ChatMessage("user", "hi")])
    assert len(llm.calls) == 1
    fallback = FakeLLM(["first"], default_reply='{"claims": []}')
    assert fallback.complete([]) == "first"
    assert fallback.complete([]) == '{"claims": []}'
    fallback.queue("queued")
    assert fallback.complete([]) == "queued"


def test_is_an_llm_and_declares_json_support() -> None:
    assert isinstance(FakeLLM(), LLM)
    assert supports_json_mode(FakeLLM()) is True
    assert supports_json_mode(FakeLLM(supports_json_mode=False)) is False
    assert supports_json_mode(object()) is False


def test_chat_message_rejects_unknown_roles() -> None:
    with pytest.raises(InvalidInputError, match="unknown chat role"):
        ChatMessage("tool", "x")  # type: ignore[arg-type]
    assert ChatMessage("user", "x").to_dict() == {"role": "user", "content": "x"}
