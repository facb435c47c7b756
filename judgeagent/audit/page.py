"""audit.html: the page a person labels the sampled items on.

One self-contained file: its style and script are inline (audit.css and audit.js beside this
module) and its items are a JSON block inside it, so it opens from disk (file://) with no
server, and a Content-Security-Policy forbids any request. Labels are kept in the browser
under the audit's id as they are given (IndexedDB, which is on disk once the page says
"saved", and localStorage), so a closed tab, a closed browser or a crashed one loses nothing,
and are exported as a labels file for ``judgeagent audit import``.
"""

from __future__ import annotations

import json
from html import escape
from importlib import resources

from judgeagent.audit.items import LABELS, AuditItem

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
SHORTCUTS = {label: str(i + 1) for i, label in enumerate(LABELS)}


def _asset(name: str) -> str:
    return (resources.files(__package__) / name).read_text(encoding="utf-8")


def _script_json(data: object) -> str:
    """JSON safe inside a <script> element: no "</" can close it early."""
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")


def page_item(item: AuditItem, role: str, *, stratum: str | None = None, probability: float | None = None,
              reasons: list[str] | None = None, model: dict | None = None) -> dict:
    """What the page shows of one item."""
    return item.to_dict() | {"role": role, "stratum": stratum, "probability": probability, "reasons": reasons or [], "model": model}


def render(*, audit_id: str, audit_dir: str, title: str, subtitle: str, items: list[dict], notes: list[str]) -> str:
    """The page, with ``items`` (from :func:`page_item`) in the order they are shown."""
    data = {"audit_id": audit_id, "audit_dir": audit_dir, "labels": list(LABELS), "shortcuts": SHORTCUTS, "items": items, "notes": notes}
    buttons = "".join(
        f'<button type="button" class="label" data-label="{escape(label)}" aria-pressed="false"><kbd>{key}</kbd> {escape(label)}</button>'
        for label, key in SHORTCUTS.items()
    )
    return TEMPLATE.format(
        csp=CSP, title=escape(title), subtitle=escape(subtitle), css=_asset("audit.css"), js=_asset("audit.js"), data=_script_json(data),
        buttons=buttons,
    )


TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<title>Audit: {title}</title>
<style>
{css}
</style>
</head>
<body>
<header class="top">
  <h1>Audit: {title}</h1>
  <p class="sub">{subtitle}</p>
  <div class="bar">
    <label class="who">Your name <input id="auditor" type="text" autocomplete="name" spellcheck="false" placeholder="who is labelling"></label>
    <button type="button" id="export"><kbd>E</kbd> Export labels</button>
    <span id="saved" class="saved" role="status" aria-live="polite"></span>
  </div>
  <div class="progress"><div id="progress-text"></div><div class="meter"><div id="meter"></div></div></div>
  <p id="warning" class="warn" hidden></p>
</header>
<nav class="steps" aria-label="items">
  <button type="button" id="prev" title="previous item (← or k)">← Previous</button>
  <span id="position"></span>
  <button type="button" id="next" title="next item (→ or j)">Next →</button>
  <button type="button" id="next-open" title="next item with no label (u)">Next unlabelled</button>
</nav>
<main>
  <article id="item" aria-live="polite">
    <div id="badges" class="badges"></div>
    <p id="question" class="question"></p>
    <ol id="options" class="options"></ol>
    <p id="key" class="keyline"></p>
    <section class="labelling" aria-label="labels">
      <div id="labels" class="labels">{buttons}</div>
      <label class="comment">Comment <span class="hint">(c to write, Esc to leave)</span>
        <textarea id="comment" rows="2"></textarea></label>
    </section>
    <section class="provenance">
      <h2>Where it came from</h2>
      <dl id="facts" class="facts"></dl>
      <div id="path" class="path"></div>
      <div id="chunks"></div>
      <ul id="missing" class="missing"></ul>
      <details id="model" hidden><summary>The model auditor's verdict</summary><div id="model-body"></div></details>
    </section>
  </article>
  <section class="overview" aria-label="all items">
    <h2>All items</h2>
    <div id="grid" class="grid"></div>
    <ul id="notes" class="notes"></ul>
  </section>
  <section class="help">
    <h2>Keys</h2>
    <p><kbd>1</kbd>–<kbd>6</kbd> the labels (1 valid; 2–6 defects, several allowed) · <kbd>→</kbd>/<kbd>j</kbd> next ·
    <kbd>←</kbd>/<kbd>k</kbd> previous · <kbd>u</kbd> next unlabelled · <kbd>c</kbd> comment · <kbd>Esc</kbd> leave the comment ·
    <kbd>e</kbd> export. Labels are saved in this browser as you give them; export them and run
    <code>judgeagent audit import FILE</code>. The invalid-item rate rests on the random sample of the questions
    that were asked; the gate's rejected questions, when sampled, measure the gate; suspects are counted apart.</p>
    <p>Labels: <b>valid</b>: sound, with the right key · <b>wrong key</b>: the marked answer is not the right one ·
    <b>ambiguous</b>: more than one answer is defensible · <b>not answerable from the sources</b>: the passages do not settle it ·
    <b>not self-contained</b>: it needs something the candidate is not shown · <b>gives the answer away</b>: the wording or the
    options reveal the key.</p>
  </section>
</main>
<script id="audit-data" type="application/json">{data}</script>
<script>
{js}
</script>
</body>
</html>
"""
