"""``MemoHoodMemoryBlock``: memo's long-term memory inside ``llama_index.core.memory.Memory``.

``Memory`` keeps a short-term FIFO of messages; when it overflows its token
limit the oldest messages are flushed into every memory block (``aput``). This
block feeds those messages to ``MemoHood.capture`` (rules first, mostly no LLM
call). On every ``Memory.get`` it runs MemoHood's gated recall for the latest
user message and returns the fenced memory block, which ``Memory`` places in the
system message. Small talk is skipped by the gate, so a "thanks!" costs no search.

As with LlamaIndex's own fact-extraction block, nothing reaches long-term memory
until short-term memory flushes; a low ``token_limit`` flushes sooner. To capture
every message immediately, use :class:`MemoHoodChatStore` or ``MemoHood.capture``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.llms import ChatMessage
from llama_index.core.memory.memory import BaseMemoryBlock, InsertMethod, Memory
from llama_index.core.prompts import RichPromptTemplate

from memo_core.errors import InvalidInputError
from memo_core.memory import MemoHood, Namespace, NamespaceLike, Recall, normalize_namespace
from memo_core.memory.ranking import BLOCK_CLOSE, BLOCK_OPEN, render_block
from memo_core.memory.types import Fact
from memo_core.prompt import estimate_tokens
from memo_integrations.llamaindex.chat_store import memo_role, message_text
from memo_integrations.llamaindex.db_chat_store import MemoHoodDBChatStore

__all__ = ["MEMO_MEMORY_TEMPLATE", "MemoHoodMemoryBlock", "memo_memory"]

#: The template :func:`memo_memory` formats the blocks with: memo's one ``<memory>``
#: fence around the block texts (LlamaIndex's default adds a tag per block as well).
MEMO_MEMORY_TEMPLATE = RichPromptTemplate(
    "<memory>\n{% for (block_name, block_content) in memory_blocks %}"
    "{% for block in block_content %}{% if block.block_type == 'text' %}"
    "{{ block.text }}\n{% endif %}{% endfor %}{% endfor %}</memory>"
)


def _unfenced(block: str) -> str:
    """The block without memo's own ``<memory>`` lines: ``Memory``'s template fences it."""
    lines = block.strip().splitlines()
    if len(lines) >= 2 and lines[0] == BLOCK_OPEN and lines[-1] == BLOCK_CLOSE:
        lines = lines[1:-1]
    return "\n".join(lines).strip()


class MemoHoodMemoryBlock(BaseMemoryBlock[str]):
    """A memory block backed by one namespace of a :class:`~memo_core.memory.MemoHood`.

    ``k`` and ``token_budget`` default to the hood's ``MemoryConfig``;
    ``use_gate=False`` recalls on every message. ``last_recall`` keeps the most
    recent :class:`~memo_core.memory.Recall` (gate decision, facts) for inspection.
    ``priority`` is LlamaIndex's: 0 (the default) is never truncated; with another
    value, ``Memory`` over its token limit shortens the block from its least
    important lines (:meth:`atruncate`) where LlamaIndex's blocks drop it whole.
    """

    name: str = Field(default="memo_memory", description="The name of the memory block.")
    description: str | None = Field(
        default="Long-term facts about the user, recalled by memo's MemoHood."
    )
    namespace: Namespace
    k: int | None = None
    token_budget: int | None = None
    use_gate: bool = True
    capture_roles: tuple[str, ...] = ("user",)

    _hood: MemoHood = PrivateAttr()
    _last_recall: Recall | None = PrivateAttr(default=None)

    def __init__(self, hood: MemoHood, *, namespace: NamespaceLike, **kwargs: Any) -> None:
        if not isinstance(hood, MemoHood):
            raise InvalidInputError("MemoHoodMemoryBlock needs a MemoHood")
        super().__init__(namespace=normalize_namespace(namespace), **kwargs)  # type: ignore[call-arg]  # pydantic field
        self._hood = hood

    @property
    def hood(self) -> MemoHood:
        return self._hood

    @property
    def last_recall(self) -> Recall | None:
        return self._last_recall

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        """The recalled memory for the latest user message ("" when there is none)."""
        query = next(
            (message_text(m) for m in reversed(messages or []) if m.role.value == "user"), ""
        )
        if not query.strip():
            return ""
        recall = await asyncio.to_thread(
            self._hood.recall,
            query,
            namespace=self.namespace,
            k=self.k,
            token_budget=self.token_budget,
            use_gate=self.use_gate,
        )
        self._last_recall = recall
        return _unfenced(recall.block)

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """``content`` shortened by about ``tokens_to_truncate`` tokens, dropping the
        least important lines first (older versions and past messages before facts,
        the lowest-ranked facts before the best), or None when nothing useful fits.

        ``Memory`` calls this only for a block whose ``priority`` is not 0; the
        default 0 means the recalled memory is never cut.
        """
        recall = self._last_recall
        if recall is None or not content or _unfenced(recall.block) != content:
            return None  # not the text this block produced: nothing to re-render from
        budget = estimate_tokens(recall.block) - max(0, int(tokens_to_truncate))
        history: dict[str, list[Fact]] = {}
        for old in recall.history:
            history.setdefault(old.chain_id, []).append(old)
        block, facts, _, turns = render_block(
            recall.facts, history, recall.turns, budget, recall.unmatched
        )
        if not block or estimate_tokens(block) > budget:
            return None  # even the best fact alone is over the budget
        return _unfenced(block) if (facts or turns) else None

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Capture flushed messages whose role is in ``capture_roles``, in order."""
        for message in messages:
            text = message_text(message)
            if message.role.value not in self.capture_roles or not text.strip():
                continue
            session = message.additional_kwargs.get("session_id")
            await asyncio.to_thread(
                self._hood.capture,
                text,
                namespace=self.namespace,
                role=memo_role(message),
                session_id=str(session) if session is not None else None,
            )


