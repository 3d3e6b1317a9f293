"""The example notebooks run top to bottom, offline, in a kernel of this interpreter.

Each notebook is executed by nbclient in a fresh ipykernel started with ``sys.executable``
(never a ``python3`` found on PATH), with the repository root as its working directory.
Before the notebook's own cells, one injected cell makes every non-loopback connection
fail, so "offline" is checked, not assumed; the kernel gets no ``MEMO_LLM_*`` variables,
so the fake-model branch runs. Each notebook's printed results are then checked, in
the run and in the outputs committed with it (``build_notebooks.py`` executes them).

The real-model branch is exercised too: notebooks 01 and 02 run against a stub
OpenAI-compatible endpoint on 127.0.0.1 that must receive their requests. No notebook
imports a private helper.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat", reason="nbformat (the dev extra) is not installed")
nbclient = pytest.importorskip("nbclient", reason="nbclient (the dev extra) is not installed")
pytest.importorskip("ipykernel", reason="ipykernel (the dev extra) is not installed")
pytest.importorskip("matplotlib", reason="matplotlib (the dev extra) is not installed")

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
sys.path.insert(0, str(NOTEBOOKS))
import build_notebooks  # noqa: E402

CELL_TIMEOUT = 300  # seconds per cell; a whole notebook takes well under a minute unloaded
RUN_TIMEOUT = 900  # pytest-timeout per notebook run (the machine may be shared and slow)

# Injected before the notebook's first cell: any connection off this machine fails.
OFFLINE_GUARD = """
import socket as _socket

_LOOPBACK = {"127.0.0.1", "::1", "localhost"}
_connect, _connect_ex = _socket.socket.connect, _socket.socket.connect_ex


def _check(address):
    if isinstance(address, tuple) and str(address[0]) not in _LOOPBACK:
        raise OSError(f"network access from a notebook under test: {address!r}")


def _guarded_connect(self, address):
    _check(address)
    return _connect(self, address)


def _guarded_connect_ex(self, address):
    _check(address)
    return _connect_ex(self, address)


_socket.socket.connect, _socket.socket.connect_ex = _guarded_connect, _guarded_connect_ex
"""

# Injected into the LlamaIndex notebook: reading or writing the global Settings fails.
NO_LLAMAINDEX_SETTINGS = """
from llama_index.core.settings import _Settings


def _forbidden(*_args):
    raise AssertionError("LlamaIndex global Settings were used: pass models explicitly")


