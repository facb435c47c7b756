"""audit.html in real headless Chromium (Debian's), opened from disk: labels given by click and
by keyboard, kept across a reload and a browser killed and started again, exported as a file that
`judgeagent audit import` takes; no request, no error; and the page fits 1280 px and 420 px
without sideways scrolling, on every item."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from audit_double import read_items
from browser import Browser, fits, full_page_png, need_browser, not_blank
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.report import write_reports


@pytest.fixture(scope="module")
def audit_dir(tmp_path_factory, audit_source) -> Path:
    need_browser()
    run = tmp_path_factory.mktemp("audit-page") / "run"
    shutil.copytree(audit_source[0], run)
    res = CliRunner().invoke(app, ["audit", str(run), "--include-rejected"])
    assert res.exit_code == 0, res.output
    return run / "audit"


def text(b: Browser, selector: str) -> str:
    return b.js(f"document.querySelector({json.dumps(selector)}).textContent")


def pressed(b: Browser) -> list[str]:
    return b.js("[...document.querySelectorAll('#labels .label[aria-pressed=\"true\"]')].map(e => e.dataset.label)")


def saved(b: Browser) -> None:
    """Wait until the page says its labels are on disk (IndexedDB's transaction completed): the
    page's own status, watched with a MutationObserver, not a sleep."""
    b.js("""new Promise(done => {
      const s = document.getElementById('saved'), ok = () => s.getAttribute('data-state') === 'saved';
      if (ok()) return done(true);
      new MutationObserver((_, o) => { if (ok()) { o.disconnect(); done(true); } }).observe(s, {attributes: true});
    })""")


def download(b: Browser, folder: Path, key: str = "e") -> Path:
    """Press the export key and wait for Chromium to report the file written."""
    b.call("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(folder), eventsEnabled=True)
    b.events.clear()
    b.press(key)
    while True:
        ev = b.wait_for("Browser.downloadProgress")
        b.events.remove(ev)
        if ev["params"]["state"] == "completed":
            return Path(ev["params"]["filePath"])
        assert ev["params"]["state"] == "inProgress", ev


def test_labels_by_click_and_keyboard_survive_reload_and_restart_and_import(audit_dir, tmp_path):
    url = (audit_dir / "audit.html").resolve().as_uri()
    items = read_items(audit_dir)
    n = len(items)
    profile = tempfile.mkdtemp(prefix="ja-audit-profile-", dir=tmp_path)
    b = Browser(profile)
    try:
        b.open(url, 1280, 900)
        assert b.errors() == []
        assert [u for u in b.requests() if u != url] == []
        assert text(b, "#position") == f"Item 1 of {n}"
        b.click("#auditor")
        b.type_text("Ana Lopez")
        b.press("Escape")
        b.click('#labels .label[data-label="valid"]')
        assert pressed(b) == ["valid"]
        b.press("ArrowRight")
        assert text(b, "#position") == f"Item 2 of {n}"
        b.press("2")
        b.press("3")
        b.click('#labels .label[data-label="not self-contained"]')
        assert pressed(b) == ["wrong key", "ambiguous", "not self-contained"]
        b.press("c")
        b.type_text("the key names the wrong drug")
        b.press("Escape")
        b.press("j")
        b.press("4")
        b.press("1")  # valid replaces the defect
        assert pressed(b) == ["valid"]
        assert text(b, "#progress-text") == f"Random sample: 3 of {n} labelled"
        # A reload once the page says "saved" comes back to the same item with every label, once
        # the reloaded page has read both copies: under load Chromium has handed it a
        # localStorage without the last writes, and the page showed item 1 until IndexedDB's
        # newer copy won. (Reloaded before "saved", the last label's transaction may be aborted
        # with the page: a loaded CI run lost it so.)
        saved(b)
        b.open(url, 1280, 900)
        saved(b)
        assert text(b, "#position") == f"Item 3 of {n}" and pressed(b) == ["valid"]
        b.click("#grid button:nth-of-type(2)")
        assert pressed(b) == ["wrong key", "ambiguous", "not self-contained"]
        assert b.js("document.getElementById('comment').value") == "the key names the wrong drug"
        assert b.js("document.getElementById('auditor').value") == "Ana Lopez"
        # Once the page says "saved", the labels survive even a browser that is killed, not
        # closed (localStorage alone did not: Chromium writes it to disk lazily).
        saved(b)
        assert text(b, "#saved").startswith("saved ")
        b.crash()
    finally:
        b.close()
    b = Browser(profile)  # the browser opened again after the crash
    try:
        b.open(url, 1280, 900)
        saved(b)
        assert text(b, "#progress-text") == f"Random sample: 3 of {n} labelled"
        assert text(b, "#position") == f"Item 2 of {n}"
        assert pressed(b) == ["wrong key", "ambiguous", "not self-contained"]
        assert b.js("document.getElementById('auditor').value") == "Ana Lopez"
        for _ in range(n - 3):
            b.press("u")
            b.press("1")
        assert text(b, "#progress-text") == f"Random sample: {n} of {n} labelled"
        exported = download(b, tmp_path)
        assert b.errors() == []
    finally:
        b.close()
    body = json.loads(exported.read_text())
    assert body["auditor"] == "Ana Lopez" and body["audit_id"] == json.loads((audit_dir / "design.json").read_text())["audit_id"]
    assert len(body["labels"]) == n
    second = items[1]["item_id"]
    entry = next(e for e in body["labels"] if e["item_id"] == second)
    assert entry["labels"] == ["wrong key", "ambiguous", "not self-contained"] and entry["comment"] == "the key names the wrong drug"
    run = audit_dir.parent
    write_reports(run, html=True, md=False)
    res = CliRunner().invoke(app, ["audit", "import", str(exported)])
    assert res.exit_code == 0, res.output
    assert f"Ana Lopez: {n} new label(s)" in res.output
    out = json.loads((audit_dir / "results.json").read_text())
    passed = [i for i in items if i["status"] != "rejected"]
    assert out["n_labelled"] == n and out["invalid"]["n"] == len(passed)
    assert out["invalid"]["hits"] == (1 if items[1]["status"] != "rejected" else 0)
    # The exported file's import carries the rate into the run's metrics.json and report.
    block = json.loads((run / "metrics.json").read_text())["audit"]
    assert block["auditors"] == ["Ana Lopez"] and block["invalid"]["hits"] == out["invalid"]["hits"]
    assert "Invalid follow-up questions: " in (run / "report.html").read_text()


@pytest.mark.parametrize("width", [1280, 420])
def test_the_page_fits_the_width_on_every_item(audit_dir, tmp_path, width):
    url = (audit_dir / "audit.html").resolve().as_uri()
    n = len(read_items(audit_dir))
    b = Browser()
    try:
        b.open(url, width, 900, mobile=width < 600)
        for k in range(n):
            if k:
                b.press("ArrowRight")
            fit = fits(b)
            assert fit["ok"], (k, fit)
        png = full_page_png(b, width)
        not_blank(png)
        (tmp_path / f"audit-{width}.png").write_bytes(png)
        assert b.errors() == []
    finally:
        b.close()
