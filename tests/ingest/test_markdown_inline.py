"""A Markdown document is stored as it reads: no emphasis markers or link syntax in quotes.

The quote shown to the user is verified verbatim against the stored text at its
offsets, so the stored text is the rendered one and offsets are taken after rendering.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memo_core.answer.extractive import extractive_answer
from memo_core.answer.sentences import split_sentences
from memo_core.answer.verify import verify_quote
from memo_core.ingest.htmltext import extract_html
from memo_core.ingest.inline import readable_inline, readable_markdown
from memo_core.ingest.markdown import extract_markdown

NOTE = """# Kiln *firing* notes

The **default** cone for a bisque firing is 04, see [the glaze chart](https://example.org/chart)
and ![a cone pack](cones.png) beside the spy hole.

## Cooling the `kiln`

Never open the lid above 100 degrees: the _glaze_ crazes \\*and\\* the shelves crack.
Call `cool_down(rate=50)` or pass __init__ arguments; f(*args, **kwargs) stays as written.

```
glaze **raw** [not a link](x)
```

    indented **code** stays too

| Cone | Degrees |  |
|------|---------|--|
|  | 04 | 1060 |
| 6 | 1222 |  |
"""


def test_inline_syntax_is_rendered_away() -> None:
    assert readable_inline("the **default** is 5") == "the default is 5"
    assert readable_inline("see [the chart](https://x.org) now") == "see the chart now"
    assert readable_inline("an ![old kiln](k.png) photo") == "an old kiln photo"
    assert readable_inline("a \\*starred\\* word &amp; more") == "a *starred* word & more"
    assert readable_inline("~~gone~~ and <https://x.org>") == "gone and https://x.org"
    # a code span keeps its backticks; names and stray asterisks stay as written
    assert readable_inline("call `fire(cone=6)` now") == "call `fire(cone=6)` now"
    assert readable_inline("__init__ and _private_ and x.__slots__") == (
        "__init__ and _private_ and x.__slots__"
    )
    assert readable_inline("f(*args, **kwargs) and 2**10") == "f(*args, **kwargs) and 2**10"


def test_blocks_keep_their_lines_and_code_is_as_written() -> None:
    text = readable_markdown(NOTE)
    lines = text.split("\n")
    assert "# Kiln firing notes" in lines
    assert "glaze **raw** [not a link](x)" in lines
    assert "    indented **code** stays too" in lines
    assert len(lines) == len(NOTE.split("\n")) - 1  # only the table's delimiter row goes


def test_table_rows_are_cells_without_bars_or_gutter() -> None:
    lines = readable_markdown(NOTE).split("\n")
    assert "Cone | Degrees" in lines
    assert "04 | 1060" in lines and "6 | 1222" in lines
    assert not any(line.startswith("|") or set(line) <= set("|- ") for line in lines if line)


def test_stored_text_and_heading_locators_read_as_rendered() -> None:
    doc = extract_markdown(NOTE, source="/kiln.md", default_title="kiln")
    assert "**" not in doc.text.replace("2**", "").replace("**kwargs", "").replace(
        "**raw**", ""
    ).replace("**code**", "")
    assert "](" not in doc.text.replace("[not a link](x)", "")
    headings = [s.locator.get("heading") for s in doc.sections]
    assert headings == ["Kiln firing notes", "Kiln firing notes > Cooling the `kiln`"]
    assert doc.title == "Kiln firing notes"
    for section in doc.sections:  # every locator covers its own text
        assert doc.text[section.start : section.end].strip()
    sentences = [" ".join(doc.text[a:b].split()) for a, b in split_sentences(doc.text)]
    assert any(s.startswith("The default cone for a bisque firing is 04") for s in sentences)


def test_the_quote_is_the_rendered_sentence_verbatim_at_its_offsets() -> None:
    doc = extract_markdown(NOTE, source="/kiln.md", default_title="kiln")
    question = "What is the default cone for a bisque firing?"
    [(_, start, end)] = extractive_answer(question, [("doc", doc.text)], max_sentences=1)
    quote = doc.text[start:end]
    assert "default cone" in quote and "*" not in quote and "](" not in quote
    check = verify_quote(quote, doc.text)
    assert check.verified and (check.start, check.end) == (start, end)


def test_html_strong_and_code_read_as_the_page_shows_them() -> None:
    pytest.importorskip("trafilatura", reason="trafilatura (the web extra) is not installed")
    page = (
        "<html><head><title>Kilns</title></head><body><article><h1>Kilns</h1>"
        "<p>The <strong>default</strong> cone for a bisque firing is 04, and a kiln "
        "fired with <em>wet</em> ware must be candled overnight before it is closed.</p>"
        "<p>Literal stars on the page stay: f(*args, **kwargs) and a_b_c, and the "
        "spy hole plug is removed at <code>cone 6</code> for the last half hour.</p>"
        "</article></body></html>"
    )
    text = extract_html(page, source="/kilns.html", default_title="kilns").text
    assert "The default cone for a bisque firing is 04" in text
    assert "fired with wet ware" in text
    assert "f(*args, **kwargs) and a_b_c" in text


def test_reingest_updates_a_base_stored_with_markdown_syntax(
    tmp_path: Path, reingest: Callable[..., tuple[str, str]]
) -> None:
    from memo_core.ingest import markdown

    def raw_reading(old: pytest.MonkeyPatch) -> None:
        old.setattr(markdown, "readable_markdown", lambda text: text)
        old.setattr(markdown, "readable_inline", lambda text: text)

    note = tmp_path / "kiln.md"
    note.write_text(NOTE, encoding="utf-8")
    before, after = reingest(note, raw_reading)
    assert "The **default** cone" in before
    assert "The default cone" in after and "**default**" not in after
