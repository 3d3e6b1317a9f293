"""The ``memo`` command line: the parser and ``main``, the one place errors become exit codes.

Each command group lives in its own module exposing ``register(subparsers)``;
a handler is stored as ``func`` on its parser and returns an exit code.

The contract every command keeps: an error (memo's tree, or the operating
system's: a missing or unreadable file, a full disk) is one line on stderr and
exit code 2; a partly failed ingest is a summary and exit code 1; output piped
into a reader that stops early (``| head``) ends quietly, as Unix tools do.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from memo_core.display import printable
from memo_core.errors import MemoError

__all__ = [
    "COMMAND_MODULES",
    "EXIT_ERROR",
    "EXIT_PIPE",
    "PrintableFormatter",
    "build_parser",
    "main",
]

#: Command-group modules, in the order their commands appear in ``memo --help``.
COMMAND_MODULES = (
    "memo_core.cli.kb",
    "memo_core.cli.memory",
    "memo_core.cli.admin",
    "memo_core.cli.ops",
    "memo_core.cli.recall",
    "memo_core.cli.migrate",
    "memo_core.cli.mcp",
)

#: Exit code for a MemoError (bad input, missing file, refused operation).
EXIT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse with memo's error contract: a usage mistake is one line on stderr, exit 2
    (argparse's own two lines, usage then message, would break it)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"memo: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
    handler = logging.StreamHandler()
    handler.setFormatter(PrintableFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, handlers=[handler])
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        code = int(func(args) or 0)
        sys.stdout.flush()  # inside the try: a closed pipe surfaces here, not at exit
        return code
    except BrokenPipeError:
        return _reader_went_away()
    except (MemoError, OSError) as exc:
        print(f"memo: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("memo: interrupted", file=sys.stderr)
        return 130


#: Exit code when the reader of stdout went away (128 + SIGPIPE, like any Unix tool).
EXIT_PIPE = 141


def _one_line(exc: BaseException) -> str:
    """The reason on one line: a message with a newline (a file name, a driver's
    multi-line text) must not spill more lines onto stderr, and a control
    character in a file name is shown escaped, not sent to the terminal."""
    text = str(exc) or type(exc).__name__
    return " ".join(printable(" ".join(text.split("\n"))).split())


class PrintableFormatter(logging.Formatter):
    """Log lines whose message cannot forge another line: control characters escaped.

    (The traceback of a logged exception keeps its own lines.)
    """

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = printable(record.message)
        return super().formatMessage(record)


def _reader_went_away() -> int:
    # Python would print "Exception ignored ... BrokenPipeError" when it flushes
    # stdout at exit; point stdout at /dev/null so there is nothing left to flush.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_PIPE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
