"""A page laid out with tables reads as the page shows it: each layout cell a block.

Reference pages built as pydoc builds its pages put a section's title, a gutter and
a definition list of signatures and descriptions in the cells of one table. Read as a
table of data, each cell became one line and a signature ran into the sentence after
it; read by trafilatura as blocks, the short link-dense lines (a class line, a section
title) were dropped. A table of data keeps its rows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memo_core.answer.sentences import split_sentences
from memo_core.ingest.htmltext import extract_html, html_to_markdown, layout_tables

# A reference page laid out the way pydoc lays out a module: a title table, a section
# table per kind of member (title row, then a gutter cell beside the content cell),
# prose wrapped with <br>, words joined by &nbsp;, a nested table of columns.
REFERENCE = """<!DOCTYPE html><html><head><title>Tides</title></head><body>
<table class="heading"><tr><td>&nbsp;<br><strong>tides</strong>&nbsp;(version&nbsp;3)</td>
<td><a href=".">index</a><br><a href="tides.py">tides.py</a></td></tr></table>
<p><span>Helpers&nbsp;that&nbsp;predict&nbsp;the&nbsp;tide&nbsp;for&nbsp;a&nbsp;harbour.</span></p>
<table class="section"><tr><td colspan=3>&nbsp;<br><strong>Contents</strong></td></tr>
<tr><td><span>&nbsp;&nbsp;&nbsp;</span></td><td>&nbsp;</td><td><table><tr>
<td><a href="tides.moon.html">moon</a><br></td><td><a href="tides.sun.html">sun</a><br></td>
</tr></table></td></tr></table>
<table class="section"><tr><td colspan=3>&nbsp;<br><a name="Harbour">class
<strong>Harbour</strong></a>(<a href="builtins.html#object">builtins.object</a>)</td></tr>
<tr><td rowspan=2>&nbsp;</td><td colspan=2><span>Harbour(name,&nbsp;datum=0.0)<br>
&nbsp;<br>
A&nbsp;harbour&nbsp;whose&nbsp;tides&nbsp;are&nbsp;measured&nbsp;from&nbsp;its&nbsp;chart<br>
datum,&nbsp;in&nbsp;metres&nbsp;above&nbsp;the&nbsp;lowest&nbsp;astronomical&nbsp;tide.<br>&nbsp;</span></td></tr>
<tr><td>&nbsp;</td><td><dl><dt>Methods defined here:</dt></dl>
<dl><dt><a name="Harbour-high_water"><strong>high_water</strong></a>(self,&nbsp;day)</dt>
<dd><span>Return&nbsp;the&nbsp;time&nbsp;of&nbsp;the&nbsp;first&nbsp;high&nbsp;water&nbsp;on&nbsp;that<br>
day,&nbsp;rounded&nbsp;to&nbsp;the&nbsp;nearest&nbsp;minute.</span></dd></dl>
<dl><dt><a name="Harbour-spring_range"><strong>spring_range</strong></a>(self)</dt>
<dd><span>Return&nbsp;the&nbsp;spring&nbsp;tide&nbsp;range&nbsp;in&nbsp;metres.</span></dd></dl>
</td></tr></table>
<table><tr><th>Harbour</th><th>Range</th></tr><tr><td>Northport</td><td>4.2</td></tr>
<tr><td>Eastwick</td><td>3.1</td></tr></table>
</body></html>
"""


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.split("\n") if line.strip()]


def _sentences(text: str) -> list[str]:
    return [" ".join(text[a:b].split()) for a, b in split_sentences(text)]


def test_layout_and_data_tables_are_told_apart() -> None:
    # the title table (a cell of lines), two section tables (a nested table, a list),
    # the nested table of columns (one link a cell: data), the table with header cells
    assert layout_tables(REFERENCE) == [True, True, False, True, False]
    assert layout_tables('<table role="presentation"><tr><td>a</td></tr></table>') == [True]
    assert layout_tables("<table><tr><td>a<br>b</td></tr></table>") == [True]
    assert layout_tables("<table><tr><th>k</th></tr><tr><td>a<br>b</td></tr></table>") == [False]
    assert layout_tables("<table><tr><td><ul><li>x</li></ul></td></tr></table>") == [True]


def test_every_line_of_a_layout_table_is_kept_as_a_block(extractor: str) -> None:
    lines = _lines(html_to_markdown(REFERENCE))
    for line in (
        "Contents",
        "class Harbour(builtins.object)",
        "Harbour(name, datum=0.0)",
        "Methods defined here:",
        "high_water(self, day)",
        "spring_range(self)",
        "Return the spring tide range in metres.",
    ):
        assert line in lines, line
    assert "moon | sun" in lines  # the nested table of columns: one row of data


def test_a_signature_does_not_run_into_its_description(extractor: str) -> None:
    sentences = _sentences(html_to_markdown(REFERENCE))
    assert (
        "Return the time of the first high water on that day, rounded to the nearest minute."
        in (sentences)
    )
    assert (
        "A harbour whose tides are measured from its chart datum, in metres above the lowest "
        "astronomical tide." in sentences
    )
    assert not any("high_water(self, day)" in s and "Return" in s for s in sentences)


def test_a_table_of_data_keeps_its_rows_without_a_gutter(extractor: str) -> None:
    lines = _lines(html_to_markdown(REFERENCE))
    assert "Northport | 4.2" in lines and "Eastwick | 3.1" in lines
    gutter = "<table><tr><td>&nbsp;</td><td></td><td>Spring range</td><td>4.2</td></tr></table>"
    assert "Spring range | 4.2" in _lines(html_to_markdown(gutter, use_trafilatura=False))


def test_reingest_updates_a_base_that_read_layout_cells_as_rows(
    tmp_path: Path, reingest: Callable[..., tuple[str, str]]
) -> None:
    from memo_core.ingest import htmltext

    page = tmp_path / "tides.html"
    page.write_text(REFERENCE, encoding="utf-8")
    whole = "Return the spring tide range in metres."
    before, after = reingest(
        page, lambda old: old.setattr(htmltext, "layout_tables", lambda markup: [])
    )
    assert whole not in _sentences(before) and whole in _sentences(after)
    doc = extract_html(REFERENCE, source=str(page), default_title="tides")
    assert doc.title == "Tides" and whole in _sentences(doc.text)


def test_a_table_the_reader_skips_does_not_shift_the_tables_after_it() -> None:
    page = (
        "<body><form><table><tr><td>Search</td></tr></table></form>"
        "<table><tr><td><dl><dt>ebb(self)</dt><dd>Return the hour of low water.</dd></dl>"
        "</td><td>Not a row.</td></tr></table></body>"
    )
    lines = _lines(html_to_markdown(page, use_trafilatura=False))
    assert "Search" not in lines
    assert "ebb(self)" in lines and "Return the hour of low water." in lines
    assert "Not a row." in lines


def test_a_term_sits_right_above_its_definition(extractor: str) -> None:
    # as the plain-text rendering shows a member: its signature, then its description
    lines = [" ".join(line.split()) for line in html_to_markdown(REFERENCE).split("\n")]
    at = lines.index("high_water(self, day)")
    assert lines[at + 1].startswith("Return the time of the first high water")
    at = lines.index("class Harbour(builtins.object)")
    assert lines[at + 1] == "Harbour(name, datum=0.0)"
