"""Rebuild the pydoc evaluation documents from this Python's standard library, and check the questions.

    python bench/data/answer/build_docs.py            # write docs/ (txt, md, html, pdf) + manifest.json
    python bench/data/answer/build_docs.py --check    # validate questions.jsonl against the rebuilt text

The documents are the standard library's own docstrings rendered by ``pydoc``:
real text nobody on the team wrote, present with every Python, so nothing
third-party is committed: only this script and the questions written over it.
Each module is written in four formats, so every extractor and locator is
exercised:

* ``txt/NAME.txt``: ``pydoc.render_doc(..., renderer=pydoc.plaintext)``, as is;
* ``md/NAME.md``: the same docstrings under one heading per module, class,
  method and function (``# json``, ``## json.JSONDecoder``,
  ``### json.JSONDecoder.decode``), so heading locators matter;
* ``html/NAME.html``: ``pydoc.HTMLDoc``'s page for the module;
* ``pdf/NAME.pdf``: the plain text typeset in Courier over several pages, so
  page locators matter (core PDF fonts are Latin-1: other characters become "?").

``manifest.json`` records the Python version (docstrings differ between
versions), and for each module where every Markdown section and every PDF page
starts in its text, which the evaluator uses to check the heading and page of a
citation. Questions whose answer span is not in this Python's text are skipped
(and counted) by the evaluator, not failed.
"""

from __future__ import annotations

import argparse
import html
import inspect
import json
import pydoc
import re
import sys
from collections import Counter
from collections.abc import Collection
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
QUESTIONS = HERE / "questions.jsonl"
FORMATS = ("txt", "md", "html", "pdf")
KINDS = ("answerable", "near_miss", "nonexistent")

#: The modules rendered, in a fixed order (the evaluator's mixed run gives module i format i % 4).
MODULES = (
    "json",
    "csv",
    "datetime",
    "pathlib",
    "shutil",
    "subprocess",
    "sqlite3",
    "logging",
    "argparse",
    "collections",
    "itertools",
    "functools",
    "heapq",
    "bisect",
    "textwrap",
    "zipfile",
    "tarfile",
    "gzip",
    "hashlib",
    "hmac",
    "secrets",
    "uuid",
    "fractions",
    "statistics",
    "random",
    "re",
    "string",
    "struct",
    "urllib.parse",
    "threading",
    "queue",
    "asyncio.locks",
    "contextlib",
    "dataclasses",
    "doctest",
    "timeit",
    "calendar",
    "locale",
    "gettext",
    "base64",
    "binascii",
    "unicodedata",
    "difflib",
    "fnmatch",
    "glob",
    "tempfile",
    "os.path",
    "mmap",
    "select",
    "shlex",
    "copy",
    "pprint",
    "operator",
    "math",
)

PDF_WIDTH = 90  # characters per Courier line on A4 at 9 pt with 15 mm margins
PDF_LINE_MM = 4.0


# --------------------------------------------------------------------------- rendering


#: A default shown as an object's repr carries its memory address (``<object object at
#: 0x7f...>``), different on every run: dropped, so a rebuild gives the same bytes.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+(?=[>;]|&gt;)")


def stable(text: str) -> str:
    """``text`` as any machine renders it: without the memory addresses of reprs (see
    :data:`_ADDRESS`), and this interpreter's path (a default of ``platform.architecture``)
    written ``python``."""
    return _ADDRESS.sub("", text.replace(sys.executable, "python"))


def render_text(name: str) -> str:
    return stable(pydoc.render_doc(name, renderer=pydoc.plaintext))


def render_html(name: str) -> str:
    obj, _ = pydoc.resolve(name)
    return stable(pydoc.html.page(pydoc.describe(obj), pydoc.html.document(obj, name)))


def _safe_markdown(text: str) -> str:
    """Indent docstring lines that Markdown would read as headings (``# x``, ``----``)."""
    out = []
    for line in text.split("\n"):
        if re.match(r"^ {0,3}(#|=+\s*$|-+\s*$)", line):
            line = "    " + line
        out.append(line)
    return "\n".join(out)


