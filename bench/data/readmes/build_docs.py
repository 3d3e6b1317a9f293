"""Rebuild the project README evaluation documents from the installed distributions, and check the questions.

    python bench/data/readmes/build_docs.py            # write docs/ (txt, md, html, pdf) + manifest.json
    python bench/data/readmes/build_docs.py --check    # validate questions.jsonl in every format

A sixth dev set, of a genre the other five (Python's own documentation and
Wikipedia) do not hold: the project READMEs of third-party Python
distributions, as their authors published them in the package's long
description (``importlib.metadata``'s METADATA body, Markdown or reStructuredText).
Real prose written by others for users: installation steps, feature lists,
badges, quick starts with code, benchmarks, comparison tables, FAQs, changelogs.
They are present offline in the venv the project runs in, so nothing
third-party is committed: only this script and the questions written over its
output.

Licences are what the held-out checks use, so none is a document here: every
section whose heading names a licence or copyright is dropped with its body, so
is every other paragraph (or, inside code, line) that names one, and a
description that loses more than half of its text that way is an error, not a
document. Metadata fields other than the name, version and summary are not used.

The descriptions differ between versions of a distribution: :data:`DISTRIBUTIONS`
pins the version each was written against. Another version is still rendered
(and recorded in the manifest, which is rebuilt when the installed versions
change); a question whose answer span is not in its text, or whose ``absent``
term is, is skipped and counted by the evaluator, not failed, as the other sets
do with another Python. A distribution that is not installed is not rendered, and
its questions are skipped the same way.

Each distribution is written in four formats, with the pydoc set's PDF
typesetting and manifest (``bench/data/answer/build_docs.py``):

* ``txt/NAME.txt``: a title line (``NAME VERSION: summary``), a blank line, the
  description as published (Markdown or reST source, as a README.txt reads);
* ``md/NAME.md``: the description as Markdown: a Markdown one as is, a reST one
  with its section titles (underlined, optionally overlined) as ``#`` headings,
  levels in the order the adornments first appear, the rest as written;
* ``html/NAME.html``: that Markdown rendered by ``markdown-it-py`` (CommonMark
  with tables), as a project page shows it;
* ``pdf/NAME.pdf``: the plain text in Courier over several pages.

:func:`validate` is the library set's check (``bench/data/library``): every
answer span in the text, the Markdown, the HTML page's text and the PDF's
extracted text (so spans carry no markup and are Latin-1), and every ``absent``
term not in the text.
"""

from __future__ import annotations

import html
import importlib.metadata
import importlib.util
import json
import re
import sys
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
QUESTIONS = HERE / "questions.jsonl"

#: Distribution -> the version its questions were written against. In a fixed order
#: (the evaluator's mixed run gives distribution i format i % 4).
DISTRIBUTIONS: dict[str, str] = {
    "httpx": "0.28.1",
    "rich": "15.0.0",
    "RapidFuzz": "3.14.6",
    "pypdf": "7.1.1",
    "markdown-it-py": "4.3.0",
    "wordfreq": "3.1.1",
    "fastembed": "0.9.1",
    "tokenizers": "0.23.3",
    "numpy": "2.4.6",
    "mcp": "1.30.0",
    "langchain-core": "1.8.3",
    "python-dotenv": "1.2.4",
    "loguru": "0.7.3",
    "orjson": "3.13.0",
    "charset-normalizer": "3.5.3",
    "langcodes": "3.5.1",
    "tinytag": "2.3.2",
    "wcwidth": "0.9.4",
    "psutil": "7.2.2",
    "xxhash": "4.1.0",
    "colorama": "0.4.6",
    "msgpack": "1.2.4",
    "h11": "0.16.0",
    "ftfy": "6.3.1",
    "attrs": "26.1.0",
    "httpx-sse": "0.4.3",
    "annotated-types": "0.8.0",
    "pathspec": "1.1.1",
    "num2words": "0.5.14",
    "model2vec": "0.10.0",
    "huggingface_hub": "1.33.0",
    "trafilatura": "2.3.1",
    "defusedxml": "0.7.1",
    "docopt": "0.6.2",
    "pytest-timeout": "2.4.0",
    "cloudpickle": "3.1.3",
    "tzlocal": "5.4.5",
    "dirtyjson": "1.0.8",
    "tld": "0.13.2",
    "jusText": "3.0.2",
    "httpcore": "1.0.9",
    "sse-starlette": "3.7.1",
    "distro": "1.9.0",
    "platformdirs": "4.14.9",
}

#: What names a licence or a copyright (a section title, a paragraph, a badge).
LICENCE = re.compile(r"licen[cs]|copyright|\(c\)\s*\d{4}|\u00a9", re.IGNORECASE)

#: A paragraph that is a licence title in all but markup (``*License?*``, ``**Copyright**``).
PSEUDO_HEADING = re.compile(r"[*_`]*(?:licen[cs](?:e|es|ing)|copyright)\??[*_`]*:?", re.IGNORECASE)

#: The share of a description the licence filter may drop before it is refused.
MAX_DROPPED = 0.5


