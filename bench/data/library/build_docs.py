"""Rebuild the library evaluation documents from this Python's standard library, and check the questions.

    python bench/data/library/build_docs.py            # write docs/ (txt, md, html, pdf) + manifest.json
    python bench/data/library/build_docs.py --check    # validate questions.jsonl in every format

A fourth dev set, there to check that what was tuned on the other three carries
over: 32 standard-library modules the pydoc set (``bench/data/answer``) does not
hold, chosen for docstrings that read like reference prose with options,
defaults, exceptions, limits, conditions and versions (compression levels,
protocol numbers, timeouts, flags). They are rendered exactly as the pydoc set
renders its modules, by that set's builder (plain text, Markdown with one
heading per class and function, pydoc's HTML page, the text typeset as PDF),
so nothing third-party is committed: only this script and the questions
written over its output.

:func:`validate` checks every answer span in all four renderings: the text and
the Markdown (the pydoc set's rules), the HTML page with its tags removed, and
the text pypdf extracts from the PDF (so a span is also Latin-1, the core PDF
fonts' alphabet). Questions written on one Python whose span is not in another
Python's text are skipped and counted by the evaluator, not failed.
"""

from __future__ import annotations

import html
import importlib.util
import re
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
QUESTIONS = HERE / "questions.jsonl"

#: The modules rendered, in a fixed order (the evaluator's mixed run gives module i format i % 4).
MODULES = (
    "zlib",
    "bz2",
    "lzma",
    "pickle",
    "shelve",
    "plistlib",
    "configparser",
    "smtplib",
    "ftplib",
    "poplib",
    "http.cookies",
    "ipaddress",
    "array",
    "weakref",
    "traceback",
    "getopt",
    "optparse",
    "sched",
    "selectors",
    "filecmp",
    "fileinput",
    "wave",
    "platform",
    "tracemalloc",
    "zoneinfo",
    "graphlib",
    "mimetypes",
    "py_compile",
    "compileall",
    "webbrowser",
    "cmd",
    "concurrent.futures",
)


def _pydoc_builder() -> Any:
    """bench/data/answer/build_docs.py, loaded once under the name bench/answer_sets.py uses."""
    name = "memo_bench_build_docs"
    if name not in sys.modules:
        path = HERE.parent / "answer" / "build_docs.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


_pd = _pydoc_builder()


def __getattr__(name: str) -> Any:
    """What this set does as the pydoc set does (``FORMATS``, ``KINDS``, ``find_span``,
    ``span_pattern``, ``normalize``, ``file_stem``, ...) is the pydoc builder's own."""
    return getattr(_pd, name)


def build(out: Path = DOCS) -> dict[str, Any]:
    """Render :data:`MODULES` in every format with the pydoc set's builder; the manifest."""
    return _pd.build(out, MODULES)  # type: ignore[no-any-return]


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    return _pd.load_questions(path)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- validation


def html_text(page: str) -> str:
    """An HTML page's text: tags dropped (pydoc links names inside words), entities decoded."""
    return html.unescape(re.sub(r"<br>", "\n", re.sub(r"<(?!br>)[^>]+>", "", page)))


def pdf_text(path: Path) -> str:
    """The text pypdf extracts from a PDF, page after page (what a PDF reader gets)."""
    from pypdf import PdfReader  # the `pdf` extra

    return "\n".join(page.extract_text() or "" for page in PdfReader(path).pages)


def rendered_texts(docs: Path, module: str) -> dict[str, str]:
    """The module's text as each of the four formats gives it."""
    stem = _pd.file_stem(module)
    return {
        "txt": (docs / "txt" / f"{stem}.txt").read_text(encoding="utf-8"),
        "md": (docs / "md" / f"{stem}.md").read_text(encoding="utf-8"),
        "html": html_text((docs / "html" / f"{stem}.html").read_text(encoding="utf-8")),
        "pdf": pdf_text(docs / "pdf" / f"{stem}.pdf"),
    }


def validate(
    questions: list[dict[str, Any]], docs: Path = DOCS, documents: Collection[str] = MODULES
) -> list[str]:
    """Problems with the question set on this Python's rebuilt documents (empty when all is well).

    The pydoc set's rules (well-formed fields, answer span in the module's text
    and Markdown, a ``nonexistent`` question's ``absent`` term not in its text),
    plus: every answer span is Latin-1 and is found, up to layout, in the HTML
    page's text and in the PDF's extracted text too.
    """
    problems: list[str] = _pd.validate(questions, docs, documents=documents)
    broken = {p.split(":", 1)[0] for p in problems}
    texts: dict[str, dict[str, str]] = {}
    for q in questions:
        qid = q.get("id", "?")
        if q.get("kind") != "answerable" or qid in broken:
            continue
        span = q["answer"]
        try:
            span.encode("latin-1")
        except UnicodeEncodeError:
            problems.append(f"{qid}: answer span is not Latin-1 (lost in the PDF)")
            continue
        if q["doc"] not in texts:
            texts[q["doc"]] = rendered_texts(docs, q["doc"])
        for fmt in ("html", "pdf"):
            if not _pd.find_span(texts[q["doc"]][fmt], span):
                problems.append(f"{qid}: answer span not in {q['doc']} {fmt}: {span!r}")
    return problems


def check(min_per_kind: dict[str, int] | None = None) -> int:
    wanted = min_per_kind or {"answerable": 130, "near_miss": 40, "nonexistent": 40}
    return _pd.run_check(DOCS, build, load_questions, validate, wanted)  # type: ignore[no-any-return]


def main() -> None:
    _pd.cli(__doc__, DOCS, build, check, "modules")


if __name__ == "__main__":
    main()