_Settings.llm = property(_forbidden, _forbidden)
_Settings.embed_model = property(_forbidden, _forbidden)
"""

# The modules each notebook needs beyond the base install (skip with a reason when absent).
REQUIRES = {
    "01_knowledge_base.ipynb": ["fastembed", "pypdf"],
    "02_memory.ipynb": ["fastembed"],
    "03_langchain.ipynb": ["fastembed", "pypdf", "langchain_core", "langgraph"],
    "04_llamaindex.ipynb": ["fastembed", "llama_index.core"],
    "05_evaluation.ipynb": ["fastembed"],
}

# What each notebook must print when it runs offline with the fake models.
EXPECTED = {
    "01_knowledge_base.ipynb": [
        "7 documents, ",
        "Late payments bear interest at 4 percent per year",
        "Sample contract, page 2",
        "of the stored document: True",
        "refused: True; The answer is not in the knowledge base.",
        "KEPT    'This Agreement has an initial term of 24 months'",
        "DROPPED 'notice of non-renewal at least 30 days",
    ],
    "02_memory.ipynb": [
        'facts=["I\'m allergic to penicillin."]',
        "'thanks!' -> skip",
        "(2026-03-02; health; pinned) I'm allergic to penicillin.",
        "anything about amoxicillin? False",
        "bob's memory: ()",
        "v3  2026-04-01 -> now  The 1:1 is now Thursday 09:30.",
        "as of 2026-03-22 -> ['Priyanka shifted our 1:1 to Wednesdays at 15:00.']",
        "today          -> ['The 1:1 is now Thursday 09:30.']",
        "conflict: date",
        "deleted: 1",
    ],
    "03_langchain.ipynb": [
        "Sample contract        page=2",
        "Question: How much notice stops the contract from renewing?",
        "notice of non-renewal at least 90 days",
        "quote from Sample contract, page 2: '4.1 This Agreement has an initial term",
        "refused: True",
        "run 2 memory knows the allergy: True",
        "bob's memory is empty: True",
    ],
    "04_llamaindex.ipynb": [
        "team=it only: ['oncall', 'security']",
        "quote from leave: 'Employees get 28 days of paid annual leave.'",
        "refused: True",
        'captured: ["I\'m allergic to penicillin."]',
        "penicillin in the system prompt: True",
    ],
    "05_evaluation.ipynb": [
        "mode         MRR@10",
        "answerable questions answered:",
        "out-of-base questions refused:",
    ],
}

# Notebooks that draw: they must display at least this many images.
IMAGES = {"02_memory.ipynb": 1, "05_evaluation.ipynb": 1}


def _notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def _kernel_env(**overrides: str) -> dict[str, str]:
    return build_notebooks.kernel_env(
        # A smaller sample for the evaluation notebook keeps the suite quick.
        MEMO_NB_PARAGRAPHS="40",
        MEMO_NB_QUESTIONS="30",
        **overrides,
    )


def run_notebook(path: Path, scratch: Path, **env: str) -> tuple[Any, float]:
    """Execute ``path`` in a fresh kernel; returns the executed notebook and its seconds.

    ``scratch`` becomes the kernel's TMPDIR, so the files a notebook writes to its
    temporary folder land in the test's own tmp_path.
    """
    nb = nbformat.read(path, as_version=4)
    prelude = [OFFLINE_GUARD]
    if path.name.startswith("04_"):
        prelude.append(NO_LLAMAINDEX_SETTINGS)
    for i, source in enumerate(prelude):
        nb.cells.insert(i, nbformat.v4.new_code_cell(source, id=f"test-prelude-{i}"))
    client = nbclient.NotebookClient(
        nb,
        kernel_manager_class=build_notebooks.kernel_manager_class(),
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(REPO)}},  # the kernel's working directory
    )
    start = time.perf_counter()
    client.execute(env=_kernel_env(TMPDIR=str(scratch), **env))
    return nb, time.perf_counter() - start


def printed(nb: Any) -> str:
    """Everything the cells printed or returned, as text."""
    parts: list[str] = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            elif out.output_type in ("execute_result", "display_data"):
                parts.append(out.get("data", {}).get("text/plain", ""))
    return "".join(parts)


def image_count(nb: Any) -> int:
    return sum(
        "image/png" in out.get("data", {})
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if out.output_type in ("display_data", "execute_result")
    )


def _require(name: str) -> None:
    for module in REQUIRES.get(name, []):
        pytest.importorskip(module, reason=f"{name} needs {module}")


# -- the repository's notebooks are commit-ready -------------------------------------


def test_there_are_five_notebooks() -> None:
    assert [p.name for p in _notebooks()] == sorted(EXPECTED)


def _repo_notebooks() -> list[Path]:
    """Every .ipynb in the checkout (virtual environments and caches pruned)."""
    found = []
    for folder, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "venv")]
        found += [Path(folder) / f for f in files if f.endswith(".ipynb")]
    return found


def test_committed_notebooks_show_their_outputs() -> None:
    """A reader on GitHub sees each notebook's results and plots (build_notebooks.py runs them)."""
    for path in _notebooks():
        nb = nbformat.read(path, as_version=4)
        unrun = [
            c.get("id") for c in nb.cells if c.cell_type == "code" and c.execution_count is None
        ]
        assert unrun == [], f"{path.name}: run python notebooks/build_notebooks.py ({unrun})"
        text = printed(nb)
        missing = [line for line in EXPECTED[path.name] if line not in text]
        assert missing == [], f"{path.name} was committed without {missing}"
        assert image_count(nb) >= IMAGES.get(path.name, 0), f"{path.name} lost its plots"
        errors = [
            o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"
        ]  # fmt: skip
        assert errors == []


def _memo_imports(source: str) -> list[tuple[str, str]]:
    """``(module, name)`` for each name a cell imports from memo_core or memo_integrations."""
    found: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
    return [(m, n) for m, n in found if m.split(".")[0] in ("memo_core", "memo_integrations")]


def test_no_notebook_imports_a_private_helper() -> None:
    private = []
    for path in _notebooks():
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            for module, name in _memo_imports(cell.source):
                imported = importlib.import_module(module)
                exported = getattr(imported, "__all__", ())
                # The public surface is what a package exports: not a module inside it
                # (memo_core.kb.ingest), not a name it does not list.
                inside = not hasattr(imported, "__path__")
                if inside or name.startswith("_") or (name and name not in exported):
                    private.append(f"{path.name}: from {module} import {name}")
    assert private == []


