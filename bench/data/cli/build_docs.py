"""Rebuild the command-line help evaluation documents from this Python, and check the questions.

    python bench/data/cli/build_docs.py            # write docs/ (txt, md, html, pdf) + manifest.json
    python bench/data/cli/build_docs.py --check    # validate questions.jsonl in every format

A fifth dev set, of a different shape from the other four (reference prose):
option lists. The documents are the ``--help`` output of the interpreter
(``python -h``, ``--help-env``, ``--help-xoptions``) and of the standard
library's command-line tools (``python -m http.server -h``, ``json.tool``,
``unittest``, ``timeit``, ``trace``, ...): a usage line, a description, then
options and their help, one entry per option (``-b ADDRESS, --bind ADDRESS``
then ``bind to this address (default: all interfaces)``), wrapped into a help
column, with argparse's descriptions and epilogs. Everything is present with
every Python, so nothing third-party is committed: only this script and the
questions written over its output.

The help is produced the same way on every machine: each tool runs in a child
interpreter in isolated mode (``-I``, no ``PYTHON*`` variables, no user site),
with warnings off, in an empty working folder, with ``COLUMNS=80`` (argparse
wraps at the terminal width) and its program name fixed to ``python -m NAME``
(what argparse and optparse print as ``prog``); the interpreter's own path is
written ``python``. A help text that still names a path of this machine is an
error, not a document.

Each tool is written in four formats, with the pydoc set's PDF typesetting and
manifest (``bench/data/answer/build_docs.py``):

* ``txt/NAME.txt``: the command, a blank line, the help as printed;
* ``md/NAME.md``: the command as ``#`` heading, each section title of the help
  (``options:``, ``positional arguments:``, ``Options (and corresponding
  environment variables):``) as a ``##`` heading, the rest as printed;
* ``html/NAME.html``: what a manual page converter gives: headings, paragraphs
  as ``<p>``, option entries as a definition list (``<dt>`` the option,
  ``<dd>`` its help), other indented blocks as ``<pre>``;
* ``pdf/NAME.pdf``: the plain text in Courier over several pages.

:func:`validate` is the library set's check (``bench/data/library``): every
answer span in the text, the Markdown, the HTML page's text and the PDF's
extracted text, and every ``absent`` term not in the text.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
QUESTIONS = HERE / "questions.jsonl"

#: The terminal width the help is wrapped at (argparse reads ``COLUMNS``).
COLUMNS = 80

#: Document name -> the interpreter's arguments that print its help. A ``-m`` tool
#: runs through :data:`_RUN_AS`, so its program name is ``python -m NAME``. In a
#: fixed order (the evaluator's mixed run gives tool i format i % 4).
TOOLS: dict[str, tuple[str, ...]] = {
    "python": ("-h",),
    "python-env": ("--help-env",),
    "python-xoptions": ("--help-xoptions",),
    "http.server": ("-m", "http.server", "-h"),
    "json.tool": ("-m", "json.tool", "-h"),
    "zipfile": ("-m", "zipfile", "-h"),
    "tarfile": ("-m", "tarfile", "-h"),
    "gzip": ("-m", "gzip", "-h"),
    "unittest": ("-m", "unittest", "-h"),
    "timeit": ("-m", "timeit", "-h"),
    "cProfile": ("-m", "cProfile", "-h"),
    "trace": ("-m", "trace", "-h"),
    "calendar": ("-m", "calendar", "-h"),
    "compileall": ("-m", "compileall", "-h"),
    "py_compile": ("-m", "py_compile", "-h"),
    "pdb": ("-m", "pdb", "-h"),
    "venv": ("-m", "venv", "-h"),
    "ensurepip": ("-m", "ensurepip", "-h"),
    "ast": ("-m", "ast", "-h"),
    "tokenize": ("-m", "tokenize", "-h"),
    "pickletools": ("-m", "pickletools", "-h"),
    "pickle": ("-m", "pickle", "-h"),
    "base64": ("-m", "base64", "-h"),
    "site": ("-m", "site", "-h"),
    "webbrowser": ("-m", "webbrowser", "-h"),
    "doctest": ("-m", "doctest", "-h"),
    "zipapp": ("-m", "zipapp", "-h"),
    "mimetypes": ("-m", "mimetypes", "-h"),
    "inspect": ("-m", "inspect", "-h"),
    "pydoc": ("-m", "pydoc", "-h"),
    "code": ("-m", "code", "-h"),
    "uu": ("-m", "uu", "-h"),
    "quopri": ("-m", "quopri", "-h"),
    "lib2to3": ("-m", "lib2to3", "-h"),
    "smtpd": ("-m", "smtpd", "-h"),
    "nntplib": ("-m", "nntplib", "-h"),
    "idlelib": ("-m", "idlelib", "-h"),
}

#: Runs ``-m NAME ARGS...`` with ``sys.argv[0]`` set to ``python -m NAME`` (``python -m``
#: itself sets it to the module's file, a path of this machine).
_RUN_AS = (
    "import runpy, sys; name = sys.argv[1]; sys.argv = ['python -m ' + name, *sys.argv[2:]]; "
    "runpy.run_module(name, run_name='__main__', alter_sys=False)"
)

#: A line that titles a section of a help text: unindented, ending with a colon,
#: not an option (``--check-hash-based-pycs always|default|never:``) nor a usage line.
_TITLE = re.compile(r"^(?![-\s])(?!usage:)(?!Usage:)[^\n]{1,90}:$")


def _pydoc_builder() -> Any:
    return _script("memo_bench_build_docs", HERE.parent / "answer" / "build_docs.py")


def _library_builder() -> Any:
    return _script("memo_bench_library_docs", HERE.parent / "library" / "build_docs.py")


def _script(name: str, path: Path) -> Any:
    """A sibling builder script as a module, under the name bench/answer_sets.py gives it."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