def _script(name: str, path: Path) -> Any:
    """A sibling builder script as a module, under the name bench/answer_sets.py gives it."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


#: The library set's builder (its four-format check) and the pydoc set's it loads (the writer).
_lib = _script("memo_bench_library_docs", HERE.parent / "library" / "build_docs.py")
_pd = _lib._pd


def __getattr__(name: str) -> Any:
    """What this set does as the pydoc set does (``FORMATS``, ``KINDS``, ``find_span``,
    ``span_pattern``, ``normalize``, ``file_stem``, ...) is the pydoc builder's own."""
    return getattr(_pd, name)


# --------------------------------------------------------------------------- the descriptions


def installed() -> dict[str, str]:
    """The installed version of every distribution of :data:`DISTRIBUTIONS` that is there."""
    found = {}
    for name in DISTRIBUTIONS:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def description(name: str) -> tuple[str, bool, str]:
    """(long description, whether it is Markdown, summary) of an installed distribution."""
    meta: Any = importlib.metadata.metadata(name)  # an email.message.Message
    body = meta.get_payload() or meta.get("Description") or ""
    if not meta.get_payload():
        # The old header form indents continuation lines with eight spaces and a bar.
        body = re.sub(r"\n {7}\|", "\n", body)
    kind = (meta.get("Description-Content-Type") or "").lower()
    markdown = kind.startswith("text/markdown")
    body = body.replace("\r\n", "\n").replace("\t", "    ")
    lines = [line.rstrip() for line in body.strip("\n").split("\n")]
    return "\n".join(lines) + "\n", markdown, " ".join((meta.get("Summary") or "").split())


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+|$)")
_ADORNMENT = re.compile(r"^([=\-~^\"'`#*+:._])\1{2,}$")


def titles(lines: list[str], markdown: bool) -> list[tuple[int, int, int, str]]:
    """Every section title: (first line, line after it, level, title text).

    Markdown: ATX and setext headings outside fenced code. reST: a line
    underlined (and optionally overlined) with a repeated punctuation character
    at least as long as it; levels in the order the adornment styles first appear.
    """
    found: list[tuple[int, int, int, str]] = []
    if markdown:
        fence: str | None = None
        for i, line in enumerate(lines):
            fenced = _FENCE.match(line)
            if fence is not None:
                if fenced and fenced.group(1)[0] == fence[0] and not line.strip(" `~"):
                    fence = None
                continue
            if fenced:
                fence = fenced.group(1)
            elif atx := _ATX.match(line):
                found.append((i, i + 1, len(atx.group(1)), line.strip().strip("#").strip()))
            elif (
                i > 0
                and re.fullmatch(r" {0,3}(=+|-+) *", line)
                and lines[i - 1].strip()
                and not re.match(r" {0,3}(?:[-*+>|]|\d+[.)]|#|```)", lines[i - 1])
                and not (found and found[-1][1] == i)
            ):
                found.append((i - 1, i + 1, 1 if line.strip()[0] == "=" else 2, lines[i - 1]))
        return found
    styles: list[tuple[str, bool]] = []
    i = 0
    while i + 1 < len(lines):
        over = _ADORNMENT.match(lines[i])
        if over and i + 2 < len(lines) and lines[i + 2] == lines[i] and lines[i + 1].strip():
            style, title, start, end = (lines[i][0], True), lines[i + 1].strip(), i, i + 3
        else:
            under = _ADORNMENT.match(lines[i + 1])
            text = lines[i]
            if not (
                under
                and text.strip()
                and not text.startswith(" ")
                and len(lines[i + 1]) >= len(text.rstrip())
                and not _ADORNMENT.match(text)
            ):
                i += 1
                continue
            style, title, start, end = (lines[i + 1][0], False), text.strip(), i, i + 2
        if style not in styles:
            styles.append(style)
        found.append((start, end, styles.index(style) + 1, title))
        i = end
    return found


def strip_licences(text: str, markdown: bool) -> str:
    """``text`` without its licence and copyright sections, paragraphs and lines.

    A section whose title names one goes with everything under it (to the next
    title of its level or above); any other paragraph naming one goes whole,
    unless it holds a code fence (its lines naming one go alone, so the fence
    stays closed). A dropped paragraph that is a licence title in all but markup
    (``*License?*``, :data:`PSEUDO_HEADING`) takes the paragraph after it along.
    """
    lines = text.split("\n")
    drop = [False] * len(lines)
    heads = titles(lines, markdown)
    for number, (start, _end, level, title) in enumerate(heads):
        if not LICENCE.search(title):
            continue
        stop = next((s for s, _, lv, _ in heads[number + 1 :] if lv <= level), len(lines))
        for i in range(start, stop):
            drop[i] = True
    kept = [line for line, gone in zip(lines, drop, strict=True) if not gone]
    out: list[str] = []
    answers = False  # the block after a dropped pseudo-heading (``*License?*``) is its answer
    for block in "\n".join(kept).split("\n\n"):
        if answers:
            answers = False
            continue
        if not LICENCE.search(block):
            out.append(block)
        elif any(_FENCE.match(line) for line in block.split("\n")):
            out.append("\n".join(ln for ln in block.split("\n") if not LICENCE.search(ln)))
        else:
            answers = bool(PSEUDO_HEADING.fullmatch(block.strip()))
    return re.sub(r"\n{3,}", "\n\n", "\n\n".join(out)).strip("\n") + "\n"


