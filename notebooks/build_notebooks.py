"""Build the example notebooks from this file, so they are reviewed as Python, and run them.

    python notebooks/build_notebooks.py          # (re)write and execute notebooks/*.ipynb
    python notebooks/build_notebooks.py --check  # exit 1 if a notebook's cells differ from this file
    python notebooks/build_notebooks.py --no-execute  # write the cells only (no outputs)

Each notebook is written with stable cell ids, then executed top to bottom in a fresh
kernel of this interpreter, from the repository root, offline (``HF_HUB_OFFLINE=1``, no
``MEMO_LLM_*`` variables: the fake models answer), and committed with its outputs, so a
reader on GitHub sees the results and the plots. ``--check`` compares the cells (kind,
id, source), not the outputs, which hold timings and temporary paths. Edit the cells
here, never the ``.ipynb`` files by hand; the tests (tests/notebooks) execute them again.

Each notebook runs top to bottom offline: with no model configured it uses memo's
``FakeLLM`` (or the framework's fake chat model); with ``MEMO_LLM_BASE_URL``,
``MEMO_LLM_MODEL`` and, when the endpoint needs one, ``MEMO_LLM_API_KEY`` set, it
calls that OpenAI-compatible endpoint instead (Ollama, llama.cpp, vLLM, OpenAI...).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

Cell = tuple[str, str]  # ("md" | "code", source)


def md(text: str) -> Cell:
    return ("md", textwrap.dedent(text).strip())


def code(text: str) -> Cell:
    return ("code", textwrap.dedent(text).strip())


# -- snippets shared by several notebooks ---------------------------------------------

ROOT_AND_SCRATCH = """
import os
import tempfile
from pathlib import Path


def find_repo_root(start: Path) -> Path:
    \"\"\"The memo checkout (the folder holding samples/), from here or a parent folder.\"\"\"
    for folder in (start, *start.parents):
        if (folder / "samples").is_dir() and (folder / "memo_core").is_dir():
            return folder
    raise FileNotFoundError("open this notebook from inside the memo repository")


ROOT = find_repo_root(Path.cwd())
SAMPLES = ROOT / "samples"
# Everything this notebook writes goes to a scratch folder, never into the repository.
WORK = Path(tempfile.mkdtemp(prefix="memo-notebook-"))
print("samples:", SAMPLES)
print("scratch folder:", WORK)
"""

SCRATCH_ONLY = """
import os
import tempfile
from pathlib import Path

# Everything this notebook writes goes to a scratch folder, never into the repository.
WORK = Path(tempfile.mkdtemp(prefix="memo-notebook-"))
print("scratch folder:", WORK)
"""

EMBEDDER = """
from memo_core.embedders import default_local_embedder

# all-MiniLM-L6-v2 (int8 ONNX) shipped on PyPI with memo[local]: no download, no PyTorch.
embedder = default_local_embedder()
embedder.embed_query("warm up")  # loads the model once
print("embedder:", embedder.fingerprint.describe())
"""

GATE = """
from memo_core.memory import RecallGate

# The recall gate skips small talk with a Model2Vec model shipped inside memo (15 MB, no
# download); MemoHood(path) with no gate= loads the same one.
gate = RecallGate.default()
print("recall gate:", "Model2Vec" if gate.uses_model else "lexical rule")
"""


def memo_llm(fake: str) -> str:
    """The cell choosing memo's LLM: the user's endpoint if configured, else ``fake``."""
    return (
        textwrap.dedent(
            """
            from memo_core.llm import FakeLLM, OpenAICompatibleLLM

            # Set MEMO_LLM_BASE_URL (e.g. http://localhost:11434/v1 for Ollama), MEMO_LLM_MODEL and,
            # if the endpoint needs a key, MEMO_LLM_API_KEY to use a real model.
            BASE_URL = os.environ.get("MEMO_LLM_BASE_URL")
            REAL_MODEL = bool(BASE_URL)
            if REAL_MODEL:
                llm = OpenAICompatibleLLM(
                    BASE_URL,
                    os.environ.get("MEMO_LLM_MODEL", ""),
                    api_key=os.environ.get("MEMO_LLM_API_KEY") or None,
                )
            else:
            """
        ).strip()
        + "\n"
        + textwrap.indent(textwrap.dedent(fake).strip(), "    ")
        + '\nprint("model:", llm if REAL_MODEL else "FakeLLM (no MEMO_LLM_BASE_URL set)")'
    )


INGEST_SAMPLES = """
from memo_core.kb import MemoBase

kb = MemoBase(WORK / "kb.db", embedder=embedder)
# Ingestion reads only the folders in roots= (here: the sample folder), the same report
# as `memo kb ingest`: added, updated, unchanged, failed and skipped (with reasons).
report = kb.ingest(SAMPLES, roots=[SAMPLES])
print(f"{len(report.added)} documents, {report.chunks} chunks in {report.seconds:.1f} s "
      f"({report.embed_seconds:.1f} s embedding); failed: {report.failed}; "
      f"skipped: {report.skipped}")
