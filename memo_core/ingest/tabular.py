"""CSV and TSV: one self-describing block per row, ``"column: value; ..."``.

A row on its own ("42; Alice; 2024") means nothing to a reader or a search; with
its column names it can be found and quoted. Each row is one section whose
locator is its spreadsheet row number (the header is row 1).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from memo_core.errors import ExtractionError
from memo_core.ingest.normalize import DocumentBuilder
from memo_core.ingest.types import ExtractedDocument

__all__ = ["extract_csv"]

_SNIFF_CHARS = 64 * 1024


def _dialect(text: str, tab: bool) -> type[csv.Dialect] | csv.Dialect:
    if tab:
        return csv.excel_tab
    try:
        return csv.Sniffer().sniff(text[:_SNIFF_CHARS], delimiters=",;\t|")
    except csv.Error:
        return csv.excel


def extract_csv(
    text: str, *, source: str, title: str, tab_separated: bool = False
) -> ExtractedDocument:
    """One section per data row; empty cells are left out of the row's block."""
    reader = csv.reader(io.StringIO(text, newline=""), _dialect(text, tab_separated))
    builder = DocumentBuilder(separator="\n")
    header: list[str] = []
    header_row = 1
    rows = 0
    try:
        for record_number, record in enumerate(reader, start=1):
            if not header:
                header = _header(record)
                if not header:
                    continue
                header_row = record_number
                continue
            cells = [
                f"{_column(header, index)}: {value.strip()}"
                for index, value in enumerate(record)
                if value.strip()
            ]
            if cells:
                rows += 1
                builder.add("; ".join(cells), {"row": record_number - header_row + 1})
    except csv.Error as exc:
        raise ExtractionError(f"{source}: malformed CSV ({exc})") from None
    metadata: dict[str, Any] = {"columns": header, "rows": rows}
    return builder.build(source=source, title=title, kind="csv", metadata=metadata)


def _header(record: list[str]) -> list[str]:
    names = [cell.strip() for cell in record]
    if not any(names):
        return []
    return [name or f"column {index + 1}" for index, name in enumerate(names)]


def _column(header: list[str], index: int) -> str:
    return header[index] if index < len(header) else f"column {index + 1}"