def _header(name: str, version: str, summary: str) -> str:
    return f"{name} {version}: {summary}" if summary else f"{name} {version}"


def texts(name: str) -> tuple[str, str]:
    """(plain text, Markdown) of an installed distribution's description, licences stripped."""
    body, markdown, summary = description(name)
    kept = strip_licences(body, markdown)
    if len(kept) < (1 - MAX_DROPPED) * len(body):
        raise RuntimeError(f"{name}: the description is mostly licence text")
    header = _header(name, importlib.metadata.version(name), summary)
    text = header + "\n\n" + kept
    if LICENCE.search(text):  # the summary too
        raise RuntimeError(f"{name}: a licence is left in the description")
    md = kept if markdown else rst_as_markdown(kept)
    first = titles(md.split("\n"), True)
    if not first or first[0][0] > 0:
        md = "# " + header + "\n\n" + md  # a title before the first section
    return text, md


def rst_as_markdown(text: str) -> str:
    """A reST description as Markdown: its section titles as ``#`` headings (the rest as written)."""
    lines = text.split("\n")
    out: list[str] = []
    at = 0
    for start, end, level, title in titles(lines, False):
        out.extend(_pd._safe_markdown(line) for line in lines[at:start])
        out.append("#" * min(level, 6) + " " + title)
        at = end
    out.extend(_pd._safe_markdown(line) for line in lines[at:])
    return "\n".join(out)


# --------------------------------------------------------------------------- rendering


def markdown_sections(markdown: str) -> list[tuple[int, str]]:
    """(offset, heading path) of every section of ``markdown``, as memo's reader cuts it."""
    from memo_core.ingest.markdown import split_markdown

    sections = []
    at = 0
    for section in split_markdown(markdown):
        if section.heading is not None:
            sections.append((at, section.heading))
        at += len(section.text) + 1
    return sections


def html_of(markdown: str, title: str) -> str:
    """The Markdown as a project page renders it (markdown-it-py, CommonMark with tables)."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(markdown)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head>\n<body>\n{body}</body></html>\n"
    )


#: One distribution's document: (plain text, Markdown, HTML page, title) of its name.
Renderer = Callable[[str], tuple[str, str, str, str]]


def render(name: str) -> tuple[str, str, str, str]:
    """The description of an installed distribution in its renderings (see the module doc)."""
    text, markdown = texts(name)
    title = text.split("\n", 1)[0]
    return text, markdown, html_of(markdown, title), title


def build(out: Path = DOCS, renderer: Renderer = render) -> dict[str, Any]:
    """Render every installed distribution of :data:`DISTRIBUTIONS` in every format; the
    manifest. ``renderer`` makes each document (the records set passes its own)."""
    for fmt in _pd.FORMATS:
        (out / fmt).mkdir(parents=True, exist_ok=True)
    versions = installed()
    manifest: dict[str, Any] = {
        "python": list(sys.version_info[:3]),
        "python_version": sys.version,
        "versions": versions,
        "pinned": {n: v for n, v in DISTRIBUTIONS.items() if versions.get(n) != v},
        "modules": {},  # the pydoc set's manifest shape, keyed by distribution
    }
    for name in versions:
        text, markdown, page, title = renderer(name)
        manifest["modules"][name] = _pd.write_document(
            out, _pd.file_stem(name), text, (markdown, markdown_sections(markdown)), page, title
        )
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def stale(manifest: dict[str, Any]) -> bool:
    """Whether a built manifest is from other versions of the distributions than these."""
    return manifest.get("versions") != installed()


# --------------------------------------------------------------------------- validation


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    return _pd.load_questions(path)  # type: ignore[no-any-return]


def validate(
    questions: list[dict[str, Any]], docs: Path = DOCS, documents: Collection[str] | None = None
) -> list[str]:
    """Problems with the question set on the installed distributions' rebuilt documents
    (empty when all is well): the library set's rules, every answer span in all four
    renderings. ``documents`` defaults to the distributions built in ``docs``."""
    if documents is None:
        manifest = json.loads((docs / "manifest.json").read_text(encoding="utf-8"))
        documents = tuple(manifest["modules"])
    return _lib.validate(questions, docs, documents=documents)  # type: ignore[no-any-return]


def check(min_per_kind: dict[str, int] | None = None) -> int:
    wanted = min_per_kind or {"answerable": 150, "near_miss": 45, "nonexistent": 45}
    return _pd.run_check(DOCS, build, load_questions, validate, wanted)  # type: ignore[no-any-return]


def main() -> None:
    _pd.cli(__doc__, DOCS, build, check, "distributions")


if __name__ == "__main__":
    main()
