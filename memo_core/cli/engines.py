"""Opening a memory and a knowledge base together, for the commands that serve both
(``memo recall``, ``memo mcp``): their shared options and the two openers."""

from __future__ import annotations

import argparse
from typing import Any

from memo_core.cli.bases import require_existing
from memo_core.cli.kb import open_kb
from memo_core.cli.memory import make_embedder

__all__ = ["add_engine_options", "open_kb_from", "open_memory_from"]


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that opens a memory and a knowledge base together."""
    parser.add_argument("--gate-model", help="Model2Vec folder or name for the memory gate")
    parser.add_argument(
        "--memory-embedder",
        choices=("auto", "local", "hash", "none"),
        default="auto",
        help="vectors for memory recall (default: what the file was built with)",
    )
    parser.add_argument(
        "--kb-embedder",
        choices=("local", "hash", "cloudflare", "none"),
        help="override the knowledge base's configured embedder",
    )
    parser.add_argument("--config", help="config.yaml (default: ./config.yaml, ~/.config/memo/)")


def open_memory_from(args: argparse.Namespace, *, create: bool) -> Any:
    """The ``MemoHood`` named by ``--memory`` and the options of :func:`add_engine_options`."""
    from memo_core.memory import MemoHood, RecallGate

    path = args.memory if create else require_existing(args.memory, "memory base")
    gate = RecallGate.default(args.gate_model) if args.gate_model else None
    return MemoHood(path, embedder=make_embedder(args.memory_embedder, path), gate=gate)


def open_kb_from(args: argparse.Namespace, *, create: bool) -> Any:
    """The ``MemoBase`` named by ``--kb`` and the options of :func:`add_engine_options`."""
    path = args.kb if create else require_existing(args.kb, "knowledge base")
    kb_args = argparse.Namespace(
        db=path, owner=args.owner, config=args.config, embedder=args.kb_embedder, may_create=create
    )
    return open_kb(kb_args)
