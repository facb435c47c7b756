"""What every document reader returns, and how it says a file cannot be read."""

from __future__ import annotations

from dataclasses import dataclass

from judgeagent.errors import ConfigError

EXTRA = "documents"


@dataclass(frozen=True)
class Block:
    """A heading (``level`` 1-6) or a paragraph (``level`` 0) of a converted document.

    A paragraph is one piece of running text: list items, table rows and code lines keep
    their line breaks inside it; a heading is one line.
    """

    text: str
    level: int = 0

    @property
    def is_heading(self) -> bool:
        return self.level > 0


@dataclass(frozen=True)
class Converted:
    """One file as text: its title (None when the file names none) and its blocks in reading order."""

    title: str | None
    blocks: tuple[Block, ...]


class Unreadable(Exception):
    """This file cannot be read; ``str(err)`` says why in a few words (no path: the caller adds it)."""


def missing_library(package: str, what: str) -> ConfigError:
    """The one-line error for a library of the documents extra that is not installed.

    A missing library is the installation's fault, not the file's: it stops the build
    instead of skipping every file of that type.
    """
    return ConfigError(f"reading {what} needs the {package} package: pip install 'judgeagent[{EXTRA}]'")
