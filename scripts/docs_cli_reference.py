"""An mkdocs hook: the command-line reference, written from the Typer application itself.

``docs/reference/cli.md`` holds a marker; at build time it is replaced by one section per
command (and per sub-command), each with its help text, its usage line and its arguments and
options, grouped by the help panels that ``--help`` shows. Written by hand, a reference drifts
from the code at the first new flag; read from the application, it cannot.
"""

from __future__ import annotations

import os
import re
from typing import Any

MARKER = "<!-- cli-reference -->"
PAGE = "reference/cli.md"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"{PAGE} lost its marker {MARKER}")
    return markdown.replace(MARKER, render())


def render() -> str:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import typer

    from judgeagent.cli.app import app

    root = typer.main.get_command(app)
    return "\n".join(_sections(root, ["judgeagent"]))


# Typer ships its own copy of Click (typer._click) in recent versions, so these functions read
# commands and parameters by their attributes rather than by isinstance checks on click's classes.


def _sections(command: Any, path: list[str]) -> list[str]:
    ctx = command.context_class(command, info_name=" ".join(path))
    level = "##" if len(path) <= 2 else "###"  # the program and its commands; a group's commands below them
    # Typer names an argument {name} in its usage pieces; --help prints it as NAME.
    usage = re.sub(r"\{(\w+)\}", lambda m: m.group(1).upper(), " ".join([*path, *command.collect_usage_pieces(ctx)]))
    out = [f"{level} `{' '.join(path)}`", "", _text(command.help or command.short_help or ""), "", "```", usage, "```", ""]
    out += _parameters(command)
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                out += _sections(sub, [*path, name])
    return out


def _parameters(command: Any) -> list[str]:
    panels: dict[str, list[str]] = {}
    for param in command.params:
        if getattr(param, "hidden", False) or param.name == "help":
            continue
        panel = getattr(param, "rich_help_panel", None) or ("Arguments" if param.param_type_name == "argument" else "Options")
        panels.setdefault(panel, []).append(_row(param))
    out: list[str] = []
    for panel, rows in panels.items():
        out += [f"**{panel}**", "", "| name | value | description |", "|---|---|---|", *rows, ""]
    return out


def _row(param: Any) -> str:
    """One parameter; its help already ends with its default and range, as --help shows them."""
    if param.param_type_name == "argument":
        name = f"`{(param.metavar or param.name or '').upper()}`"
        value = ""
    else:
        name = " / ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
        value = "flag" if getattr(param, "is_flag", False) else f"`{param.metavar}`" if param.metavar else ""
    required = " (required)" if param.required else ""
    return f"| {name}{required} | {_cell(value)} | {_cell(_plain(getattr(param, 'help', '') or ''))} |"


def _plain(text: str) -> str:
    """Help text as ``--help`` shows it: Typer reads it as rich markup."""
    from rich.text import Text

    return Text.from_markup(text).plain.strip()


def _text(text: str) -> str:
    """A command's help as paragraphs, read literally like a cell."""
    return "\n\n".join(_cell(p) for p in _plain(text).split("\n\n"))


def _cell(text: str) -> str:
    """Help text as one table cell, read literally: "[default: 3]" is no link, "<name>" no tag.

    Code spans (between backticks) are shown as written, so only the text between them is escaped."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        # A pipe inside a code span does not split the row (Python-Markdown's tables), outside it does.
        for raw, escaped in (("|", "\\|"), ("[", "\\["), ("]", "\\]"), ("<", "&lt;"), (">", "&gt;")):
            parts[i] = parts[i].replace(raw, escaped)
    return "`".join(parts).replace("\n\n", "<br>").replace("\n", " ")
