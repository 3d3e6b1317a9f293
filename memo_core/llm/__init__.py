"""The LLM protocol and its implementations: messages in, text out, no tools.

:class:`LLM` is what the answer engine consumes; :class:`FakeLLM` replays
queued replies (tests, notebooks with no key); :class:`OpenAICompatibleLLM`
talks to any OpenAI-compatible ``/chat/completions`` endpoint (``cloud`` extra).
"""

from memo_core.llm.base import LLM, ChatMessage, Role, supports_json_mode
from memo_core.llm.fake import FakeLLM, FakeLLMCall
from memo_core.llm.openai_compat import PRESETS, EndpointPreset, OpenAICompatibleLLM

__all__ = [
    "LLM",
    "PRESETS",
    "ChatMessage",
    "EndpointPreset",
    "FakeLLM",
    "FakeLLMCall",
    "OpenAICompatibleLLM",
    "Role",
    "supports_json_mode",
]
