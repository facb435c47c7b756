"""Markdown files, parsed with markdown-it-py (CommonMark, with GitHub's tables).

A parser, not patterns: it knows that ``#`` inside a code fence is no heading, that a
setext underline makes one, and where a list ends. Headings become headings; paragraphs,
list items (one line each), table rows and code blocks become paragraphs; inline markup
(emphasis, links, code spans) is reduced to its text. A YAML front matter block is left out.
"""

from __future__ import annotations

import re
from pathlib import Path

from judgeagent.data.documents.base import Block, Converted, Unreadable, missing_library
from judgeagent.data.documents.readers.plain_text import read_text

SUFFIXES = (".md", ".markdown")
WHAT = "Markdown files"

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_CONTAINERS = {"bullet_list_open", "ordered_list_open", "blockquote_open", "table_open"}


def convert(path: Path) -> Converted:
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        raise missing_library("markdown-it-py", WHAT) from None
    text = _FRONT_MATTER.sub("", read_text(path), count=1)
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.level != 0:
            i += 1
            continue
        if token.type == "heading_open":
            heading = _inline_text(tokens[i + 1])
            if heading:
                blocks.append(Block(" ".join(heading.split()), int(token.tag[1])))
        elif token.type == "paragraph_open":
            _add(blocks, _inline_text(tokens[i + 1]))
        elif token.type in ("fence", "code_block"):
            _add(blocks, token.content.rstrip("\n"))
        elif token.type in _CONTAINERS:
            end = _closing(tokens, i)
            _add(blocks, "\n".join(_container_lines(token.type, tokens[i + 1 : end])))
            i = end
        i += 1
    if not blocks:
        raise Unreadable("no text")
    title = next((b.text for b in blocks if b.level == 1), None)
    return Converted(title, tuple(blocks))


def _add(blocks: list[Block], text: str) -> None:
    if text.strip():
        blocks.append(Block(text.strip("\n")))


def _closing(tokens, start: int) -> int:
    close = tokens[start].type.replace("_open", "_close")
    for j in range(start + 1, len(tokens)):
        if tokens[j].type == close and tokens[j].level == tokens[start].level:
            return j
    return len(tokens) - 1


def _container_lines(kind: str, inner) -> list[str]:
    """One line per list item (its first paragraph marked "- "), table row or quoted paragraph."""
    lines: list[str] = []
    row: list[str] = []
    item_starts = False
    for token in inner:
        if token.type == "list_item_open":
            item_starts = True
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close":
            if any(row):
                lines.append(" | ".join(row))
        elif token.type == "inline":
            text = " ".join(_inline_text(token).split())
            if kind == "table_open":
                row.append(text)
            elif text:
                lines.append(("- " if item_starts else "  ") + text if kind != "blockquote_open" else text)
                item_starts = False
        elif token.type in ("fence", "code_block"):
            lines.append(token.content.rstrip("\n"))
    return lines


def _inline_text(token) -> str:
    """The words of an inline token: text, code spans and image descriptions; markup and raw HTML dropped."""
    out = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type == "softbreak":
            out.append(" ")
        elif child.type == "hardbreak":
            out.append("\n")
        elif child.type == "image":
            out.append(_inline_text(child))
    return "".join(out).strip()
