"""Each adapter package imports only its own framework, loads its names lazily, and
a missing framework is a MissingDependencyError that names the extra to install.

A missing package is simulated in a fresh interpreter by a meta-path finder that
refuses to find it (and its submodules), as if it had never been installed; nothing
is uninstalled, so the rest of the suite keeps its environment.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

HIDE = textwrap.dedent(
    """
    import importlib.abc, sys

    HIDDEN = {hidden!r}

    class Hide(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in HIDDEN:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
            return None

    sys.meta_path.insert(0, Hide())

    def loaded(top):
        return sorted(m for m in sys.modules if m.split(".")[0] == top)

    def fails_naming(extra, action):
        from memo_core.errors import MissingDependencyError
        try:
            action()
        except MissingDependencyError as exc:
            assert exc.extra == extra and f"memo[{{extra}}]" in str(exc), exc
        else:
            raise SystemExit(f"{{action}} worked without its dependency")
    """
)


def run(hidden: tuple[str, ...], body: str) -> None:
    script = HIDE.format(hidden=set(hidden)) + textwrap.dedent(body) + '\nprint("ok")\n'
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")


def test_the_finder_really_hides_a_package() -> None:
    """The check itself can fail: an installed package behind the finder is not found."""
    pytest.importorskip("langgraph")
    run(
        ("langgraph",),
        """
        try:
            import langgraph.store.base
        except ModuleNotFoundError:
            pass
        else:
            raise SystemExit("langgraph was still importable")
        """,
    )


def test_langchain_core_alone_runs_every_adapter_but_the_store_and_middleware() -> None:
    pytest.importorskip("langchain_core")
    run(
        ("langgraph", "langchain", "llama_index"),
        """
        import memo_integrations.langchain as lc
        from memo_core.embedders import HashEmbedder
        from memo_core.kb.base import MemoBase
        from memo_core.memory import MemoHood, RecallGate

        kb = MemoBase(":memory:", embedder=HashEmbedder(32))
        kb.add_texts(["Invoices are due within thirty days.", "Walruses live on ice."])
        docs = lc.MemoBaseRetriever(kb=kb, k=1).invoke("when are invoices due")
        assert "thirty days" in docs[0].page_content
        store = lc.MemoBaseVectorStore(kb)
        assert store.max_marginal_relevance_search("invoices", k=1, fetch_k=2)
        assert lc.MemoEmbeddings(HashEmbedder(32)).embed_query("x")
        assert lc.GuardedQA(kb).invoke("When are invoices due?")["refused"] is False
        assert [t.name for t in lc.knowledge_base_tools(kb)] == [
            "search_knowledge_base", "ask_knowledge_base"
        ]
        memory = MemoHood(":memory:", embedder=HashEmbedder(32), gate=RecallGate())
        history = lc.MemoHoodChatMessageHistory(memory, "s", namespace=("u",))
        history.add_user_message("I live in Lisbon.")
        assert history.messages
        assert lc.ScriptedChatModel(replies=["hi"]).invoke("hello").content == "hi"

        fails_naming("langchain", lambda: lc.MemoHoodStore)
        fails_naming("langchain", lambda: lc.MemoHoodMiddleware)
        fails_naming("langchain", lambda: __import__("memo_integrations.langchain.store"))

        def from_import():
            from memo_integrations.langchain import remember_and_recall  # noqa: F401
        fails_naming("langchain", from_import)
        assert loaded("langgraph") == [] and loaded("langchain") == []
        assert loaded("llama_index") == []
        """,
    )


def test_llamaindex_needs_neither_langchain_nor_langgraph() -> None:
    pytest.importorskip("llama_index.core")
    run(
        ("langgraph", "langchain", "langchain_core"),
        """
        import memo_integrations.llamaindex as li
        from llama_index.core.vector_stores.types import VectorStoreQuery
        from memo_core.embedders import HashEmbedder
        from memo_core.kb.base import MemoBase
        from memo_core.memory import MemoHood, RecallGate

        kb = MemoBase(":memory:", embedder=HashEmbedder(32))
        store = li.MemoBaseVectorStore(kb)
        kb.add_texts(["Invoices are due within thirty days."])
        found = store.query(VectorStoreQuery(query_str="invoices", mode="text_search"))
        assert found.nodes
        memory = MemoHood(":memory:", embedder=HashEmbedder(32), gate=RecallGate())
        assert li.memo_memory(memory, namespace=("u",)) is not None
        for name in li.__all__:
            assert getattr(li, name) is not None
        fails_naming("langchain", lambda: __import__("memo_integrations.langchain"))
        assert loaded("langchain_core") == [] and loaded("langgraph") == []
        """,
    )


def test_langchain_needs_no_llamaindex() -> None:
    pytest.importorskip("langgraph.store.base")
    pytest.importorskip("langchain.agents")
    run(
        ("llama_index",),
        """
        import memo_integrations.langchain as lc
        for name in lc.__all__:
            assert getattr(lc, name) is not None
        fails_naming("llamaindex", lambda: __import__("memo_integrations.llamaindex"))
        fails_naming(
            "llamaindex", lambda: __import__("memo_integrations.llamaindex.vector_store")
        )
        assert loaded("llama_index") == []
        """,
    )


def test_the_mcp_server_needs_the_mcp_extra() -> None:
    run(
        ("mcp",),
        """
        fails_naming("mcp", lambda: __import__("memo_integrations.mcp_server"))
        """,
    )


@pytest.mark.parametrize(
    ("package", "framework"),
    [
        ("memo_integrations.langchain", "langchain_core"),
        ("memo_integrations.llamaindex", "llama_index"),
    ],
)
def test_importing_a_package_loads_none_of_its_adapters(package: str, framework: str) -> None:
    pytest.importorskip(framework)
    run(
        (),
        f"""
        import {package} as pkg
        adapters = [m for m in sys.modules if m.startswith("{package}.")]
        assert adapters == [], adapters
        assert sorted(dir(pkg)) == sorted(set(dir(pkg)) | set(pkg.__all__))
        try:
            pkg.NoSuchName
        except AttributeError:
            pass
        else:
            raise SystemExit("an unknown name resolved")
        """,
    )
