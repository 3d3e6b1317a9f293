"""Write the sample documents the README demo ingests (run: python tests/ingest/make_samples.py).

It lives here, not in ``samples/``, because a folder ingest takes every text file:
the demo would otherwise ingest this script, sample texts and all.

Everything here is deterministic, so re-running it reproduces the committed files
byte for byte (a test checks that). The PDF is written by hand with the standard
Helvetica fonts: no PDF library is needed, and the tests reuse ``build_pdf`` to
generate their own fixtures.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parents[2] / "samples"

__all__ = ["build_pdf", "main", "write_samples"]


def _pdf_string(text: str) -> bytes:
    """A PDF literal string in WinAnsi encoding, with the three special bytes escaped."""
    raw = text.encode("cp1252", "replace")
    out = bytearray(b"(")
    for byte in raw:
        if byte in b"()\\":
            out += b"\\" + bytes([byte])
        elif byte < 32 or byte > 126:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return bytes(out + b")")


def _page_stream(paragraphs: list[str], width: int) -> bytes:
    """Content stream: paragraphs wrapped at ``width``; a ``# `` paragraph is a bold heading."""
    ops = [b"BT", b"14 TL", b"72 740 Td"]
    for paragraph in paragraphs:
        bold = paragraph.startswith("# ")
        body = paragraph[2:] if bold else paragraph
        ops.append(b"/F2 12 Tf" if bold else b"/F1 11 Tf")
        lines = body.split("\n") if "\n" in body else textwrap.wrap(body, width) or [""]
        for line in lines:
            ops.append(_pdf_string(line) + b" Tj T*")
        ops.append(b"T*")
    ops.append(b"ET")
    return b"\n".join(ops)


def build_pdf(pages: list[list[str]], *, title: str = "", width: int = 88) -> bytes:
    """A minimal, valid PDF 1.4 file with one page per item of ``pages``.

    A paragraph containing ``\\n`` keeps its line breaks exactly (the tests use this
    to lay out a hyphenated word across two lines); others are wrapped at ``width``.
    An empty page list item makes a page without text.
    """
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in once the page tree exists
    pages_id = add(b"")
    regular = add(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    )
    bold = add(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>"
    )
    kids: list[int] = []
    for paragraphs in pages:
        stream = _page_stream(paragraphs, width) if paragraphs else b""
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
                b"/Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> /Contents %d 0 R >>"
                % (pages_id, regular, bold, content)
            )
        )
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id
    objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % kid for kid in kids),
        len(kids),
    )
    info = add(
        b"<< /Title " + _pdf_string(title) + b" /Producer (memo tests/ingest/make_samples.py) >>"
    )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\n" % (
        len(objects) + 1,
        catalog,
        info,
    )
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


CONTRACT_PAGES = [
    [
        "# SERVICE AGREEMENT",
        "This Service Agreement (the Agreement) is made on 3 March 2025 between Northwind "
        "Analytics Ltd., a company registered in England (the Provider), and Contoso Retail "
        "GmbH, a company registered in Germany (the Customer).",
        "# 1. Definitions",
        "Services means the data analytics services described in Schedule A. Effective Date "
        "means the date on which both parties have signed this Agreement. Business Day means "
        "a day other than a Saturday, a Sunday or a public holiday in London.",
        "# 2. Services",
        "The Provider shall deliver the Services with reasonable skill and care and in "
        "accordance with good industry practice. The Provider shall assign a named account "
        "manager to the Customer within five Business Days of the Effective Date.",
        "# 3. Customer obligations",
        "The Customer shall provide the Provider with timely access to the data, systems and "
        "personnel reasonably required to perform the Services.",
    ],
    [
        "# 4. Term and termination",
        "4.1 This Agreement has an initial term of 24 months from the Effective Date. It renews "
        "automatically for successive periods of 12 months unless either party gives written "
        "notice of non-renewal at least 90 days before the end of the current term.",
        "4.2 Either party may terminate this Agreement with immediate effect by written notice "
        "if the other party commits a material breach that is not remedied within 30 days of "
        "being notified of it.",
        "4.3 On termination the Provider shall return or delete all Customer data within 30 "
        "days, and shall confirm the deletion in writing.",
        "# 5. Fees and payment",
        "The Customer shall pay a monthly fee of EUR 4,500, invoiced in advance. Invoices are "
        "payable within 30 days of receipt. Late payments bear interest at 4 percent per year "
        "above the base rate of the European Central Bank.",
    ],
    [
        "# 6. Liability",
        "Neither party limits its liability for death or personal injury caused by its "
        "negligence or for fraud. Subject to that, each party's total liability under this "
        "Agreement is limited to the fees paid in the 12 months before the claim arose.",
        "# 7. Confidentiality",
        "Each party shall keep the other party's confidential information secret during the "
        "term and for three years after it ends.",
        "# 8. Governing law",
        "This Agreement is governed by the laws of England and Wales, and the courts of London "
        "have exclusive jurisdiction.",
        "Signed for Northwind Analytics Ltd.: Jane Morgan, Director",
        "Signed for Contoso Retail GmbH: Lukas Becker, Managing Director",
    ],
]

