"""The ``memo`` command line.

Each command group lives in its own module exposing ``register(subparsers)``;
a handler is stored as ``func`` on its parser and returns an exit code. Errors
from memo's tree become a one-line reason on stderr and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from memo_core.errors import MemoError

__all__ = ["main"]

#: Command-group modules, in the order their commands appear in ``memo --help``.
COMMAND_MODULES = (
    "memo_core.cli.kb",
    "memo_core.cli.memory",
    "memo_core.cli.admin",
    "memo_core.cli.ops",
    "memo_core.cli.recall",
    "memo_core.cli.migrate",
)

#: Exit code for a MemoError (bad input, missing file, refused operation).
EXIT_ERROR = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memo",
        description="Local memory and a quote-or-refuse knowledge base for AI agents.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # that command group is not part of this build
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        return int(func(args) or 0)
    except MemoError as exc:
        print(f"memo: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("memo: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