def _signature(name: str, obj: Any) -> str:
    try:
        return f"{name}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        return f"{name}(...)"


def _module_members(module: Any) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """Classes and functions pydoc's text renderer shows for ``module`` (same filter)."""
    names = getattr(module, "__all__", None)
    classes = [
        (key, value)
        for key, value in inspect.getmembers(module, inspect.isclass)
        if (names is not None or (inspect.getmodule(value) or module) is module)
        and pydoc.visiblename(key, names, module)
    ]
    functions = [
        (key, value)
        for key, value in inspect.getmembers(module, inspect.isroutine)
        if (names is not None or inspect.isbuiltin(value) or inspect.getmodule(value) is module)
        and pydoc.visiblename(key, names, module)
    ]
    return classes, functions


def _class_members(cls: type) -> list[tuple[str, Any]]:
    """The class's own documented methods and properties, in pydoc's order."""
    members = []
    for attr in inspect.classify_class_attrs(cls):
        if attr.defining_class is not cls or not pydoc.visiblename(attr.name, obj=cls):
            continue
        # Dunder methods are slot wrappers with one-line generic docs ("Return self+value."):
        # headings over them would only be noise; pydoc's text keeps them.
        if attr.name.startswith("__") and attr.name not in ("__init__", "__call__"):
            continue
        if attr.kind in ("method", "class method", "static method", "property"):
            members.append((attr.name, getattr(cls, attr.name, attr.object)))
    return sorted(members)


def render_markdown(name: str) -> tuple[str, list[tuple[int, str]]]:
    """The module as Markdown, and (offset, heading path) of every section it holds."""
    module, _ = pydoc.resolve(name)
    parts: list[str] = []
    sections: list[tuple[int, str]] = []
    size = 0

    def section(level: int, path: list[str], body: list[str]) -> None:
        nonlocal size
        sections.append((size, " > ".join(path)))
        block = "#" * level + " " + path[-1] + "\n\n" + "\n\n".join(b for b in body if b) + "\n\n"
        block = stable(block)
        parts.append(block)
        size += len(block)

    top = name
    section(1, [top], [_safe_markdown(pydoc.getdoc(module))])
    classes, functions = _module_members(module)
    for cname, cls in classes:
        heading = f"{name}.{cname}"
        section(2, [top, heading], [_signature(cname, cls), _safe_markdown(pydoc.getdoc(cls))])
        for mname, member in _class_members(cls):
            doc = pydoc.getdoc(member)
            if not doc or doc.startswith("Initialize self."):
                continue
            sig = mname if isinstance(member, property) else _signature(mname, member)
            section(3, [top, heading, f"{heading}.{mname}"], [sig, _safe_markdown(doc)])
    for fname, func in functions:
        section(
            2,
            [top, f"{name}.{fname}"],
            [_signature(fname, func), _safe_markdown(pydoc.getdoc(func))],
        )
    return "".join(parts), sections


def render_pdf(text: str, title: str, path: Path) -> list[int]:
    """Typeset ``text`` line by line; return the offset in ``text`` where each page starts."""
    from fpdf import FPDF  # the `bench` extra

    pdf = FPDF(format="A4", unit="mm")
    pdf.set_auto_page_break(False)
    pdf.set_margins(15, 15, 15)
    pdf.set_title(title)
    pdf.set_font("Courier", size=9)
    bottom = pdf.h - 15
    page_starts: list[int] = []
    for line, at in _pdf_lines(text):
        if not page_starts or pdf.get_y() + PDF_LINE_MM > bottom:
            pdf.add_page()
            page_starts.append(at)
        pdf.cell(
            0,
            PDF_LINE_MM,
            line.encode("latin-1", "replace").decode("latin-1"),
            new_x="LMARGIN",
            new_y="NEXT",
        )
    pdf.output(str(path))
    return page_starts


