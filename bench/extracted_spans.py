"""Do the rendered sets' answer spans survive extraction, and in the sentences the plain text has?

    python bench/extracted_spans.py [--sets pydoc,library,topics] [--formats html,md] [-v]

For each answerable question of a rendered dev set (documents rebuilt by the sets'
``build_docs.py``) and each format asked for, the document is extracted as memo
ingests it (``extract_html`` / ``extract_markdown``; the plain text by
``extract_plain_text``) and two things are counted: whether the gold span is in the
stored text (the sets' own span rule: line breaks, indentation and pydoc's bars
between words tolerated; asterisks and backticks, which a rendered Markdown document
may have lost, compared without), and whether the sentence that holds it
(``sentence_around``) reads as the one that holds it in the plain-text rendering
(compared single-spaced, without bars, asterisks and backticks). No engine, no
embedder: it measures the extractors alone, in seconds. ``-v`` lists the misses.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from answer_sets import build_docs_module, library_docs_module, topics_docs_module

from memo_core.answer.sentences import sentence_around
from memo_core.ingest.htmltext import extract_html
from memo_core.ingest.markdown import extract_markdown, extract_plain_text

_SETS = {"pydoc": build_docs_module, "library": library_docs_module, "topics": topics_docs_module}
_BARS = re.compile(r"(?<=\s)\|(?=\s)")


def _plain(text: str) -> str:
    text = text.replace("\u00a0", " ").replace("*", "").replace("`", "")
    return " ".join(_BARS.sub(" ", text).split())


def _extract(path: Path, fmt: str) -> str:
    raw = path.read_text(encoding="utf-8")
    if fmt == "html":
        return extract_html(raw, source=str(path), default_title=path.stem).text
    if fmt == "md":
        return extract_markdown(raw, source=str(path), default_title=path.stem).text
    return extract_plain_text(raw, source=str(path), title=path.stem).text


def _sentence(bd: Any, text: str, span: str) -> str | None:
    for candidate in (span, span.replace("*", "").replace("`", "")):
        match = bd.span_pattern(candidate).search(text)
        if match:
            a, b = sentence_around(text, match.start(), match.end())
            return _plain(text[a:b])
    return None


def measure(name: str, formats: list[str], verbose: bool) -> list[tuple[str, str, int, int, int]]:
    """(set, format, spans, found in the stored text, in the plain text's sentence)."""
    bd = _SETS[name]()
    docs = Path(bd.__file__).resolve().parent / "docs"
    cache: dict[tuple[str, str], str] = {}

    def text(doc: str, fmt: str) -> str:
        if (doc, fmt) not in cache:
            cache[doc, fmt] = _extract(docs / fmt / f"{bd.file_stem(doc)}.{fmt}", fmt)
        return cache[doc, fmt]

    questions = [q for q in bd.load_questions() if q["kind"] == "answerable"]
    rows = []
    for fmt in formats:
        spans = found = same = 0
        for q in questions:
            if fmt not in q["formats"] or not (docs / "txt").exists():
                continue
            spans += 1
            stored, plain = text(q["doc"], fmt), text(q["doc"], "txt")
            sentence = _sentence(bd, stored, q["answer"])
            if sentence is None:
                if verbose:
                    print(f"not found  {fmt} {q['id']}: {q['answer']!r}")
                continue
            found += 1
            reference = {
                _plain(plain[a:b])
                for m in bd.span_pattern(q["answer"]).finditer(plain)
                for a, b in [sentence_around(plain, m.start(), m.end())]
            }
            if sentence in reference:
                same += 1
            elif verbose:
                print(f"other sentence  {fmt} {q['id']}: {sentence[:160]!r}")
        rows.append((name, fmt, spans, found, same))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="pydoc,library,topics")
    parser.add_argument("--formats", default="html,md")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    print("| set | format | answer spans | in the stored text | in the plain text's sentence |")
    print("|---|---|---|---|---|")
    for name in args.sets.split(","):
        for row in measure(name, args.formats.split(","), args.verbose):
            print("| {} | {} | {} | {} | {} |".format(*row))


if __name__ == "__main__":
    main()
