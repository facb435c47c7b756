"""The report as Markdown (GitHub-flavoured), with the figures as PNG files beside it."""

from __future__ import annotations

import re

from judgeagent.report.document import Bullets, Document, Excerpt, Facts, Figure, Heading, Links, Para, QuestionBlock, TableBlock

_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def esc(text: str) -> str:
    """Model-written text must not turn into markup: escape what Markdown would act on."""
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _table(tb: TableBlock) -> list[str]:
    t = tb.table
    out = ["| " + " | ".join(esc(c) for c in t.columns) + " |"]
    out.append("|" + "|".join("---:" if i in t.numeric else "---" for i in range(len(t.columns))) + "|")
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in t.rows]
    if tb.caption:
        out += ["", f"_{esc(tb.caption)}_"]
    return out


def _lines_with_breaks(lines: list[str]) -> list[str]:
    # A trailing backslash is CommonMark's hard line break: facts stay one per line
    # without becoming a list that would merge with an options list above it.
    return [ln + ("\\" if i < len(lines) - 1 else "") for i, ln in enumerate(lines)]


def block_lines(b, image_dir: str) -> list[str]:
    if isinstance(b, Heading):
        return ["#" * min(6, b.level) + " " + esc(b.text)]
    if isinstance(b, Para):
        text = esc(b.text)
        return {"lead": [f"**{text}**"], "note": [f"_{text}_"], "warn": [f"> **Warning:** {text}"]}.get(b.style, [text])
    if isinstance(b, Facts):
        return [f"- **{esc(k)}:** {esc(v)}" for k, v in b.pairs]
    if isinstance(b, TableBlock):
        return _table(b)
    if isinstance(b, Bullets):
        return [f"- {esc(i)}" for i in b.items]
    if isinstance(b, Links):
        return [f"- [{esc(text)}](<{href}>)" for text, href in b.items]
    if isinstance(b, Figure):
        return [f"![{esc(b.title)}]({image_dir}/{b.name}.png)", "", f"_{esc(b.caption)}_"]
    if isinstance(b, Excerpt):
        return [f"> **{esc(b.label)}**", ">", f"> {esc(b.text)}"]
    if isinstance(b, QuestionBlock):
        out = [(f"**{esc(b.label)}.** " if b.label else "") + esc(b.text)]
        if b.options:
            out += [""] + [f"- {esc(k)}. {esc(v)}" for k, v in b.options.items()]
        out += [""] + _lines_with_breaks([f"**{esc(k)}:** {esc(v)}" for k, v in b.facts])
        return out
    raise TypeError(f"unknown block {type(b).__name__}")


def to_markdown(doc: Document, image_dir: str = "report_files") -> tuple[str, dict[str, bytes]]:
    """The Markdown text and the images to save as ``{image_dir}/<name>.png``."""
    lines = [f"# {esc(doc.title)}", "", f"_{esc(doc.subtitle)}_", ""]
    lines += [f"- [{esc(s.title)}](#{s.anchor})" for s in doc.sections] + [""]
    for s in doc.sections:
        # An explicit anchor, because GitHub's slugs of headings differ from other renderers'.
        lines += [f'<a id="{s.anchor}"></a>', "", f"## {esc(s.title)}", ""]
        for b in s.blocks:
            lines += block_lines(b, image_dir) + [""]
    images = {f"{image_dir}/{f.name}.png": f.png for f in doc.figures()}
    return "\n".join(lines).rstrip() + "\n", images