"""


# -- 01 knowledge base ----------------------------------------------------------------


def nb01() -> list[Cell]:
    return [
        md(
            """
            # 01 · Knowledge base quickstart

            A private knowledge base in one SQLite file: ingest the sample documents, search them
            three ways (keyword, vector, hybrid), then ask questions that get **a verified quote
            with its page**, or an honest **refusal**.

            Runs offline. Needs `pip install "memo[local,pdf]"`. With no model configured, answers
            are *extractive* (verified sentences, no LLM at all); set `MEMO_LLM_BASE_URL` /
            `MEMO_LLM_MODEL` / `MEMO_LLM_API_KEY` to let a real model write the answer in the last
            section.
            """
        ),
        code(ROOT_AND_SCRATCH),
        md(
            "## Ingest the sample folder\n\nA PDF contract, Markdown notes, an Obsidian vault and a CSV."
        ),
        code(EMBEDDER),
        code(INGEST_SAMPLES),
        code(
            """
            for doc in kb.list_documents():
                print(f"{doc.kind:9} {doc.title:24} {Path(doc.source).name}")
            print(kb.status())
            """
        ),
        md(
            """
            ## Keyword, vector and hybrid search

            Keyword search (SQLite FTS5, BM25) is exact about names and numbers; vector search
            (sqlite-vec) finds paraphrases; hybrid fuses both rankings with Reciprocal Rank Fusion.
            The table shows where each chunk ranks in each mode (`-` = not in that mode's top 5).
            """
        ),
        code(
            """
            def where(hit):
                \"\"\"How a person finds the chunk: page, heading or spreadsheet row.\"\"\"
                loc = hit.locator
                if "page" in loc:
                    return f"page {loc['page']}"
                if "row" in loc:
                    return f"row {loc['row']}"
                return loc.get("heading") or Path(hit.source).name


            def rank_table(question, k=5):
                modes = ("keyword", "vector", "hybrid")
                ranks, labels = {}, {}
                for mode in modes:
                    for rank, hit in enumerate(kb.search(question, k=k, mode=mode), start=1):
                        ranks.setdefault(hit.chunk_id, {})[mode] = rank
                        labels[hit.chunk_id] = f"{hit.title} ({where(hit)})"
                order = sorted(ranks, key=lambda c: ranks[c].get("hybrid", 99))
                print(f"Q: {question}")
                print(f"{'keyword':>8} {'vector':>7} {'hybrid':>7}  chunk")
                for chunk in order:
                    r = [str(ranks[chunk].get(m, "-")) for m in modes]
                    print(f"{r[0]:>8} {r[1]:>7} {r[2]:>7}  {labels[chunk]}")
                print()


            rank_table("Which country is Fabrikam in?")  # a name: keyword search is exact
            rank_table("How quickly must customer data be erased after the deal ends?")  # a paraphrase
            """
        ),
        md(
            """
            ## A guarded answer: quote and page

            `GuardedAnswerer` searches, checks that the best match is good enough (the
            *sufficiency gate*), and answers only with sentences it has **located verbatim** in the
            cited chunk. With `llm=None` it is extractive: no model, nothing to hallucinate.
            """
        ),
        code(
            """
            from memo_core.answer import GuardedAnswerer

            answerer = GuardedAnswerer(kb)  # llm=None: extractive
            result = answerer.ask("What interest is charged on late payments?")
            print("refused:", result.refused)
            print(result.text)
            print()
            for n, c in enumerate(result.citations, start=1):
                stored = kb.store.document_text(kb.owner, c.document_id)
                located = stored[c.document_start : c.document_end] == c.quote
                place = f"page {c.page}" if c.page else (c.locator.get("heading") or Path(c.source).name)
                print(f"[{n}] {c.title}, {place}")
                print(f"    quote: {c.quote!r}")
                print(f"    match: {c.method}; found at characters {c.document_start}-{c.document_end} "
                      f"of the stored document: {located}")
            """
        ),
        md(
            """
            ## A refusal

            A question the documents do not answer is refused *before* any model could be asked,
            because the best match scores below the calibrated threshold. A refusal is a value,
            not an exception.
            """
        ),
        code(
            """
            for question in ("Who won the 2018 World Cup?",
                             "What is the notice period for employees who resign?"):
                outcome = answerer.ask(question)
                print(f"Q: {question}\\nrefused: {outcome.refused}; {outcome.reason}\\n")
            """
        ),
        md(
            """
            ## With a model: invented quotes are dropped

            A model writes claims with quotes; memo keeps only the claims whose quotes it finds in
            the cited passage. Numbers, negations and names must match exactly. With no model
            configured, a `FakeLLM` plays a model that gets one number wrong (30 days instead of
            90): that claim is dropped and the answer keeps the true one.
            """
        ),
        code(
            memo_llm(
                """
                import json

                question = "How long is the initial term of the agreement, and how much notice of non-renewal must a party give?"
                passages = kb.search(question, k=5)  # the same search the answerer runs
                n = next(i for i, h in enumerate(passages, start=1) if "24 months" in h.text)
                llm = FakeLLM([json.dumps({"claims": [
                    {"text": "The initial term is 24 months.",
                     "citations": [{"passage": n, "quote": "This Agreement has an initial term of 24 months"}]},
                    {"text": "Renewal stops with 30 days' notice.",  # invented: the contract says 90
                     "citations": [{"passage": n, "quote": "notice of non-renewal at least 30 days before the end of the current term"}]},
                ]})])
                """
            )
        ),
        code(
            """
            from memo_core.answer import Explanation

            question = "How long is the initial term of the agreement, and how much notice of non-renewal must a party give?"
            why = Explanation(question)
            result = GuardedAnswerer(kb, llm).ask(question, explanation=why)
            print("refused:", result.refused)
            print(result.text if not result.refused else result.reason)
            print()
            for check in why.checks:
                print(f"{'KEPT   ' if check['verified'] else 'DROPPED'} {check['quote']!r}"
                      f"{'' if check['verified'] else ' -- ' + str(check['reason'])}")
            """
        ),
        code(
            """
            kb.close()
            """
        ),
    ]


# -- 02 memory ------------------------------------------------------------------------


def nb02() -> list[Cell]:
    return [
        md(
            """
            # 02 · Long-term memory with MemoHood

            `MemoHood` keeps what matters from a conversation in one SQLite file: it captures facts
            by rules (no LLM call for clear cases), keeps **versions** when a fact changes, and
            recalls what is relevant before the next reply, behind a gate that skips small talk.

            The penicillin story: said once, in passing, on a Monday; recalled a month later in a
            new session when it matters. Then a meeting that moves twice, its history, and what
            memory knew *as of* a past date, drawn as a timeline.

            Offline by default (`FakeLLM`); set `MEMO_LLM_BASE_URL` / `MEMO_LLM_MODEL` /
            `MEMO_LLM_API_KEY` to let a real model judge borderline turns and write the reply.
            """
        ),
        code(SCRATCH_ONLY),
        code(EMBEDDER),
        code(GATE),
        code(
            memo_llm(
                """
                # Asked only about borderline turns (rules settle the clear ones): this fake keeps
                # the board-games turn as a preference, then writes one reply.
                llm = FakeLLM([
                    '{"keep": true, "facts": [{"statement": "I play board games most weekends.", '
                    '"category": "preference", "pinned": false, "about": "self"}]}',
                    "(fake model) Noted your penicillin allergy: ask your doctor about a "
                    "non-penicillin option such as a macrolide.",
                ], default_reply='{"keep": false, "facts": []}')
                """
            )
        ),
        md(
            """
            ## Session 1 — a Monday in March

            Each turn is captured. The raw turn is always kept as episodic memory; facts are
            extracted from user turns only (the assistant's own suggestion never becomes the
            user's fact).
            """
        ),
        code(
            """
            from datetime import UTC, datetime, timedelta

            from memo_core.memory import MemoHood

            MONDAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
            USER = "alice"  # every call names a namespace; nothing crosses to another one

            session_1 = [
                ("user", "Morning! Quick one before my coffee."),
                ("user", "By the way, I'm allergic to penicillin."),
                ("assistant", "Thanks, noted. For a sore throat people often take amoxicillin."),
                ("user", "We played board games all weekend."),
            ]
            with MemoHood(WORK / "memory.db", embedder=embedder, llm=llm, gate=gate) as memory:
                for minute, (role, text) in enumerate(session_1):
                    r = memory.capture(text, namespace=USER, role=role, session_id="monday",
                                       at=MONDAY + timedelta(minutes=minute))
                    facts = [f.statement for f in r.added] or "-"
                    print(f"{role:9} {r.decision:10} llm={str(r.llm_called):5} facts={facts}")
                    print(f"          {text!r}")
            """
        ),
        md(
            """
            ## Session 2 — a month later, a new process

            The file is opened again (as a new process would). Small talk is skipped by the gate,
            without a search. A question about antibiotics recalls the allergy, and the recalled
            block goes into the model's prompt.
            """
        ),
        code(
            """
            LATER = MONDAY + timedelta(days=31)
            memory = MemoHood(WORK / "memory.db", embedder=embedder, llm=llm, gate=gate)

            small_talk = memory.recall("thanks!", namespace=USER, at=LATER)
            print("'thanks!' ->", small_talk.gate.action, f"({small_talk.gate.method})")

            message = "Can you suggest an antibiotic for a sore throat?"
            recall = memory.recall(message, namespace=USER, at=LATER)
            print(f"{message!r} -> {recall.gate.action}")
            print(recall.block)
            print()
            print("remembered about alice:", [f.statement for f in memory.list_facts(USER)])
            print("anything about amoxicillin?", any("amoxicillin" in f.statement
                                                  for f in memory.list_facts(USER)))
            print("bob's memory:", memory.recall(message, namespace="bob", at=LATER).facts)
            """
        ),
        code(
            """
            from memo_core.llm import ChatMessage

            prompt = [
                ChatMessage("system", "You are a helpful assistant.\\n\\n" + recall.block),
                ChatMessage("user", message),
            ]
            print(llm.complete(prompt))
            """
        ),
        md(
            """
            ## A fact that changes twice

            The weekly 1:1 moves from Tuesday to Wednesday, then to Thursday. Each change
            **supersedes** the previous version (it gets `valid_to` and `superseded_by`); nothing
            is overwritten. `history(fact_id, namespace=...)` lists every version.
            """
        ),
        code(
            """
            said = [
                (MONDAY, "My weekly 1:1 with Priyanka is on Tuesdays at 10:00."),
                (MONDAY + timedelta(days=14), "Priyanka shifted our 1:1 to Wednesdays at 15:00."),
                (MONDAY + timedelta(days=30), "Changed again: the 1:1 is now Thursday 09:30."),
            ]
            for when, text in said:
                r = memory.capture(text, namespace=USER, at=when)
                print(when.date(), "added:", [f.statement for f in r.added],
                      "superseded:", [f.version for f in r.superseded])

            current = r.added[0]
            versions = memory.history(current.id, namespace=USER)
            print()
            for v in versions:
                until = v.valid_to.date() if v.valid_to else "now"
                print(f"v{v.version}  {v.valid_from.date()} -> {until}  {v.statement}")
            """
        ),
        md(
            """
            ## What did memory know on a past date?

            `recall(..., as_of=date)` answers with the versions that were current then.
            """
        ),
        code(
            """
            AS_OF = MONDAY + timedelta(days=20)
            question = "When is my 1:1 with Priyanka?"
            then = memory.recall(question, namespace=USER, as_of=AS_OF, at=LATER, use_gate=False)
            now = memory.recall(question, namespace=USER, at=LATER, use_gate=False)
            print("as of", AS_OF.date(), "->", [f.statement for f in then.facts if "1:1" in f.statement])
            print("today          ->", [f.statement for f in now.facts if "1:1" in f.statement])
            """
        ),
        md(
            "## The timeline\n\nEach row is one fact; each bar one version, from `valid_from` to `valid_to`."
        ),
        code(
            """
            import matplotlib.dates as mdates
            import matplotlib.pyplot as plt

            facts = memory.list_facts(USER, include_superseded=True)
            chains = list(dict.fromkeys(f.chain_id for f in facts))
            end = LATER + timedelta(days=10)
            fig, ax = plt.subplots(figsize=(10, 1.2 + 0.7 * len(chains)))
            for row, chain in enumerate(chains):
                for f in (f for f in facts if f.chain_id == chain):
                    start = mdates.date2num(f.valid_from)
                    stop = mdates.date2num(f.valid_to or end)
                    ax.barh(row, stop - start, left=start, height=0.5,
                            color="lightskyblue" if f.current else "lightgray", edgecolor="black")
                    ax.text(start + 0.3, row, f"v{f.version}: {f.statement[:36]}", va="center",
                            fontsize=8)
            ax.axvline(mdates.date2num(AS_OF), color="tab:red", linestyle="--",
                       label=f"as of {AS_OF.date()}")
            ax.set_yticks(range(len(chains)))
            ax.set_yticklabels([next(f.category for f in facts if f.chain_id == c) for c in chains])
            ax.invert_yaxis()
            ax.xaxis.set_major_formatter(mdates.DateFormatter("%d %b"))
            ax.set_title("alice's facts: current versions in blue, superseded in gray")
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
            fig.tight_layout()
            fig.savefig(WORK / "timeline.png")
            plt.show()
            print("timeline rows:", len(chains), "versions:", len(facts))
            """
        ),
        md(
            """
            ## Memory and documents together: one ranked, conflict-aware context

            `recall_all` asks memory and a knowledge base at once, fuses both lists with RRF
            (per-source weights), labels every item by its source, and flags a conflict when a
            remembered fact and a document disagree on a date, number or name.
            """
        ),
        code(
            """
            from memo_core import MemoBase, recall_all

            memory.capture("The Hollis grant report is due on March 27.", namespace=USER,
                           at=LATER - timedelta(days=1))
            kb = MemoBase(WORK / "kb.db", embedder=embedder)
            kb.add_texts(["Grant schedule: the Hollis report is due on 30 March 2026."],
                         metadatas=[{"source": "grant-schedule.md", "title": "Grant schedule"}])
            unified = recall_all("When is the Hollis report due?", memory=memory, kb=kb,
                                 namespace=USER, at=LATER)
            print(unified.render())
            for conflict in unified.conflicts:
                print("conflict:", conflict.kind, [value for _, value in conflict.sides])
            kb.close()
            """
        ),
        md("## Forgetting is real deletion"),
        code(
            """
            print("deleted:", memory.forget(namespace=USER, query="board games"))
            print("left:", [f.statement for f in memory.list_facts(USER)])
            memory.close()
            """
        ),
    ]


# -- 03 LangChain ---------------------------------------------------------------------


def nb03() -> list[Cell]:
    return [
        md(
            """
            # 03 · memo in LangChain and LangGraph

            * `MemoBaseRetriever`: a memo knowledge base as a LangChain retriever in an LCEL chain;
            * `GuardedQA`: the quote-or-refuse engine as a Runnable;
            * `MemoHoodStore`: long-term memory as a LangGraph `BaseStore` (`store=` at compile
              time), used by a small agent;
            * `MemoHoodMiddleware`: memory for a LangChain 1.x `create_agent` agent, with no tool
              call, and `knowledge_base_tools`.

            Needs `pip install "memo[local,pdf,langchain]"`. Offline, the chat model is LangChain's
            `ParrotFakeChatModel`, which replies with the prompt it received, so you can see what a
            real model would get. With `MEMO_LLM_BASE_URL` / `MEMO_LLM_MODEL` / `MEMO_LLM_API_KEY`
            set and `langchain-openai` installed, `ChatOpenAI` talks to your endpoint.
            """
        ),
        code(ROOT_AND_SCRATCH),
        code(
            """
            from langchain_core.language_models.fake_chat_models import ParrotFakeChatModel

            BASE_URL = os.environ.get("MEMO_LLM_BASE_URL")
            chat_model, REAL_MODEL = ParrotFakeChatModel(), False
            if BASE_URL:
                try:
                    from langchain_openai import ChatOpenAI
                except ImportError:
                    print("pip install langchain-openai to use MEMO_LLM_BASE_URL; using the fake model")
                else:
                    chat_model = ChatOpenAI(base_url=BASE_URL, model=os.environ.get("MEMO_LLM_MODEL", ""),
                                            api_key=os.environ.get("MEMO_LLM_API_KEY") or "none",
                                            temperature=0)
                    REAL_MODEL = True
            print("chat model:", type(chat_model).__name__)
            """
        ),
        code(EMBEDDER),
        code(INGEST_SAMPLES),
        md(
            "## The retriever\n\nEach `Document` carries what is needed to cite it: title, page or heading, ids, ranks."
        ),
        code(
            """
            from memo_integrations.langchain import MemoBaseRetriever

            retriever = MemoBaseRetriever(kb=kb, k=3)  # hybrid by default; mode="keyword"|"vector"
            for doc in retriever.invoke("What interest is charged on late payments?"):
                m = doc.metadata
                print(f"{m['title']:22} page={m.get('page')} heading={m.get('heading')} "
                      f"keyword_rank={m['keyword_rank']} vector_rank={m['vector_rank']}")
            """
        ),
        md("## In an LCEL chain"),
        code(
            """
            from langchain_core.output_parsers import StrOutputParser
            from langchain_core.prompts import ChatPromptTemplate
            from langchain_core.runnables import RunnablePassthrough


            def format_docs(docs):
                def where(m):
                    return f"page {m['page']}" if m.get("page") else (m.get("heading") or m["title"])
                return "\\n\\n".join(f"[{d.metadata['title']}, {where(d.metadata)}]\\n{d.page_content}"
                                     for d in docs)


            prompt = ChatPromptTemplate.from_messages([(
                "human",
                "Answer from the context only and name the source in brackets.\\n\\n"
                "Context:\\n{context}\\n\\nQuestion: {question}",
            )])
            chain = (
                {"context": retriever | format_docs, "question": RunnablePassthrough()}
                | prompt
                | chat_model
                | StrOutputParser()
            )
            reply = chain.invoke("How much notice stops the contract from renewing?")
            print(reply[:1500])
            """
        ),
        md(
            """
            ## Quote or refuse, as a Runnable

            `GuardedQA` returns a dict: the answer with verified citations, or a refusal. Offline
            it answers extractively (no model); with a real chat model it asks the model for
            quotes and keeps only those it can locate.
            """
        ),
        code(
            """
            from memo_integrations.langchain import GuardedQA

            qa = GuardedQA(kb, chat_model if REAL_MODEL else None)
            for question in ("How long is the initial term of the agreement?",
                             "Who won the 2018 World Cup?"):
                out = qa.invoke(question)
                print("Q:", question)
                print("refused:", out["refused"])
                print(out["answer"] if not out["refused"] else out["reason"])
                for c in out["citations"]:
                    print(f"  quote from {c['title']}, page {c['page']}: {c['quote']!r}")
                print()
            """
        ),
        md(
            """
            ## A LangGraph agent with memo as its long-term store

            The graph is compiled with `store=MemoHoodStore(...)`. A node calls
            `remember_and_recall(runtime.store, ...)`: it recalls what memory knows for this
            message, then captures the message. Another node uses the plain LangGraph store API
            (`put`/`search`) for notes. The agent meets the user twice; only the memory file
            connects the two runs.
            """
        ),
        code(
            """
            from dataclasses import dataclass
            from typing import TypedDict

            from langchain_core.messages import HumanMessage, SystemMessage
            from langgraph.graph import END, START, StateGraph
            from langgraph.runtime import Runtime

            from memo_integrations.langchain import MemoHoodStore, remember_and_recall
            """
        ),
        code(GATE),
        code(
            """
            @dataclass
            class Context:
                user_id: str


            class State(TypedDict, total=False):
                message: str
                memory: str
                notes: list[str]
                reply: str


            def recall(state: State, runtime: Runtime[Context]) -> dict:
                block = remember_and_recall(runtime.store, (runtime.context.user_id,), state["message"])
                return {"memory": block}


            def take_note(state: State, runtime: Runtime[Context]) -> dict:
                ns = (runtime.context.user_id, "notes")
                runtime.store.put(ns, f"note-{len(runtime.store.search(ns, limit=100))}",
                                  {"text": state["message"]})
                return {"notes": [i.value["text"] for i in runtime.store.search(ns, limit=10)]}


            def answer(state: State) -> dict:
                system = "You are a helpful assistant.\\n\\n" + (state.get("memory") or "(no memory)")
                if REAL_MODEL:
                    reply = chat_model.invoke([SystemMessage(system), HumanMessage(state["message"])])
                else:  # the parrot repeats its (single) prompt message
                    reply = chat_model.invoke([HumanMessage(system + "\\n\\nUser: " + state["message"])])
                return {"reply": str(reply.content)}


            graph = StateGraph(State, context_schema=Context)
            graph.add_node("recall", recall)
            graph.add_node("take_note", take_note)
            graph.add_node("answer", answer)
            graph.add_edge(START, "recall")
            graph.add_edge("recall", "take_note")
            graph.add_edge("take_note", "answer")
            graph.add_edge("answer", END)

            store = MemoHoodStore(WORK / "agent-memory.db", embedder=embedder, gate=gate)
            agent = graph.compile(store=store)
            """
        ),
        code(
            """
            first = agent.invoke({"message": "By the way, I'm allergic to penicillin."},
                                 context=Context("alice"))
            print("run 1 memory:", repr(first["memory"]))

            second = agent.invoke({"message": "Can you suggest an antibiotic for strep throat?"},
                                  context=Context("alice"))
            print("run 2 memory knows the allergy:", "penicillin" in second["memory"])
            print("notes:", second["notes"])
            print()
            print(second["reply"][:1200])
            """
        ),
        md(
            """
            ## A LangChain 1.x agent that remembers without being asked

            `MemoHoodMiddleware` recalls before each model call (the fenced memory block goes into
            that call's system message) and captures the user's turns after each run; the model
            never has to call a memory tool. `knowledge_base_tools(kb)` adds `search_knowledge_base`
            and `ask_knowledge_base` (quote or refuse). Offline, `ScriptedChatModel` replies and
            records what it was sent, so you can read the memory block the model received. The
            two runs share nothing but the memory file: no checkpointer, no thread.
            """
        ),
        code(
            """
            from langchain.agents import create_agent

            from memo_integrations.langchain import (
                MemoHoodMiddleware,
                ScriptedChatModel,
                knowledge_base_tools,
            )

            agent_model = chat_model if REAL_MODEL else ScriptedChatModel(default_reply="(scripted reply)")
            lc_agent = create_agent(
                agent_model,
                knowledge_base_tools(kb),
                system_prompt="You are a careful assistant.",
                middleware=[MemoHoodMiddleware(store.memory)],  # user_id from the run's context
            )
            lc_agent.invoke({"messages": [("user", "My daughter Mila starts school in September.")]},
                            context={"user_id": "carol"})
            later = lc_agent.invoke(
                {"messages": [("user", "What should I buy for my daughter's first school day?")]},
                context={"user_id": "carol"},
            )
            if not REAL_MODEL:
                system_sent = agent_model.calls[-1][0].content
                print("Mila reached the model:", "Mila" in system_sent)
                print(system_sent[:900])
            print()
            print(later["messages"][-1].content[:600])
            """
        ),
        code(
            """
            other = agent.invoke({"message": "Which antibiotic is safe for me?"}, context=Context("bob"))
            print("bob's memory is empty:", other["memory"] == "")
            print("namespaces under alice:", store.list_namespaces(prefix=("alice",)))
            store.close()
            kb.close()
            """
        ),
    ]


# -- 04 LlamaIndex --------------------------------------------------------------------


def nb04() -> list[Cell]:
    return [
        md(
            """
            # 04 · memo in LlamaIndex

            * `MemoBaseVectorStore`: a `VectorStoreIndex` whose nodes live in memo's SQLite file
              (vector, keyword and hybrid queries, metadata filters);
            * `GuardedQueryEngine`: quote-or-refuse answers as a LlamaIndex query engine;
            * `MemoHoodMemoryBlock`: memo's long-term memory as a block of LlamaIndex `Memory`;
            * `memo_memory`: a `Memory` whose history and long-term memory live in the memo file,
              for a `FunctionAgent` that remembers across sessions.

            LlamaIndex's global `Settings` are never used (their defaults call OpenAI): the
            embedding model and the LLM are passed explicitly. Offline the LLM is `MockLLM` (it
            echoes its prompt). With `MEMO_LLM_BASE_URL` / `MEMO_LLM_MODEL` / `MEMO_LLM_API_KEY`
            set and `llama-index-llms-openai-like` installed, `OpenAILike` calls your endpoint.
            """
        ),
        code(SCRATCH_ONLY),
        code(
            """
            from llama_index.core.llms import MockLLM

            BASE_URL = os.environ.get("MEMO_LLM_BASE_URL")
            llm, REAL_MODEL = MockLLM(), False
            if BASE_URL:
                try:
                    from llama_index.llms.openai_like import OpenAILike
                except ImportError:
                    print("pip install llama-index-llms-openai-like to use MEMO_LLM_BASE_URL; using MockLLM")
                else:
                    llm = OpenAILike(api_base=BASE_URL, model=os.environ.get("MEMO_LLM_MODEL", ""),
                                     api_key=os.environ.get("MEMO_LLM_API_KEY") or "none",
                                     is_chat_model=True, temperature=0)
                    REAL_MODEL = True
            print("llm:", type(llm).__name__)
            """
        ),
        code(EMBEDDER),
        md("## A VectorStoreIndex stored in memo"),
        code(
            """
            from llama_index.core import Document, StorageContext, VectorStoreIndex
            from llama_index.core.node_parser import SentenceSplitter

            from memo_core.kb import MemoBase
            from memo_integrations.llamaindex import MemoBaseVectorStore, MemoEmbedding

            documents = [
                Document(doc_id="leave", metadata={"team": "hr", "year": 2025}, text=(
                    "Employees get 28 days of paid annual leave. Unused leave of up to five days "
                    "may be carried over to the next year. Parental leave is 16 weeks at full pay.")),
                Document(doc_id="expenses", metadata={"team": "finance", "year": 2025}, text=(
                    "Expense claims must be filed within 60 days with a receipt. Train travel is "
                    "booked in second class; flights need approval from a director.")),
                Document(doc_id="security", metadata={"team": "it", "year": 2024}, text=(
                    "Laptops must use full-disk encryption. Passwords are stored in the company "
                    "password manager, never in documents. Report a lost laptop within 24 hours.")),
                Document(doc_id="oncall", metadata={"team": "it", "year": 2025}, text=(
                    "The on-call engineer answers pages within 15 minutes. On-call weeks are paid "
                    "a flat bonus of EUR 400. Swaps are agreed in the team channel.")),
            ]

            kb = MemoBase(WORK / "handbook.db", embedder=embedder)
            vector_store = MemoBaseVectorStore(kb)
            embed_model = MemoEmbedding(embedder)  # the same vectors memo stores and checks
            index = VectorStoreIndex.from_documents(
                documents,
                storage_context=StorageContext.from_defaults(vector_store=vector_store),
                embed_model=embed_model,
                # Explicit, small chunks (the splitter counts tokens with the tiktoken encoding
                # shipped inside llama-index-core: no download).
                transformations=[SentenceSplitter(chunk_size=60, chunk_overlap=0)],
            )
            print(kb.status())
            """
        ),
        md("## Three query modes and a metadata filter"),
        code(
            """
            from llama_index.core.vector_stores.types import MetadataFilter, MetadataFilters

            question = "How fast must I report a stolen computer?"
            for mode in ("default", "text_search", "hybrid"):
                retriever = index.as_retriever(similarity_top_k=2, vector_store_query_mode=mode)
                top = retriever.retrieve(question)
                print(f"{mode:12}", [(n.node.ref_doc_id, round(n.score, 3)) for n in top])

            only_it = MetadataFilters(filters=[MetadataFilter(key="team", value="it")])
            hits = index.as_retriever(similarity_top_k=5, filters=only_it).retrieve("how much is paid?")
            print("team=it only:", sorted({n.node.ref_doc_id for n in hits}))
            """
        ),
        md(
            """
            ## LlamaIndex's query engine, then the guarded one

            The standard engine gives the retrieved context to the LLM (MockLLM just echoes it).
            `GuardedQueryEngine` returns verified quotes (or a refusal flagged in the response's
            metadata); offline it answers extractively, with no LLM call.
            """
        ),
        code(
            """
            engine = index.as_query_engine(llm=llm, similarity_top_k=2)
            response = engine.query("How many days of annual leave do employees get?")
            print(str(response)[:600])
            print("sources:", [n.node.ref_doc_id for n in response.source_nodes])
            """
        ),
        code(
            """
            from memo_integrations.llamaindex import GuardedQueryEngine

            guarded = GuardedQueryEngine(vector_store, llm=llm if REAL_MODEL else None, k=3)
            for question in ("How many days of annual leave do employees get?",
                             "What is the dress code for client meetings?"):
                response = guarded.query(question)
                print("Q:", question)
                print("refused:", response.metadata["refused"])
                print(str(response))
                for c in response.metadata.get("citations", []):
                    print(f"  quote from {c['ref_doc_id']}: {c['quote']!r}")
                print()
            """
        ),
        md(
            """
            ## Memory with the memo block

            LlamaIndex's `Memory` keeps a short-term buffer; when it overflows, old messages are
            flushed into its memory blocks. `MemoHoodMemoryBlock` captures them into MemoHood, and
            on every `get` it recalls what matters for the latest user message. A tiny token limit
            makes the flush happen quickly here.
            """
        ),
        code(GATE),
        code(
            """
            from llama_index.core.llms import ChatMessage
            from llama_index.core.memory import Memory

            from memo_core.memory import MemoHood
            from memo_integrations.llamaindex import MemoHoodMemoryBlock


            def chat_memory(hood, session):
                block = MemoHoodMemoryBlock(hood, namespace="alice")
                return Memory.from_defaults(session_id=session, token_limit=60, token_flush_size=20,
                                            memory_blocks=[block])


            with MemoHood(WORK / "memory.db", embedder=embedder, gate=gate) as hood:
                first = chat_memory(hood, "session-1")
                first.put(ChatMessage(role="user", content="By the way, I'm allergic to penicillin."))
                first.put(ChatMessage(role="assistant", content="Thanks, I will keep that in mind."))
                for day in range(6):
                    first.put(ChatMessage(role="user", content=f"What is the weather like on day {day}?"))
                    first.put(ChatMessage(role="assistant", content=f"Day {day} looks sunny and mild."))
                print("captured:", [f.statement for f in hood.list_facts("alice")])
            """
        ),
        code(
            """
            with MemoHood(WORK / "memory.db", embedder=embedder, gate=gate) as hood:  # a new session
                second = chat_memory(hood, "session-2")
                messages = second.get(input="Can you suggest an antibiotic for my sore throat?")
                system = next(m for m in messages if m.role.value == "system")
                print("penicillin in the system prompt:", "penicillin" in system.content)
                print(system.content[:800])
                reply = llm.chat(messages + [ChatMessage(role="user", content="Can you suggest an antibiotic?")])
                print()
                print(str(reply.message.content)[:400])
            kb.close()
            """
        ),
        md(
            """
            ## A LlamaIndex agent that remembers across sessions

            `memo_memory(hood, namespace=...)` is a `Memory` whose chat history (a
            `MemoHoodDBChatStore`) and long-term memory both live in the memo file. The memory
            block goes with the latest user message, so it reaches the model with `FunctionAgent`
            and `ReActAgent` alike (`ReActAgent` drops a leading system message). Offline, LlamaIndex's
            `MockFunctionCallingLLMWithChatMemoryOfLastCall` records what it was sent.
            """
        ),
        code(
            """
            from llama_index.core.agent.workflow import FunctionAgent
            from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall

            from memo_integrations.llamaindex import memo_memory

            agent_llm = llm if REAL_MODEL else MockFunctionCallingLLMWithChatMemoryOfLastCall()
            agent = FunctionAgent(tools=[], llm=agent_llm, streaming=False)
            with MemoHood(WORK / "agent-memory.db", embedder=embedder, gate=gate) as hood:
                await agent.run("My daughter Mila starts school in September.",
                                memory=memo_memory(hood, namespace="dana", session_id="monday"))
                reply = await agent.run("What should I buy for my daughter's first school day?",
                                        memory=memo_memory(hood, namespace="dana", session_id="friday"))
                if not REAL_MODEL:
                    sent = "\\n".join(m.content or "" for m in agent_llm.last_chat_messages)
                    print("Mila reached the model:", "Mila" in sent)
                    print(sent[:900])
                print()
                print(str(reply)[:400])
                print("sessions in the memo file:", hood.list_session_keys("dana"))
            """
        ),
    ]


# -- 05 evaluation --------------------------------------------------------------------


def nb05() -> list[Cell]:
    return [
        md(
            """
            # 05 · A reduced retrieval benchmark

            Questions with known answers (SQuAD 2.0 paragraphs, Disfl-QA questions) from
            `../shared/eval/qa` (or `$MEMO_SHARED_DIR/eval/qa`): for each question we know which
            paragraph holds the answer, and measure where memo ranks it in keyword, vector and
            hybrid mode (MRR@10, recall@k), and how long a query takes. Then the sufficiency gate:
            how often it answers questions whose paragraph is in the base, and refuses those whose
            paragraph is not.

            A reduced run (a sample of paragraphs and questions, sizes below; `MEMO_NB_PARAGRAPHS`
            and `MEMO_NB_QUESTIONS` override them). The full benchmark is
            `python bench/retrieval.py`. When the evaluation data is absent, every cell says so and
            does nothing.
            """
        ),
        code(ROOT_AND_SCRATCH),
        code(
            """
            import json
            import random

            SHARED = Path(os.environ.get("MEMO_SHARED_DIR", ROOT.parent / "shared"))
            QA = SHARED / "eval" / "qa"
            HAVE_DATA = (QA / "corpus.jsonl").exists() and (QA / "questions.jsonl").exists()
            if not HAVE_DATA:
                print(f"SKIPPED: evaluation data not found at {QA}; set MEMO_SHARED_DIR to its parent "
                      "folder to run this notebook.")

            N_PARAGRAPHS = int(os.environ.get("MEMO_NB_PARAGRAPHS", 150))
            N_QUESTIONS = int(os.environ.get("MEMO_NB_QUESTIONS", 100))
            SEED = 7


            def read_jsonl(path):
                with path.open(encoding="utf-8") as fh:
                    return [json.loads(line) for line in fh if line.strip()]


            if HAVE_DATA:
                rng = random.Random(SEED)
                corpus = rng.sample(read_jsonl(QA / "corpus.jsonl"), N_PARAGRAPHS)
                in_base = {p["id"] for p in corpus}
                questions = read_jsonl(QA / "questions.jsonl")
                answerable = [q for q in questions
                              if q["kind"] == "answerable" and q["paragraph_id"] in in_base]
                answerable = rng.sample(answerable, min(N_QUESTIONS, len(answerable)))
                out_of_base = rng.sample([q for q in questions if q["kind"] == "out_of_base"],
                                         min(N_QUESTIONS, len(answerable)))
                print(f"{len(corpus)} paragraphs, {len(answerable)} answerable questions, "
                      f"{len(out_of_base)} out-of-base questions")
                print("e.g.", repr(answerable[0]["question"]))
            """
        ),
        code(
            """
            import time

            if HAVE_DATA:
                from memo_core.embedders import default_local_embedder
                from memo_core.kb import MemoBase

                embedder = default_local_embedder()
                kb = MemoBase(WORK / "eval.db", embedder=embedder)
                start = time.perf_counter()
                kb.add_texts([p["text"] for p in corpus], ids=[p["id"] for p in corpus])
                ingest_s = time.perf_counter() - start
                kb.search("warm up", k=10)
                print(f"ingested {len(corpus)} paragraphs in {ingest_s:.1f} s "
                      f"({embedder.fingerprint.describe()})")
            """
        ),
        md("## Ranking quality and latency per mode"),
        code(
            """
            import statistics

            MODES = ("keyword", "vector", "hybrid")


            def evaluate(mode):
                reciprocal, ranks, latencies = [], [], []
                for q in answerable:
                    start = time.perf_counter()
                    hits = kb.search(q["question"], k=10, mode=mode)
                    latencies.append((time.perf_counter() - start) * 1000)
                    ids = [h.document_id for h in hits]
                    rank = ids.index(q["paragraph_id"]) + 1 if q["paragraph_id"] in ids else None
                    ranks.append(rank)
                    reciprocal.append(1 / rank if rank else 0.0)
                n = len(answerable)
                latencies.sort()
                return {
                    "MRR@10": sum(reciprocal) / n,
                    "recall@1": sum(r == 1 for r in ranks) / n,
                    "recall@5": sum(bool(r) and r <= 5 for r in ranks) / n,
                    "recall@10": sum(bool(r) for r in ranks) / n,
                    "p50 ms": statistics.median(latencies),
                    "p95 ms": latencies[min(n - 1, round(0.95 * (n - 1)))],
                }


            if HAVE_DATA:
                results = {mode: evaluate(mode) for mode in MODES}
                columns = list(results["hybrid"])
                print(f"{'mode':8}" + "".join(f"{c:>11}" for c in columns))
                for mode, row in results.items():
                    print(f"{mode:8}" + "".join(f"{row[c]:>11.3f}" for c in columns))
            """
        ),
        code(
            """
            import matplotlib.pyplot as plt

            if HAVE_DATA:
                fig, (quality, speed) = plt.subplots(1, 2, figsize=(11, 3.8))
                metrics = ["MRR@10", "recall@1", "recall@5", "recall@10"]
                width = 0.25
                for i, mode in enumerate(MODES):
                    xs = [m + (i - 1) * width for m in range(len(metrics))]
                    bars = quality.bar(xs, [results[mode][m] for m in metrics], width, label=mode)
                    quality.bar_label(bars, fmt="%.2f", fontsize=7)
                lowest = min(results[mode][m] for mode in MODES for m in metrics)
                quality.set_ylim(max(0.0, lowest - 0.15), 1.04)  # zoomed: the differences are small
                quality.set_xticks(range(len(metrics)), metrics)
                quality.set_title(f"Quality ({len(answerable)} questions, {len(corpus)} paragraphs)")
                quality.legend(ncols=3, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.08))
                for i, pct in enumerate(("p50 ms", "p95 ms")):
                    xs = [m + (i - 0.5) * 0.35 for m in range(len(MODES))]
                    bars = speed.bar(xs, [results[m][pct] for m in MODES], 0.35, label=pct)
                    speed.bar_label(bars, fmt="%.0f", fontsize=7)
                speed.set_xticks(range(len(MODES)), MODES)
                speed.set_ylabel("ms per query (embedding included)")
                speed.set_title("Latency")
                speed.legend()
                fig.tight_layout()
                fig.savefig(WORK / "evaluation.png")
                plt.show()
            """
        ),
        md(
            """
            ## The sufficiency gate

            The guarded answerer refuses before answering when the best match is not good enough.
            Answerable questions should mostly be answered, out-of-base ones mostly refused. (No
            LLM here: extractive answers.)
            """
        ),
        code(
            """
            if HAVE_DATA:
                from memo_core.answer import GuardedAnswerer

                answerer = GuardedAnswerer(kb)
                answered = sum(not answerer.ask(q["question"]).refused for q in answerable)
                refused = sum(answerer.ask(q["question"]).refused for q in out_of_base)
                print(f"answerable questions answered: {answered}/{len(answerable)}")
                print(f"out-of-base questions refused: {refused}/{len(out_of_base)}")
                kb.close()
            """
        ),
    ]


NOTEBOOKS = {
    "01_knowledge_base.ipynb": nb01,
    "02_memory.ipynb": nb02,
    "03_langchain.ipynb": nb03,
    "04_llamaindex.ipynb": nb04,
    "05_evaluation.ipynb": nb05,
}


def build(name: str) -> nbformat.NotebookNode:
    """The notebook ``name``, not yet executed, with stable cell ids."""
    stem = name.split("_", 1)[0]
    cells = []
    for i, (kind, source) in enumerate(NOTEBOOKS[name](), start=1):
        cell_id = f"nb{stem}-{i:02d}"
        if kind == "md":
            cells.append(new_markdown_cell(source, id=cell_id))
        else:
            cells.append(new_code_cell(source, id=cell_id))
    nb = new_notebook(cells=cells)
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    nbformat.validate(nb)
    return nb


def render(name: str) -> str:
    return nbformat.writes(build(name)) + "\n"


def kernel_env(**overrides: str) -> dict[str, str]:
    """The environment notebooks run in: offline, no real LLM configured, plots inline."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("MEMO_LLM_") and k not in ("OPENAI_API_KEY", "MPLBACKEND")
    }
    env.update(
        MPLBACKEND="module://matplotlib_inline.backend_inline",
        HF_HUB_OFFLINE="1",
        PYDEVD_DISABLE_FILE_VALIDATION="1",
        # tqdm (imported by the model libraries) asks for ipywidgets, which is not needed.
        PYTHONWARNINGS="ignore:IProgress not found",
    )
    env.update(overrides)
    return env


def kernel_manager_class() -> type:
    """A kernel manager whose kernels run *this* interpreter (never a python3 on PATH)."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class ThisInterpreterSpecs(KernelSpecManager):  # type: ignore[misc]
        def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
            return KernelSpec(
                argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                display_name=f"memo ({sys.executable})",
                language="python",
            )

    class ThisInterpreterKernels(AsyncKernelManager):  # type: ignore[misc]
        @default("kernel_spec_manager")
        def _specs(self) -> KernelSpecManager:
            return ThisInterpreterSpecs()

    return ThisInterpreterKernels


def execute(nb: nbformat.NotebookNode, env: dict[str, str], timeout: int = 600) -> None:
    """Run every cell of ``nb`` in place, from the repository root."""
    import nbclient

    client = nbclient.NotebookClient(
        nb,
        kernel_manager_class=kernel_manager_class(),
        timeout=timeout,
        kernel_name="python3",
        record_timing=False,  # no timestamps in the committed files
        resources={"metadata": {"path": str(HERE.parent)}},
    )
    client.execute(env=env)


def cells(nb: Any) -> list[tuple[str, str, str]]:
    """What ``--check`` compares: each cell's kind, id and source."""
    return [(c["cell_type"], c.get("id", ""), c["source"]) for c in nb["cells"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare the cells, do not write")
    parser.add_argument("--no-execute", action="store_true", help="write without outputs")
    parser.add_argument("names", nargs="*", help="only these notebooks (default: all)")
    args = parser.parse_args(argv)
    stale = []
    for name in args.names or list(NOTEBOOKS):
        path = HERE / name
        nb = build(name)
        if args.check:
            committed = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
            if committed is None or cells(committed) != cells(json.loads(nbformat.writes(nb))):
                stale.append(name)
            continue
        if not args.no_execute:
            start = time.perf_counter()
            execute(nb, kernel_env())
            print(f"executed {name} in {time.perf_counter() - start:.0f} s")
        path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
        print("wrote", path)
    if stale:
        print("out of date (run python notebooks/build_notebooks.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