_pd = _pydoc_builder()
_lib = _library_builder()


def __getattr__(name: str) -> Any:
    """What this set does as the pydoc set does (``FORMATS``, ``KINDS``, ``find_span``,
    ``span_pattern``, ``normalize``, ``file_stem``, ...) is the pydoc builder's own."""
    return getattr(_pd, name)


# --------------------------------------------------------------------------- the help texts


def command(name: str) -> str:
    """The command line a user types for ``name``'s help (the document's first line)."""
    return " ".join(["python", *TOOLS[name]])


def help_text(name: str) -> str:
    """What ``name``'s help prints (stdout, then stderr), the same on every machine."""
    args = TOOLS[name]
    argv = [sys.executable, "-I", "-W", "ignore"]
    argv += ["-c", _RUN_AS, *args[1:]] if args[0] == "-m" else list(args)
    env = {"COLUMNS": str(COLUMNS), "LINES": "24", "LC_ALL": "C.UTF-8", "PATH": os.defpath}
    with tempfile.TemporaryDirectory() as empty:
        run = subprocess.run(
            argv, cwd=empty, env=env, capture_output=True, text=True, timeout=60, check=False
        )
    out = run.stdout + run.stderr
    out = out.replace(sys.executable, "python")
    lines = [line.rstrip() for line in out.strip("\n").split("\n")]
    text = "\n".join(lines) + "\n"
    for local in {sys.prefix, sys.base_prefix, sys.exec_prefix, str(Path.home()), empty}:
        if local and local != "/" and local in text:
            raise RuntimeError(f"{name}: the help names a path of this machine ({local})")
    if "Traceback (most recent call last)" in text or len(lines) < 3:
        raise RuntimeError(f"{name}: no help printed:\n{text}")
    return text


def render_text(name: str) -> str:
    return command(name) + "\n\n" + help_text(name)


# --------------------------------------------------------------------------- rendering


def markdown_of(text: str) -> tuple[str, list[tuple[int, str]]]:
    """``text`` as Markdown, and (offset, heading path) of every section it holds."""
    lines = text.split("\n")
    top = lines[0]
    out = ["# " + top]
    sections = [(0, top)]
    size = len(out[0]) + 1
    for line in lines[1:]:
        if _TITLE.match(line):
            title = line[:-1]
            sections.append((size, f"{top} > {title}"))
            block = "## " + title
        else:
            block = _pd._safe_markdown(line)
        out.append(block)
        size += len(block) + 1
    return "\n".join(out), sections


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


