"""``memo migrate --from URL --to URL``: copy a base between SQLite and PostgreSQL.

Vectors are copied, not recomputed, so a migration costs no embedding calls; the
row counts of every copied table are compared on both sides before it reports
success. ``--json`` prints ``{source, destination, parts, tables: {name:
{source, destination}}, verified}``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["register"]


def cmd_migrate(args: argparse.Namespace) -> int:
    from memo_core.migrate import migrate

    report = migrate(args.source, args.destination)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
        return 0
    print(f"copied {', '.join(report.parts)} from {report.source} to {report.destination}")
    for table, (src, dst) in report.tables.items():
        print(f"  {table}: {src} -> {dst}")
    print("verified: row counts match")
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="copy a base to another backend (sqlite:///file.db <-> postgresql://...)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--from", dest="source", required=True, help="source base: path or URL")
    parser.add_argument(
        "--to", dest="destination", required=True, help="destination base (must be empty)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=cmd_migrate)
