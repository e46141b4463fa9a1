"""Usage errors shared by every command: one line on stderr, exit status 2."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

USAGE_ERROR = 2


class UsageParser(argparse.ArgumentParser):
    """argparse, but errors are one line on stderr and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see `{self.prog} --help`)")


def fail(message: str) -> NoReturn:
    print(f"jitlab: error: {message}", file=sys.stderr)
    raise SystemExit(USAGE_ERROR)
