"""Rebuild the Language Reference evaluation documents from this Python, and check the questions.

    python bench/data/topics/build_docs.py            # write docs/ (txt, md, html, pdf) + manifest.json
    python bench/data/topics/build_docs.py --check    # validate questions.jsonl against the rebuilt text

The documents are the Python Language Reference sections shipped with every
Python as ``pydoc_data.topics.topics`` (the texts ``help("if")``,
``help("FORMATTING")`` ... show): long reference prose with grammar rules,
code examples and nested section headings, a different shape from the pydoc
set's API docstrings (``bench/data/answer``) and SQuAD's single paragraphs.
Nothing third-party is committed: only this script and the questions written
over its output.

Several topics are sections of others (``if`` is a section of ``compound``,
``customization`` of ``specialnames``). A topic is left out when every
paragraph of it longer than 80 characters is also in a larger topic kept
before it, so each passage is in the base once (:func:`topic_names`); the
Python version and the kept topics are recorded in ``manifest.json``.

Each topic is written in four formats, rendered the way the pydoc set renders
them and with its PDF typesetting (``bench/data/answer/build_docs.py``):

* ``txt/NAME.txt``: the topic text as Python ships it;
* ``md/NAME.md``: the same text with its underlined section titles as Markdown
  headings (``*`` level 1, ``=`` 2, ``-`` 3, ``~`` 4), so heading locators matter;
* ``html/NAME.html``: headings as ``<h1>``-``<h4>``, paragraphs as ``<p>``,
  indented blocks (grammar rules, examples, notes) as ``<pre>``;
* ``pdf/NAME.pdf``: the plain text in Courier over several pages (core PDF
  fonts are Latin-1: the typographic quotes and dashes of the text become "?",
  so answer spans are kept to Latin-1, which :func:`validate` checks).
"""

from __future__ import annotations

import html
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
QUESTIONS = HERE / "questions.jsonl"

#: Below this many characters a paragraph does not decide whether a topic repeats another.
MIN_PARAGRAPH = 80

#: Underline character of a section title -> Markdown heading level (Sphinx's text builder).
UNDERLINES = {"*": 1, "=": 2, "-": 3, "~": 4}


def _pydoc_builder() -> Any:
    """bench/data/answer/build_docs.py, whose PDF typesetting, span look-up and checks are reused."""
    name = "memo_bench_build_docs"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE.parent / "answer" / "build_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_pd = _pydoc_builder()
FORMATS: tuple[str, ...] = _pd.FORMATS
KINDS: tuple[str, ...] = _pd.KINDS
find_span = _pd.find_span
span_pattern = _pd.span_pattern
normalize = _pd.normalize
file_stem = _pd.file_stem


def _topics() -> dict[str, str]:
    from pydoc_data.topics import topics

    return dict(topics)


def topic_names(topics: dict[str, str] | None = None) -> list[str]:
    """The topics rendered, sorted by name: every topic but those wholly repeated by a larger one."""
    topics = _topics() if topics is None else topics
    kept: list[str] = []
    for name in sorted(topics, key=lambda n: (-len(topics[n]), n)):
        paragraphs = [p for p in topics[name].split("\n\n") if len(p.strip()) > MIN_PARAGRAPH]
        if paragraphs and all(any(p in topics[k] for k in kept) for p in paragraphs):
            continue
        kept.append(name)
    return sorted(kept)


# --------------------------------------------------------------------------- rendering


def _titles(text: str) -> dict[int, tuple[int, str]]:
    """Line index -> (heading level, title) of every underlined section title in ``text``."""
    lines = text.split("\n")
    found = {}
    for i, (line, under) in enumerate(zip(lines, [*lines[1:], ""], strict=True)):
        if (
            line.strip()
            and under
            and under[0] in UNDERLINES
            and set(under) == {under[0]}
            and len(under) == len(line)
        ):
            found[i] = (UNDERLINES[under[0]], line.strip())
    return found


def render_text(name: str) -> str:
    text = _topics()[name]
    return text if text.endswith("\n") else text + "\n"


def markdown_of(text: str) -> tuple[str, list[tuple[int, str]]]:
    """``text`` as Markdown, and (offset, heading path) of every section it holds."""
    titles = _titles(text)
    out: list[str] = []
    sections: list[tuple[int, str]] = []
    path: list[str] = []
    size = 0
    for i, line in enumerate(text.split("\n")):
        if i - 1 in titles:  # the underline of the title just written
            continue
        if i in titles:
            level, title = titles[i]
            path = [*path[: level - 1], title]
            sections.append((size, " > ".join(path)))
            block = "#" * level + " " + title
        else:
            block = _pd._safe_markdown(line)
        out.append(block)
        size += len(block) + 1
    return "\n".join(out), sections


def html_of(text: str, name: str) -> str:
    """``text`` as an HTML page: headings, paragraphs, and indented blocks kept as ``<pre>``."""
    titles = _titles(text)
    body: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            # Grammar rules, examples and notes are indented in the text: keep their lines.
            tag = "pre" if all(line.startswith(" ") for line in paragraph) else "p"
            body.append(f"<{tag}>" + html.escape("\n".join(paragraph)) + f"</{tag}>")
            paragraph.clear()

    for i, line in enumerate(text.split("\n")):
        if i - 1 in titles:
            continue
        if i in titles:
            flush()
            level, title = titles[i]
            body.append(f"<h{level}>{html.escape(title)}</h{level}>")
        elif not line.strip():
            flush()
        else:
            paragraph.append(line)
    flush()
    title = titles[min(titles)][1] if titles else name
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def build(out: Path = DOCS) -> dict[str, Any]:
    for fmt in FORMATS:
        (out / fmt).mkdir(parents=True, exist_ok=True)
    names = topic_names()
    manifest: dict[str, Any] = {
        "python": list(sys.version_info[:3]),
        "python_version": sys.version,
        "left_out": sorted(set(_topics()) - set(names)),
        "modules": {},  # the pydoc set's manifest shape, keyed by topic
    }
    for name in names:
        text = render_text(name)
        manifest["modules"][name] = _pd.write_document(
            out, file_stem(name), text, markdown_of(text), html_of(text, name), f"Python: {name}"
        )
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


# --------------------------------------------------------------------------- validation


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    return _pd.load_questions(path)


def validate(
    questions: list[dict[str, Any]], docs: Path = DOCS, documents: list[str] | None = None
) -> list[str]:
    """Problems with the question set on this Python's rebuilt text (empty when all is well).

    The pydoc set's rules (span in the topic's text and Markdown, ``absent`` term
    not in it, well-formed fields), plus: an answer span is Latin-1, so the PDF
    rendering holds it too.
    """
    if documents is None:
        manifest = json.loads((docs / "manifest.json").read_text(encoding="utf-8"))
        documents = list(manifest["modules"])
    problems: list[str] = _pd.validate(questions, docs, documents=documents)
    for q in questions:
        span = q.get("answer") or ""
        try:
            span.encode("latin-1")
        except UnicodeEncodeError:
            problems.append(f"{q.get('id', '?')}: answer span is not Latin-1 (lost in the PDF)")
    return problems


def check(min_per_kind: dict[str, int] | None = None) -> int:
    wanted = min_per_kind or {"answerable": 100, "near_miss": 40, "nonexistent": 30}
    return _pd.run_check(DOCS, build, load_questions, validate, wanted)


def main() -> None:
    _pd.cli(__doc__, DOCS, build, check, "topics")


if __name__ == "__main__":
    main()
