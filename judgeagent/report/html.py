"""The report as one self-contained HTML file.

Everything is inline (CSS in a <style>, figures as base64 data URIs, no script), and a
Content-Security-Policy forbids any request, so the file opens the same offline, from an
e-mail attachment or years later. The layout is one column, as wide as a laptop's screen
allows a table to read well (72rem); a table's text wraps in its cells (numbers stay whole),
so it fits the column instead of scrolling sideways and hiding its last columns. Below 40rem
(a phone, a narrow window) each table row becomes a card of "column: value" lines, so no
cell is cut off at any width. Printing drops the contents list and keeps tables, figures and
questions whole on a page.
"""

from __future__ import annotations

import base64
from html import escape

from judgeagent.report.document import Bullets, Document, Excerpt, Facts, Figure, Heading, Links, Para, QuestionBlock, TableBlock

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

CSS = """
:root { color-scheme: light; --fg: #1d2330; --muted: #5b6472; --line: #d9dee6; --soft: #f5f7fa; --accent: #2457a6; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0 auto; max-width: 72rem; padding: 1.25rem 1rem 3rem; color: var(--fg); background: #fff;
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; overflow-wrap: anywhere; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 .3rem; }
h2 { font-size: 1.3rem; margin: 2.2rem 0 .8rem; padding-bottom: .3rem; border-bottom: 2px solid var(--line); }
h3 { font-size: 1.08rem; margin: 1.6rem 0 .5rem; }
h4 { font-size: 1rem; margin: 1.2rem 0 .4rem; color: var(--accent); }
p { margin: .5rem 0; max-width: 60rem; }
a { color: var(--accent); }
.subtitle { color: var(--muted); margin: 0 0 1rem; }
nav.toc { background: var(--soft); border: 1px solid var(--line); border-radius: 8px; padding: .5rem .9rem; }
nav.toc ol { margin: 0; padding-left: 1.2rem; display: flex; flex-wrap: wrap; gap: .2rem 1.6rem; }
.lead { font-size: 1.12rem; font-weight: 600; margin: 1rem 0; }
.note { color: var(--muted); font-size: .92rem; }
.warn { background: #fff4e5; border-left: 4px solid #f29900; padding: .5rem .75rem; border-radius: 4px; }
dl.facts { display: grid; grid-template-columns: minmax(0, max-content) minmax(0, 1fr); gap: .25rem 1rem; margin: .6rem 0; }
dl.facts dt { font-weight: 600; color: var(--muted); }
dl.facts dd { margin: 0; }
ul.links { display: flex; flex-wrap: wrap; gap: .3rem 1.2rem; padding-left: 0; list-style: none; }
.scroll { margin: .6rem 0; max-width: 100%; }
table { border-collapse: collapse; font-size: .93rem; font-variant-numeric: tabular-nums; max-width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: .35rem .6rem; text-align: left; vertical-align: top; }
th { background: var(--soft); overflow-wrap: normal; }
td.num, th.num { text-align: right; }
td.num { white-space: nowrap; }
.caption { color: var(--muted); font-size: .88rem; margin-top: .3rem; max-width: 60rem; }
figure { margin: 1.2rem 0; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; }
figcaption { color: var(--muted); font-size: .88rem; margin-top: .35rem; }
blockquote.excerpt { margin: .4rem 0 .8rem; padding: .5rem .8rem; background: var(--soft); border-left: 3px solid #9aa7bb;
  font-size: .9rem; border-radius: 0 6px 6px 0; }
blockquote.excerpt .src { display: block; font-weight: 600; font-size: .8rem; color: var(--muted); margin-bottom: .15rem; }
.q { border: 1px solid var(--line); border-radius: 8px; padding: .6rem .85rem; margin: .7rem 0; }
.q .label { font-weight: 600; color: var(--muted); font-size: .85rem; text-transform: uppercase; letter-spacing: .02em; }
.q ol.opts { list-style: none; padding-left: .4rem; margin: .3rem 0; }
.q dl.facts { margin-bottom: 0; }
ul { padding-left: 1.3rem; }
@media (max-width: 40rem) {
  body { font-size: 15px; padding: .9rem .7rem 2rem; }
  h1 { font-size: 1.35rem; }
  dl.facts { grid-template-columns: minmax(0, 1fr); gap: 0; }
  dl.facts dd { margin-bottom: .35rem; }
  /* Each row a card of "column: value" lines (the column's name from data-label). */
  table, tbody, tr, td { display: block; width: 100%; }
  thead { display: none; }
  tr { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; padding: .25rem .55rem; }
  td, td.num { border: 0; padding: .12rem 0; text-align: left; white-space: normal; display: grid;
    grid-template-columns: minmax(0, 9rem) minmax(0, 1fr); gap: .6rem; }
  td::before { content: attr(data-label); font-weight: 600; color: var(--muted); font-size: .85rem; }
  td[data-label=""] { grid-template-columns: minmax(0, 1fr); }
  td[data-label=""]::before { display: none; }
}
@media print {
  body { max-width: none; padding: 0; font-size: 10.5pt; }
  nav.toc { display: none; }
  a { color: inherit; text-decoration: none; }
  h2, h3, h4 { break-after: avoid; }
  table, figure, .q, blockquote.excerpt, dl.facts { break-inside: avoid; }
  figure img { max-height: 9cm; width: auto; }
}
"""