def _pdf_lines(text: str) -> list[tuple[str, int]]:
    """The text's lines wrapped at ``PDF_WIDTH`` (at spaces), each with its offset in ``text``."""
    lines: list[tuple[str, int]] = []
    offset = 0
    for raw in text.split("\n"):
        at = offset
        rest = raw
        while len(rest) > PDF_WIDTH:
            cut = rest.rfind(" ", 1, PDF_WIDTH + 1)
            cut = cut if cut > 0 else PDF_WIDTH
            lines.append((rest[:cut], at))
            skipped = len(rest[cut:]) - len(rest[cut:].lstrip(" "))
            at += cut + skipped
            rest = rest[cut + skipped :]
        lines.append((rest, at))
        offset += len(raw) + 1
    return lines


def file_stem(name: str) -> str:
    return name.replace(".", "_")


def write_document(
    out: Path,
    stem: str,
    text: str,
    markdown: tuple[str, list[tuple[int, str]]],
    page: str,
    title: str,
) -> dict[str, Any]:
    """Write one document in every format under ``out``; its manifest entry (files, locators)."""
    (out / "txt" / f"{stem}.txt").write_text(text, encoding="utf-8")
    (out / "md" / f"{stem}.md").write_text(markdown[0], encoding="utf-8")
    (out / "html" / f"{stem}.html").write_text(page, encoding="utf-8")
    return {
        "files": {fmt: f"{fmt}/{stem}.{fmt}" for fmt in FORMATS},
        "txt_chars": len(text),
        "md_sections": markdown[1],
        "pdf_page_starts": render_pdf(text, title, out / "pdf" / f"{stem}.pdf"),
    }


def build(out: Path = DOCS, modules: Collection[str] = MODULES) -> dict[str, Any]:
    """Render ``modules`` (the library set passes its own) in every format; the manifest."""
    for fmt in FORMATS:
        (out / fmt).mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "python": list(sys.version_info[:3]),
        "python_version": sys.version,
        "modules": {},
    }
    for name in modules:
        stem = file_stem(name)
        text = render_text(name)
        markdown, sections = render_markdown(name)
        manifest["modules"][name] = write_document(
            out, stem, text, (markdown, sections), render_html(name), f"pydoc {name}"
        )
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


# --------------------------------------------------------------------------- span look-up

#: Between two words of a span: whitespace, and the " | " bars pydoc's text draws beside class bodies.
_GAP = r"\s[\s|]*"


def span_pattern(span: str) -> re.Pattern[str]:
    """``span`` as a regex that tolerates line breaks, indentation and pydoc's class bars."""
    words = span.split()
    return re.compile(_GAP.join(re.escape(w) for w in words))


def find_span(text: str, span: str) -> list[int]:
    """Every offset where ``span`` occurs in ``text`` up to layout (see :func:`span_pattern`)."""
    return [m.start() for m in span_pattern(span).finditer(text)]


def normalize(text: str) -> str:
    """Case-folded, single-spaced, pydoc bars and asterisks removed: what "the quote holds
    the answer" compares. A docstring's ``*name*`` is emphasis to a Markdown reader, and
    memo stores a Markdown document as it reads, so a quote of it says ``name``."""
    text = html.unescape(text).replace("\u00a0", " ").replace("*", "")
    return " ".join(re.sub(r"(?<=\s)\|(?=\s)", " ", text).split()).casefold()