def memo_memory(
    hood: MemoHood,
    *,
    namespace: NamespaceLike,
    session_id: str | None = None,
    token_limit: int = 30000,
    insert_method: InsertMethod = InsertMethod.USER,
    k: int | None = None,
    token_budget: int | None = None,
    use_gate: bool = True,
    **memory_options: Any,
) -> Memory:
    """A LlamaIndex ``Memory`` whose history and long-term memory both live in ``hood``.

    The short-term queue is a :class:`MemoHoodDBChatStore` (user messages are
    captured as they arrive), the block a :class:`MemoHoodMemoryBlock` fenced once by
    :data:`MEMO_MEMORY_TEMPLATE`. ``insert_method`` defaults to the latest user
    message because ``ReActAgent`` drops a leading system message, where ``Memory``
    puts the blocks by default; with it, the recalled memory reaches the model with
    ``ReActAgent`` and ``FunctionAgent`` alike. ``k``, ``token_budget`` and
    ``use_gate`` go to the block (capture stays with the store, so a message is
    captured once); ``memory_options`` go to ``Memory.from_defaults``
    (``token_flush_size``, ``chat_history_token_ratio``, ``tokenizer_fn`` ...). The
    store, the blocks and their template are memo's: pass those to ``Memory``
    yourself, with a :class:`MemoHoodMemoryBlock`, to change them.
    """
    taken = sorted({"chat_store", "memory_blocks", "memory_blocks_template"} & set(memory_options))
    if taken:
        raise InvalidInputError(
            f"memo_memory sets {', '.join(taken)} itself; build Memory directly to choose them"
        )
    block = MemoHoodMemoryBlock(
        hood,
        namespace=namespace,
        capture_roles=(),
        k=k,
        token_budget=token_budget,
        use_gate=use_gate,
    )
    return Memory.from_defaults(
        session_id=session_id,
        token_limit=token_limit,
        chat_store=MemoHoodDBChatStore(hood, namespace=namespace),
        memory_blocks=[block],
        memory_blocks_template=MEMO_MEMORY_TEMPLATE,
        insert_method=insert_method,
        **memory_options,
    )
