"""``MemoHoodMiddleware``: long-term memory for a LangChain 1.x ``create_agent`` agent.

Memory that works without the model deciding to call a tool::

    from langchain.agents import create_agent
    from memo_integrations.langchain import MemoHoodMiddleware

    agent = create_agent(model, tools, middleware=[MemoHoodMiddleware("memory.db")],
                         context_schema=Context)
    agent.invoke({"messages": [...]}, context=Context(user_id="alice"))

* **before each model call** the recall gate reads the latest user message; when it
  is worth a memory search, the fenced, data-only memory block is added to the
  system message of *that call* (the agent's state and history are not changed, so
  the block never piles up in the thread);
* **after the run** the user's new turns are captured (facts, versions, pins);
  the agent's final answers are kept as episodic turns only, never as the user's
  facts; tool calls and tool results are not memory.

The namespace is a tuple, or a function of the run's ``Runtime`` (default:
:func:`namespace_from_context`, the ``user_id`` of the run's context). A run
without one fails closed with :class:`~memo_core.errors.NamespaceRequiredError`:
memory is never read or written under a guessed owner.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, NotRequired

try:
    from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest
    from langchain.agents.middleware.types import ModelResponse, PrivateStateAttr
    from langgraph.runtime import Runtime
except ImportError as exc:  # pragma: no cover - exercised only without the packages
    from memo_core.errors import MissingDependencyError

    raise MissingDependencyError("langchain", "langchain", "MemoHoodMiddleware") from exc
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langchain_core.runnables.config import run_in_executor

from memo_core.embedders.base import Embedder
from memo_core.errors import NamespaceRequiredError
from memo_core.llm.base import LLM
from memo_core.memory import MemoHood, MemoryConfig, RecallGate
from memo_core.memory.namespace import Namespace, normalize_namespace
from memo_integrations.langchain._memory import open_memory

__all__ = ["MemoHoodMiddleware", "MemoHoodState", "namespace_from_context"]

NamespaceResolver = Callable[[Runtime[Any]], Sequence[str] | str | None]


class MemoHoodState(AgentState[Any]):
    """The agent state plus the ids of the messages memory has already captured.

    Private to the middleware (not part of the agent's input or output schema); with
    a checkpointer it is what keeps a thread's earlier turns from being captured
    twice.
    """

    memo_captured: NotRequired[Annotated[list[str], PrivateStateAttr]]


def namespace_from_context(runtime: Runtime[Any]) -> tuple[str, ...] | None:
    """The default namespace: ``(user_id,)`` from the run's context, else ``None``.

    The context may be a dataclass or object with a ``user_id`` attribute, or a
    mapping with a ``"user_id"`` key (``agent.invoke(..., context={"user_id": ...})``).
    """
    context = runtime.context
    if context is None:
        return None
    user = (
        context.get("user_id")
        if isinstance(context, Mapping)
        else getattr(context, "user_id", None)
    )
    if user is None:
        return None
    return (str(user),)


def _text(message: AnyMessage) -> str:
    return message.text if isinstance(message.content, list) else str(message.content)


def _latest_user_text(messages: Sequence[AnyMessage]) -> str | None:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            text = _text(message)
            return text if text.strip() else None
    return None


def _with_block(system: SystemMessage | None, block: str) -> SystemMessage:
    """The system message with the memory block after the developer's own prompt."""
    if system is None:
        return SystemMessage(content=block)
    if isinstance(system.content, str):
        return SystemMessage(content=f"{system.content}\n\n{block}" if system.content else block)
    return SystemMessage(content=[*system.content, {"type": "text", "text": block}])


class MemoHoodMiddleware(AgentMiddleware[MemoHoodState, Any, Any]):
    """Recall before each model call, capture after each run, for ``create_agent``.

    ``memory``: an open :class:`~memo_core.memory.MemoHood`, or a file path (or
    database URL) opened with ``embedder``, ``llm``, ``gate`` and ``config``.
    ``namespace``: a tuple such as ``("alice",)``, or a function of the run's
    ``Runtime`` returning one (default :func:`namespace_from_context`); ``None``
    from it fails the run closed. ``k`` and ``token_budget`` bound the recalled
    block; ``capture_assistant=False`` keeps only the user's turns.
    """

    state_schema = MemoHoodState

    def __init__(
        self,
        memory: MemoHood | str | Path,
        *,
        namespace: Sequence[str] | str | NamespaceResolver = namespace_from_context,
        k: int | None = None,
        token_budget: int | None = None,
        capture_assistant: bool = True,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        gate: RecallGate | None = None,
        config: MemoryConfig | None = None,
    ) -> None:
        super().__init__()
        if not callable(namespace):
            fixed = normalize_namespace(namespace)  # a bad fixed namespace fails now
            namespace = lambda _runtime: fixed  # noqa: E731
        self.memory, self._owns_memory = open_memory(
            memory, embedder=embedder, llm=llm, gate=gate, config=config
        )
        self.namespace: NamespaceResolver = namespace
        self.k = k
        self.token_budget = token_budget
        self.capture_assistant = capture_assistant
        self.tools = []

    def close(self) -> None:
        """Close the memory if this middleware opened it from a path."""
        if self._owns_memory:
            self.memory.close()

    def resolve_namespace(self, runtime: Runtime[Any]) -> Namespace:
        """The run's namespace; raises :class:`NamespaceRequiredError` without one."""
        found = self.namespace(runtime)
        if found is None:
            raise NamespaceRequiredError(
                "MemoHoodMiddleware needs a namespace for this run: pass "
                "context={'user_id': ...} (or a context object with user_id), or "
                "namespace=(...) / namespace=lambda runtime: (...) to the middleware"
            )
        return normalize_namespace(found)

    # -- recall -------------------------------------------------------------------

    def memory_block(self, request: ModelRequest[Any]) -> str:
        """The fenced memory block for this model call ("" when the gate skips)."""
        namespace = self.resolve_namespace(request.runtime)
        message = _latest_user_text(request.messages)
        if message is None:
            return ""
        recalled = self.memory.recall(
            message, namespace=namespace, k=self.k, token_budget=self.token_budget
        )
        return recalled.block

    def _request_with_memory(self, request: ModelRequest[Any], block: str) -> ModelRequest[Any]:
        if not block:
            return request
        return request.override(system_message=_with_block(request.system_message, block))

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        return handler(self._request_with_memory(request, self.memory_block(request)))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        # MemoHood is synchronous and thread-safe: recall off the event loop.
        block = await run_in_executor(None, self.memory_block, request)
        return await handler(self._request_with_memory(request, block))

    # -- capture ------------------------------------------------------------------

    def _turns(self, messages: Sequence[AnyMessage], seen: set[str]) -> list[tuple[str, str]]:
        """(role, text) of the messages not captured yet: user turns and final answers."""
        turns: list[tuple[str, str]] = []
        for message in messages:
            if message.id is not None and message.id in seen:
                continue
            if isinstance(message, HumanMessage):
                turns.append(("user", _text(message)))
            elif (
                self.capture_assistant
                and isinstance(message, AIMessage)
                and not message.tool_calls
                and _text(message).strip()
            ):
                turns.append(("assistant", _text(message)))
        return turns

    def capture_run(self, state: MemoHoodState, runtime: Runtime[Any]) -> dict[str, Any]:
        """Capture the run's new turns; the state update that marks them captured."""
        namespace = self.resolve_namespace(runtime)
        messages: list[AnyMessage] = list(state.get("messages", []))
        seen = set(state.get("memo_captured", []))
        info = runtime.execution_info
        session = info.thread_id if info is not None else None
        for role, text in self._turns(messages, seen):
            if text.strip():
                self.memory.capture(text, namespace=namespace, role=role, session_id=session)
        ids = [m.id for m in messages if m.id is not None]
        return {"memo_captured": sorted(seen.union(ids))}

    def after_agent(self, state: MemoHoodState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return self.capture_run(state, runtime)

    async def aafter_agent(
        self, state: MemoHoodState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        return await run_in_executor(None, self.capture_run, state, runtime)