# --------------------------------------------------------------------------- validation


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def validate(
    questions: list[dict[str, Any]], docs: Path = DOCS, documents: Collection[str] = MODULES
) -> list[str]:
    """Problems with the question set on this Python's rebuilt text (empty when all is well).

    ``documents`` are the names a question's ``doc`` may take (the topics set
    reuses these rules over its own documents).

    Answerable: the answer span occurs in the module's text AND Markdown (up to
    layout). Nonexistent: the ``absent`` term it asks about does NOT occur in the
    module's text (so the question really names something that is not there).
    Near-miss questions carry an ``absent`` term too when one names what is missing.
    """
    problems: list[str] = []
    seen: set[str] = set()
    texts: dict[str, tuple[str, str]] = {}
    for q in questions:
        qid = q.get("id", "?")
        missing = {"id", "question", "kind", "doc", "formats"} - set(q)
        if missing:
            problems.append(f"{qid}: missing fields {sorted(missing)}")
            continue
        if qid in seen:
            problems.append(f"{qid}: duplicate id")
        seen.add(qid)
        if q["kind"] not in KINDS:
            problems.append(f"{qid}: unknown kind {q['kind']!r}")
        if q["doc"] not in documents:
            problems.append(f"{qid}: unknown doc {q['doc']!r}")
            continue
        if not set(q["formats"]) <= set(FORMATS) or not q["formats"]:
            problems.append(f"{qid}: bad formats {q['formats']!r}")
        if q["doc"] not in texts:
            stem = file_stem(q["doc"])
            texts[q["doc"]] = (
                (docs / "txt" / f"{stem}.txt").read_text(encoding="utf-8"),
                (docs / "md" / f"{stem}.md").read_text(encoding="utf-8"),
            )
        text, markdown = texts[q["doc"]]
        if q["kind"] == "answerable":
            span = q.get("answer", "")
            if len(span.split()) < 1 or not span.strip():
                problems.append(f"{qid}: empty answer span")
            elif not find_span(text, span):
                problems.append(f"{qid}: answer span not in {q['doc']} text: {span!r}")
            elif not find_span(markdown, span):
                problems.append(f"{qid}: answer span not in {q['doc']} Markdown: {span!r}")
        else:
            if q.get("answer"):
                problems.append(f"{qid}: a {q['kind']} question has an answer span")
            absent = q.get("absent")
            if q["kind"] == "nonexistent" and not absent:
                problems.append(
                    f"{qid}: a nonexistent question needs the `absent` term it asks about"
                )
            if absent and re.search(
                r"(?<!\w)" + re.escape(absent) + r"(?!\w)", text, re.IGNORECASE
            ):
                problems.append(f"{qid}: `absent` term {absent!r} IS in {q['doc']} text")
    return problems


def check(min_per_kind: dict[str, int] | None = None) -> int:
    wanted = min_per_kind or {"answerable": 100, "near_miss": 80, "nonexistent": 80}
    return run_check(DOCS, build, load_questions, validate, wanted)


def run_check(
    docs: Path, run_build: Any, load: Any, run_validate: Any, wanted: dict[str, int]
) -> int:
    """Validate a builder's questions on this Python's documents (built when absent) and
    print the problems and the counts per kind (too few of a kind is a problem); exit code."""
    if not (docs / "manifest.json").exists():
        run_build(docs)
    questions = load()
    problems = run_validate(questions, docs)
    counts = Counter(q["kind"] for q in questions)
    for kind, least in wanted.items():
        if counts[kind] < least:
            problems.append(f"only {counts[kind]} {kind} questions (want >= {least})")
    for line in problems:
        print(line)
    print(
        f"{len(questions)} questions ({dict(counts)}), {len(problems)} problems, "
        f"Python {'.'.join(map(str, sys.version_info[:3]))}"
    )
    return 1 if problems else 0


def cli(doc: str, out: Path, run_build: Any, run_check: Any, noun: str) -> None:
    """The command line both document builders share: build into ``--out``, or ``--check``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="validate questions.jsonl")
    parser.add_argument("--out", type=Path, default=out, help="output folder")
    args = parser.parse_args()
    if args.check:
        sys.exit(run_check())
    manifest = run_build(args.out)
    print(f"{len(manifest['modules'])} {noun} x {len(FORMATS)} formats -> {args.out}")


def main() -> None:
    cli(__doc__, DOCS, build, check, "modules")


if __name__ == "__main__":
    main()