#: An option entry's first line: the option, then its help after two spaces or a
#: colon (``-b     : issue warnings``, ``PYTHONUTF8: if set``, ``--help / -h  -- print``).
_ENTRY = re.compile(r"(?P<term>\S.*?)(?: {2,}(?:[:-]+ +)?| ?: +)(?P<help>\S.*)")


def _entry(line: str) -> tuple[str, str]:
    """(option, help) of an entry's first line; the help is empty when it starts below."""
    stripped = line.strip()
    found = _ENTRY.fullmatch(stripped)
    if found and len(found["term"]) <= 40:
        return found["term"], found["help"]
    return stripped.rstrip(":"), ""


def _definitions(block: list[str]) -> list[tuple[str, list[str]]] | None:
    """``block`` read as option entries (option, help lines), or None when it is not a list.

    An entry starts at the block's own indentation; a deeper line goes on its help.
    An entry with no help on its line must have some below, and the first must be
    an option, a placeholder or a variable (prose is never a definition list).
    """
    base = _indent(block[0])
    first = block[0].strip()
    option = base or first.startswith("-") or re.match(r"[A-Z][A-Z0-9_]{2,}\b", first)
    if not option and not any(_indent(line) > base for line in block[1:]):
        return None
    entries: list[tuple[str, list[str]]] = []
    for line in block:
        if _indent(line) > base and entries:
            entries[-1][1].append(line.strip())
        elif _indent(line) == base:
            term, help_ = _entry(line)
            entries.append((term, [help_] if help_ else []))
        else:
            return None
    if not all(helps for _, helps in entries[:-1]) or not any(h for _, h in entries):
        return None
    return entries


def html_of(text: str) -> str:
    """``text`` as a manual page converter renders it (see the module docstring)."""
    lines = text.split("\n")
    body: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if not block:
            return
        entries = None if block[0].lower().startswith("usage:") else _definitions(block)
        if entries:
            body.append("<dl>")
            for term, helps in entries:
                body.append(f"<dt>{html.escape(term)}</dt>")
                if helps:
                    body.append("<dd>" + html.escape("\n".join(helps)) + "</dd>")
            body.append("</dl>")
        else:
            tag = "p" if all(not line.startswith(" ") for line in block) else "pre"
            if block[0].lower().startswith("usage:"):
                tag = "pre"
            body.append(f"<{tag}>" + html.escape("\n".join(block)) + f"</{tag}>")
        block.clear()

    for line in lines[1:]:
        if _TITLE.match(line):
            flush()
            body.append(f"<h2>{html.escape(line[:-1])}</h2>")
        elif not line.strip():
            flush()
        else:
            block.append(line)
    flush()
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(lines[0])}</title></head>\n<body>\n"
        f"<h1>{html.escape(lines[0])}</h1>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def build(out: Path = DOCS) -> dict[str, Any]:
    """Render every tool of :data:`TOOLS` in every format; the manifest."""
    for fmt in _pd.FORMATS:
        (out / fmt).mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "python": list(sys.version_info[:3]),
        "python_version": sys.version,
        "columns": COLUMNS,
        "commands": {name: command(name) for name in TOOLS},
        "modules": {},  # the pydoc set's manifest shape, keyed by tool
    }
    for name in TOOLS:
        text = render_text(name)
        manifest["modules"][name] = _pd.write_document(
            out, _pd.file_stem(name), text, markdown_of(text), html_of(text), command(name)
        )
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


# --------------------------------------------------------------------------- validation


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    return _pd.load_questions(path)  # type: ignore[no-any-return]


def validate(
    questions: list[dict[str, Any]], docs: Path = DOCS, documents: Collection[str] = tuple(TOOLS)
) -> list[str]:
    """Problems with the question set on this Python's rebuilt help (empty when all is well):
    the library set's rules, every answer span in all four renderings."""
    return _lib.validate(questions, docs, documents=documents)  # type: ignore[no-any-return]


def check(min_per_kind: dict[str, int] | None = None) -> int:
    wanted = min_per_kind or {"answerable": 150, "near_miss": 45, "nonexistent": 45}
    return _pd.run_check(DOCS, build, load_questions, validate, wanted)  # type: ignore[no-any-return]


def main() -> None:
    _pd.cli(__doc__, DOCS, build, check, "tools")


if __name__ == "__main__":
    main()
