"""A ``<br>`` inside running prose is a line break, not the end of a sentence.

Pages that wrap their prose with ``<br>`` (pydoc's HTML does, every line) must give
the same sentences as the page shows; lists, preformatted lines, headings and table
rows keep their own lines.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memo_core.answer.extractive import extractive_answer
from memo_core.answer.sentences import split_sentences
from memo_core.answer.verify import verify_quote
from memo_core.ingest.htmltext import extract_html, html_to_markdown

# A page laid out as pydoc lays out a docstring: every source line ends with <br>,
# an empty line is "&nbsp;<br>", words are joined by &nbsp;.
WRAPPED = """<!DOCTYPE html><html><head><title>Lighthouse keeping</title></head><body>
<h1>Lighthouse keeping</h1>
<p>The&nbsp;keeper&nbsp;winds&nbsp;the&nbsp;clockwork&nbsp;of&nbsp;the&nbsp;lamp&nbsp;every&nbsp;four<br>
hours&nbsp;through&nbsp;the&nbsp;night,&nbsp;so&nbsp;that&nbsp;the&nbsp;lens&nbsp;keeps&nbsp;turning&nbsp;until<br>
the&nbsp;morning&nbsp;watch&nbsp;relieves&nbsp;him.<br>
&nbsp;<br>
Spare&nbsp;mantles&nbsp;are&nbsp;stored&nbsp;in&nbsp;the&nbsp;brass&nbsp;chest&nbsp;beside&nbsp;the&nbsp;oil<br>
tanks&nbsp;on&nbsp;the&nbsp;lower&nbsp;gallery.</p>
<h2>Supplies</h2>
<ul><li>Paraffin for the lamp</li><li>Wicks and mantles</li></ul>
<pre>wind(lamp)
trim(wick)</pre>
<table><tr><th>Item</th><th>Count</th></tr><tr><td>Mantles</td><td>12</td></tr>
<tr><td>Wicks</td><td>30</td></tr></table>
</body></html>
"""

FIRST = "The keeper winds the clockwork"
WOUND = "until the morning watch relieves him."


def _as_page(text: str) -> str:
    return text.replace("\u00a0", " ")


def _sentences(text: str) -> list[str]:
    return [_as_page(text[a:b]) for a, b in split_sentences(text)]


def _sentence_with(text: str, needle: str) -> str:
    hits = [s for s in _sentences(text) if needle in " ".join(s.split())]
    assert len(hits) == 1, hits
    return " ".join(hits[0].split())


def test_a_sentence_wrapped_with_br_stays_one_sentence(extractor: str) -> None:
    text = html_to_markdown(WRAPPED)
    whole = (
        "The keeper winds the clockwork of the lamp every four hours through the night, "
        "so that the lens keeps turning until the morning watch relieves him."
    )
    assert _sentence_with(text, WOUND) == whole
    assert _sentence_with(text, "brass chest") == (
        "Spare mantles are stored in the brass chest beside the oil tanks on the lower gallery."
    )


def test_an_empty_line_made_of_br_is_a_paragraph_break(extractor: str) -> None:
    text = _as_page(html_to_markdown(WRAPPED))
    end = text.index("relieves him.") + len("relieves him.")
    assert text[end : text.index("Spare mantles")].strip(" ") == "\n\n"
    # the wrapped lines keep a single line break each, as on the page
    assert "every four\nhours" in text


def test_lists_preformatted_lines_headings_and_rows_keep_their_lines(extractor: str) -> None:
    text = _as_page(html_to_markdown(WRAPPED))
    lines = [line.strip() for line in text.split("\n")]
    assert "## Supplies" in lines
    assert any(line.endswith("Paraffin for the lamp") for line in lines)
    assert any(line.endswith("Wicks and mantles") for line in lines)
    assert "wind(lamp)" in lines and "trim(wick)" in lines
    assert any("Mantles" in line and "12" in line and "Wicks" not in line for line in lines)
    sentences = _sentences(text)
    assert not any("Paraffin" in s and "Wicks" in s for s in sentences)
    assert not any("wind(lamp)" in s and "trim(wick)" in s for s in sentences)


def test_the_answer_quotes_the_whole_wrapped_sentence_verbatim(extractor: str) -> None:
    doc = extract_html(WRAPPED, source="/lighthouse.html", default_title="lighthouse")
    question = "How often does the keeper wind the clockwork of the lamp?"
    [(_, start, end)] = extractive_answer(question, [("doc", doc.text)], max_sentences=1)
    quote = doc.text[start:end]
    assert " ".join(quote.split()).startswith(FIRST)
    assert " ".join(quote.split()).endswith("relieves him.")
    check = verify_quote(quote, doc.text)
    assert check.verified and (check.start, check.end) == (start, end)


def test_reingest_updates_a_base_built_with_the_old_reading(
    tmp_path: Path, reingest: Callable[..., tuple[str, str]]
) -> None:
    pytest.importorskip("trafilatura", reason="trafilatura (the web extra) is not installed")
    from memo_core.ingest import htmltext

    page = tmp_path / "lighthouse.html"
    page.write_text(WRAPPED, encoding="utf-8")
    before, after = reingest(
        # every <br> a paragraph, as before
        page,
        lambda old: old.setattr(htmltext, "_fold_line_breaks", lambda body: None),
    )
    assert not _sentence_with(before, "relieves him").startswith(FIRST)
    assert _sentence_with(after, "relieves him").startswith(FIRST)
