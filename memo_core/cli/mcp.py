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

from memo_core.errors import InvalidInputError

__all__ = ["register"]


def cmd_mcp(args: argparse.Namespace) -> int:
    if not args.kb and not args.memory:
        raise InvalidInputError("give --kb FILE, --memory FILE or both")
    from memo_integrations.mcp_server import build_server

    with ExitStack() as stack:
        memory = stack.enter_context(_open_memory(args)) if args.memory else None
        kb = stack.enter_context(_open_kb(args)) if args.kb else None
        server = build_server(
            kb=kb, memory=memory, namespace=args.namespace or None, roots=args.root or ()
        )
        server.run("stdio")
    return 0


def _open_memory(args: argparse.Namespace) -> Any:
    from memo_core.cli.memory import make_embedder
    from memo_core.memory import MemoHood, RecallGate

    gate = RecallGate.default(args.gate_model) if args.gate_model else None
    return MemoHood(
        args.memory, embedder=make_embedder(args.memory_embedder, args.memory), gate=gate
    )


def _open_kb(args: argparse.Namespace) -> Any:
    from memo_core.cli.kb import open_kb

    kb_args = argparse.Namespace(
        db=args.kb, owner=args.owner, config=args.config, embedder=args.kb_embedder, may_create=True
    )
    return open_kb(kb_args)


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
    p.add_argument("--gate-model", help="Model2Vec folder or name for the memory gate")
    p.add_argument(
        "--memory-embedder",
        choices=("auto", "local", "hash", "none"),
        default="auto",
        help="vectors for memory recall (default: what the file was built with)",
    )
    p.add_argument(
        "--kb-embedder",
        choices=("local", "hash", "cloudflare", "none"),
        help="override the knowledge base's configured embedder",
    )
    p.add_argument("--config", help="config.yaml (default: ./config.yaml, ~/.config/memo/)")
    p.set_defaults(func=cmd_mcp)