def test_notebooks_match_their_generator() -> None:
    done = subprocess.run(
        [sys.executable, str(NOTEBOOKS / "build_notebooks.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_offline_guard_blocks_the_network() -> None:
    import socket

    namespace: dict[str, Any] = {}
    original = socket.socket.connect, socket.socket.connect_ex
    try:
        exec(OFFLINE_GUARD, namespace)
        with socket.socket() as s, pytest.raises(OSError, match="network access"):
            s.connect(("93.184.216.34", 80))
    finally:
        socket.socket.connect, socket.socket.connect_ex = original


# -- every notebook runs, offline, with the fake models --------------------------------


@pytest.mark.slow
@pytest.mark.timeout(RUN_TIMEOUT)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_runs_offline(name: str, tmp_path: Path) -> None:
    _require(name)
    shared = Path(os.environ.get("MEMO_SHARED_DIR", REPO.parent / "shared"))
    if name.startswith("05_") and not (shared / "eval" / "qa" / "corpus.jsonl").exists():
        pytest.skip(f"{shared}/eval/qa is absent: the evaluation notebook has nothing to measure")
    nb, seconds = run_notebook(NOTEBOOKS / name, tmp_path)
    text = printed(nb)
    missing = [line for line in EXPECTED[name] if line not in text]
    assert missing == [], f"{name} did not print {missing}; it printed:\n{text[-4000:]}"
    assert image_count(nb) >= IMAGES.get(name, 0)
    # Files went to the temporary folder (here the test's), never into the repository.
    assert list(tmp_path.glob("memo-notebook-*")), "the notebook wrote no scratch folder"
    print(f"{name}: {seconds:.1f} s")


@pytest.mark.slow
@pytest.mark.timeout(RUN_TIMEOUT)
def test_evaluation_notebook_skips_cleanly_without_data(tmp_path: Path) -> None:
    empty = tmp_path / "no-shared"
    empty.mkdir()
    nb, _ = run_notebook(NOTEBOOKS / "05_evaluation.ipynb", tmp_path, MEMO_SHARED_DIR=str(empty))
    text = printed(nb)
    assert "SKIPPED: evaluation data not found" in text
    assert "MRR@10" not in text and image_count(nb) == 0


# -- the real-model branch, against a stub endpoint on 127.0.0.1 ----------------------

_PASSAGE = re.compile(r'<passage n="(\d+)">\n(.*?)\n</passage>', re.S)
_WORD = re.compile(r"\w+")


def _stub_reply(messages: list[dict[str, str]]) -> str:
    """A plausible model: quotes the passage sentence sharing most words with the question."""
    system, user = messages[0]["content"], messages[-1]["content"]
    if "numbered passages" in system:
        question = set(_WORD.findall(user.rsplit("Question:", 1)[-1].lower()))
        candidates = [
            (len(question & set(_WORD.findall(sentence.lower()))), int(n), sentence)
            for n, text in _PASSAGE.findall(user)
            for sentence in re.split(r"(?<=[.!?])\s+", text.strip())
        ]
        _, n, sentence = max(candidates, key=lambda c: c[0])
        claim = {"text": sentence, "citations": [{"passage": n, "quote": sentence}]}
        return json.dumps({"claims": [claim], "unsupported": []})
    if '"keep"' in system:
        return '{"keep": false, "facts": []}'
    if '"relation"' in system:
        return '{"relation": "independent"}'
    return "stub model reply"


class _StubEndpoint:
    """A minimal OpenAI-compatible /chat/completions server recording every request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                outer.requests.append({"path": self.path, "body": body})
                content = _stub_reply(body["messages"])
                data = json.dumps(
                    {"choices": [{"message": {"role": "assistant", "content": content}}]}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def endpoint() -> Iterator[_StubEndpoint]:
    server = _StubEndpoint()
    yield server
    server.close()


@pytest.mark.slow
@pytest.mark.network
@pytest.mark.timeout(RUN_TIMEOUT)
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("01_knowledge_base.ipynb", ["refused: False", "KEPT    '"]),
        ("02_memory.ipynb", ["stub model reply", "anything about amoxicillin? False"]),
    ],
)
def test_notebook_uses_the_configured_endpoint(
    endpoint: _StubEndpoint, name: str, expected: list[str], tmp_path: Path
) -> None:
    _require(name)
    nb, _ = run_notebook(
        NOTEBOOKS / name,
        tmp_path,
        MEMO_LLM_BASE_URL=endpoint.url,
        MEMO_LLM_MODEL="stub-model",
        MEMO_LLM_API_KEY="sk-test",
    )
    text = printed(nb)
    assert "FakeLLM" not in text
    missing = [line for line in expected if line not in text]
    assert missing == [], f"{name} did not print {missing}; it printed:\n{text[-4000:]}"
    assert endpoint.requests, "the notebook never called the configured endpoint"
    for request in endpoint.requests:
        assert request["path"] == "/v1/chat/completions"
        assert request["body"]["model"] == "stub-model"
        assert "tools" not in request["body"]
