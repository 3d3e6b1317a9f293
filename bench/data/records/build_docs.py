"""Rebuild the package-record evaluation documents from the installed distributions, and check the questions.

    python bench/data/records/build_docs.py            # write docs/ (txt, md, html, pdf) + manifest.json
    python bench/data/records/build_docs.py --check    # validate questions.jsonl in every format

A seventh dev set, of a genre none of the other six holds: records of "Name: value"
fields, one a line, with indented lines continuing a value, as mail headers, package
metadata and Debian's control files write them. The documents are the metadata
headers of the installed distributions the readmes set reads
(``bench/data/readmes/build_docs.py``, :data:`DISTRIBUTIONS` with the versions its
questions were written against): their name, version, summary, authors, maintainers,
project links, keywords, required Python, dependencies, extras and classifiers, as
``importlib.metadata`` reads them from the venv. Nothing third-party is committed:
only this script and the questions written over its output.

Licences are what the held-out checks use, so no licence is a field here: every field
whose name or value names a licence or a copyright (``License``,
``License-Expression``, ``License-File``, a ``Classifier: License :: ...``) is dropped
with its continuation lines, and so are the long description (the readmes set's
document) and the ``Dynamic`` markers, which say how a field was made, not what it
holds. Another installed version is rendered all the same; a question whose span is
not in its text is skipped and counted by the evaluator, as in the readmes set.

Each distribution is written in four formats, with the pydoc set's writer:

* ``txt/NAME.txt``: the fields as the metadata file has them;
* ``md/NAME.md``: a ``#`` title (the name and version), then the fields, one a line
  (a hard line break each, as a record pasted into Markdown keeps its lines);
* ``html/NAME.html``: the title as ``<h1>`` and the fields as a ``<pre>`` block, as a
  package index or a distribution's web page shows a control file;
* ``pdf/NAME.pdf``: the plain text in Courier.

:func:`validate` is the readmes set's check: every answer span in all four renderings,
every ``absent`` term not in the text.
"""

from __future__ import annotations

import html
import importlib.metadata
import importlib.util
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
QUESTIONS = HERE / "questions.jsonl"

#: Fields that say nothing a reader asks about, or hold what another set reads.
DROPPED_FIELDS = frozenset({"description", "dynamic", "license-file"})


def _script(name: str, path: Path) -> Any:
    """A sibling builder script as a module, under the name bench/answer_sets.py gives it."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


#: The readmes set's builder: its distributions, licence pattern, check and the pydoc writer.
_rd = _script("memo_bench_readmes_docs", HERE.parent / "readmes" / "build_docs.py")
_pd = _rd._pd
DISTRIBUTIONS: dict[str, str] = _rd.DISTRIBUTIONS


def __getattr__(name: str) -> Any:
    """What this set does as the pydoc set does (``FORMATS``, ``KINDS``, ``find_span``,
    ``span_pattern``, ``normalize``, ``file_stem``, ...) is the pydoc builder's own."""
    return getattr(_pd, name)


#: The installed version of every distribution of :data:`DISTRIBUTIONS` that is there.
installed = _rd.installed


# --------------------------------------------------------------------------- the records


def header(name: str) -> str:
    """The metadata header of an installed distribution: its lines before the long
    description (a blank line ends the header), as the file has them."""
    raw = importlib.metadata.distribution(name).read_text("METADATA") or ""
    lines = raw.replace("\r\n", "\n").replace("\t", "    ").split("\n")
    end = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    return "\n".join(line.rstrip() for line in lines[:end])


def fields(head: str) -> list[tuple[str, list[str]]]:
    """``(name, lines)`` of each field of a header: its first line and the indented lines
    that continue its value."""
    out: list[tuple[str, list[str]]] = []
    for line in head.split("\n"):
        if line[:1].isspace() and out:
            out[-1][1].append(line)
        elif ":" in line:
            out.append((line.split(":", 1)[0].strip(), [line]))
    return out


def record(name: str) -> str:
    """The distribution's record: its header without the licence fields and the
    :data:`DROPPED_FIELDS`."""
    kept = [
        "\n".join(lines)
        for field, lines in fields(header(name))
        if field.lower() not in DROPPED_FIELDS
        and not any(_rd.LICENCE.search(line) for line in lines)
    ]
    text = "\n".join(kept) + "\n"
    if _rd.LICENCE.search(text):
        raise RuntimeError(f"{name}: a licence is left in the record")
    return text


def markdown_of(text: str, title: str) -> str:
    """The record pasted into Markdown under a title: each line ends in a hard break."""
    lines = (_pd._safe_markdown(line).rstrip() for line in text.rstrip("\n").split("\n"))
    return f"# {title}\n\n" + "\\\n".join(lines) + "\n"


def html_of(text: str, title: str) -> str:
    """The record as a web page shows a control file: a title and a ``<pre>`` block."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head>\n<body>\n<h1>{html.escape(title)}</h1>\n"
        f"<pre>{html.escape(text)}</pre>\n</body></html>\n"
    )


def render(name: str) -> tuple[str, str, str, str]:
    """The record of an installed distribution in its renderings (see the module doc)."""
    text = record(name)
    title = f"{name} {importlib.metadata.version(name)}"
    return text, markdown_of(text, title), html_of(text, title), title


def build(out: Path = DOCS) -> dict[str, Any]:
    """Render every installed distribution of :data:`DISTRIBUTIONS` in every format (the
    readmes set's build with this set's documents); the manifest."""
    return _rd.build(out, renderer=render)  # type: ignore[no-any-return]


#: Whether a built manifest is from other versions of the distributions (the readmes set's test).
stale = _rd.stale


# --------------------------------------------------------------------------- validation


def load_questions(path: Path = QUESTIONS) -> list[dict[str, Any]]:
    return _pd.load_questions(path)  # type: ignore[no-any-return]


def validate(
    questions: list[dict[str, Any]], docs: Path = DOCS, documents: Collection[str] | None = None
) -> list[str]:
    """Problems with the question set on the rebuilt records (empty when all is well): the
    readmes set's rules, every answer span in all four renderings."""
    return _rd.validate(questions, docs, documents)  # type: ignore[no-any-return]


def check(min_per_kind: dict[str, int] | None = None) -> int:
    wanted = min_per_kind or {"answerable": 60, "near_miss": 20, "nonexistent": 20}
    return _pd.run_check(DOCS, build, load_questions, validate, wanted)  # type: ignore[no-any-return]


def main() -> None:
    _pd.cli(__doc__, DOCS, build, check, "distributions")


if __name__ == "__main__":
    main()