def _table(tb: TableBlock) -> str:
    t = tb.table

    def cls(i: int) -> str:
        return ' class="num"' if i in t.numeric else ""

    head = "".join(f"<th{cls(i)} scope=\"col\">{escape(c)}</th>" for i, c in enumerate(t.columns))
    # data-label: the column's name, which a narrow screen shows beside each value (the CSS's cards).
    labels = [f' data-label="{escape(c)}"' for c in t.columns]
    body = "".join("<tr>" + "".join(f"<td{cls(i)}{labels[i] if i < len(labels) else ''}>{escape(c)}</td>" for i, c in enumerate(row)) + "</tr>"
                   for row in t.rows)  # fmt: skip
    cap = f'<div class="caption">{escape(tb.caption)}</div>' if tb.caption else ""
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{cap}'


def _facts(pairs: list[tuple[str, str]]) -> str:
    return '<dl class="facts">' + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in pairs) + "</dl>"


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def block_html(b) -> str:
    if isinstance(b, Heading):
        n = min(6, max(3, b.level))
        return f"<h{n}>{escape(b.text)}</h{n}>"
    if isinstance(b, Para):
        return f'<p class="{b.style}">{escape(b.text)}</p>' if b.style != "p" else f"<p>{escape(b.text)}</p>"
    if isinstance(b, Facts):
        return _facts(b.pairs)
    if isinstance(b, TableBlock):
        return _table(b)
    if isinstance(b, Bullets):
        return "<ul>" + "".join(f"<li>{escape(i)}</li>" for i in b.items) + "</ul>"
    if isinstance(b, Links):
        return '<ul class="links">' + "".join(f'<li><a href="{escape(href)}">{escape(text)}</a></li>' for text, href in b.items) + "</ul>"
    if isinstance(b, Figure):
        return (
            f'<figure id="fig-{escape(b.name)}"><img src="{data_uri(b.png)}" alt="{escape(b.title)}">'
            f"<figcaption>{escape(b.caption)}</figcaption></figure>"
        )
    if isinstance(b, Excerpt):
        return f'<blockquote class="excerpt"><span class="src">{escape(b.label)}</span>{escape(b.text)}</blockquote>'
    if isinstance(b, QuestionBlock):
        label = f'<div class="label">{escape(b.label)}</div>' if b.label else ""
        opts = ""
        if b.options:
            opts = '<ol class="opts">' + "".join(f"<li>{escape(k)}. {escape(v)}</li>" for k, v in b.options.items()) + "</ol>"
        return f'<div class="q">{label}<p>{escape(b.text)}</p>{opts}{_facts(b.facts)}</div>'
    raise TypeError(f"unknown block {type(b).__name__}")


def to_html(doc: Document) -> str:
    toc = "".join(f'<li><a href="#{s.anchor}">{escape(s.title)}</a></li>' for s in doc.sections)
    body = "\n".join(
        f'<section id="{s.anchor}">\n<h2>{escape(s.title)}</h2>\n' + "\n".join(block_html(b) for b in s.blocks) + "\n</section>"
        for s in doc.sections
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<link rel="icon" href="data:,">
<title>{escape(doc.title)}</title>
<style>{CSS}</style>
</head>
<body>
<header>
<h1>{escape(doc.title)}</h1>
<p class="subtitle">{escape(doc.subtitle)}</p>
<nav class="toc" aria-label="Contents"><ol>{toc}</ol></nav>
</header>
<main>
{body}
</main>
</body>
</html>
"""
