"""With langchain-core alone, memo_integrations.langchain imports and its non-store adapters
work; the LangGraph store and the middleware raise MissingDependencyError naming the extra."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")

SCRIPT = textwrap.dedent(
    """
    import sys
    # Hide langgraph and langchain (1.x) as if only langchain-core were installed.
    for name in ("langgraph", "langchain"):
        sys.modules[name] = None
    import memo_integrations.langchain as lc
    from memo_core.embedders import HashEmbedder
    from memo_core.errors import MissingDependencyError
    from memo_core.kb.base import MemoBase

    assert "langgraph" not in [m for m in sys.modules if sys.modules[m] is not None]
    kb = MemoBase(":memory:", embedder=HashEmbedder(32))
    kb.add_texts(["Invoices are due within thirty days."])
    docs = lc.MemoBaseRetriever(kb=kb, k=1).invoke("when are invoices due")
    assert docs and "thirty days" in docs[0].page_content
    assert lc.GuardedQA(kb).invoke("When are invoices due?")["refused"] is False
    assert [t.name for t in lc.knowledge_base_tools(kb)] == [
        "search_knowledge_base", "ask_knowledge_base"
    ]
    for name in ("MemoHoodStore", "MemoHoodMiddleware"):
        try:
            getattr(lc, name)
        except MissingDependencyError as exc:
            assert exc.extra == "langchain", exc
            assert "memo[langchain]" in str(exc)
        else:
            raise SystemExit(f"{name} imported without its dependency")
    print("ok")
    """
)


def test_core_adapters_work_without_langgraph() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