MEETING_NOTES = """\
---
title: Vendor review meeting
date: 2025-03-10
tags: [vendors, contracts]
---

# Vendor review meeting

## Attendees

Maria (procurement), Tom (engineering), Aisha (legal).

## Decisions

- Keep Northwind Analytics for another year; the contract renews automatically unless
  we give notice 90 days before the term ends.
- Ask Contoso for a quote on the inventory dashboard.

## Action items

Aisha checks the termination clause and the data deletion obligations before April.
Tom prepares a migration plan in case we do not renew.
"""

RESEARCH_NOTE = """\
# Notes on retrieval-augmented generation

Retrieval-augmented generation answers a question from documents found at query
time instead of from the model's memory alone.

## Hybrid search

Keyword search (BM25) finds exact names, numbers and rare terms; vector search finds
paraphrases. Reciprocal Rank Fusion merges the two ranked lists without calibrating
their scores against each other.

## Citations

An answer is only as trustworthy as its citations: every quoted sentence should be
found verbatim in the cited passage, with the page or heading it came from.
"""

VAULT_NOTES = {
    "Project Alpha.md": """\
---
tags: [project, alpha]
aliases: [Alpha]
status: active
---
# Project Alpha

Project Alpha moves the reporting stack to a managed analytics vendor. See
[[Vendor list|our vendors]] and the notes in [[Weekly sync]].

## Risks

The biggest risk is data residency: the vendor must keep data in the EU. #risk
""",
    "Vendor list.md": """\
---
title: Approved vendors
---
# Approved vendors

- Northwind Analytics: analytics services, contract until 2027.
- Contoso Retail: customer, not a vendor. #todo fix this entry
""",
    "meetings/Weekly sync.md": """\
# Weekly sync

Discussed [[Project Alpha]] milestones. Next review on Friday.
![[diagram.png]]
""",
}

VAULT_FILES = {
    ".obsidian/app.json": '{"attachmentFolderPath": "attachments"}\n',
    # A stand-in attachment (not a real image): attachments are skipped on ingest.
    "attachments/diagram.png": "not really a png, attachments are skipped\n",
}

CUSTOMERS_CSV = """\
id,name,country,plan,renewal date
1,Contoso Retail GmbH,Germany,Enterprise,2027-03-03
2,Fabrikam Inc.,United States,Team,2025-11-30
3,Tailspin Toys,Canada,Starter,2026-01-15
"""


def write_samples(root: Path) -> list[Path]:
    """Write every sample under ``root``; return the paths written."""
    files: dict[str, bytes] = {
        "sample-contract.pdf": build_pdf(CONTRACT_PAGES, title="Sample contract"),
        "notes/vendor-review-meeting.md": MEETING_NOTES.encode(),
        "notes/rag-research.md": RESEARCH_NOTE.encode(),
        "customers.csv": CUSTOMERS_CSV.encode(),
    }
    for name, text in {**VAULT_NOTES, **VAULT_FILES}.items():
        files[f"vault/{name}"] = text.encode()
    written = []
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


def main() -> int:
    for path in write_samples(HERE):
        print(path.relative_to(HERE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
