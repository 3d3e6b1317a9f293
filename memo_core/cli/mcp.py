"""``memo mcp --kb FILE --memory FILE --namespace NAME``: memo as an MCP server over stdio.

The server itself is :mod:`memo_integrations.mcp_server` (the ``mcp`` extra);
this module only opens the files and runs it. Either file may be left out, not
both. ``--namespace`` (repeat it for a nested namespace: ``--namespace alice
--namespace work``) is whose memory the tools use; without it, each memory call
must name one, and fails closed when it does not. ``--root`` (repeatable) lists
the folders ``ingest`` may read; without one, ``ingest`` is off.
"""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from typing import Any

from memo_core.cli.engines import add_engine_options, open_kb_from, open_memory_from
from memo_core.errors import InvalidInputError

__all__ = ["register"]


def cmd_mcp(args: argparse.Namespace) -> int:
    if not args.kb and not args.memory:
        raise InvalidInputError("give --kb FILE, --memory FILE or both")
    from memo_integrations.mcp_server import build_server

    with ExitStack() as stack:
        memory = stack.enter_context(open_memory_from(args, create=True)) if args.memory else None
        kb = stack.enter_context(open_kb_from(args, create=True)) if args.kb else None
        server = build_server(
            kb=kb, memory=memory, namespace=args.namespace or None, roots=args.root or ()
        )
        server.run("stdio")
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "mcp", help="serve the knowledge base and memory to MCP clients (stdio)"
    )
    p.add_argument("--kb", help="the knowledge base: a file, sqlite:///... or postgresql://...")
    p.add_argument("--memory", help="the memory: a file, sqlite:///... or postgresql://...")
    p.add_argument(
        "--namespace",
        action="append",
        help="whose memory the tools use (repeat for a nested namespace)",
    )
    p.add_argument("--root", action="append", help="a folder ingest may read (repeatable)")
    p.add_argument("--owner", default="default", help="owner of the documents (default: default)")
    add_engine_options(p)
    p.set_defaults(func=cmd_mcp)
