"""The run report and the sweep report read well at a laptop's width (1280 px) and a narrow
window's (420 px), measured in real headless Chromium as laid out: the page never scrolls
sideways, nothing reaches past its right edge, and no table cell is clipped (tests/browser.py's
FIT_JS). The pages: a run report nobody audited, an audited run's, and the report of a sweep
whose one target is named by its URL and the other by a short label, before and after its
audit. The audit page's own check is in test_audit_page.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from audit_double import labels_file, scripted_sweep
from browser import Browser, fits, full_page_png, need_browser, not_blank
from interview_double import TOPICS
from typer.testing import CliRunner

from judgeagent.audit.design import Design
from judgeagent.cli.app import app
from judgeagent.report import write_reports
from judgeagent.sweeps.board import Leaderboard
from judgeagent.sweeps.outputs import lead_sentence

FIXTURES = Path(__file__).parent / "fixtures" / "runs"


def cli(*args):
    res = CliRunner().invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return res


def label_everything(folder: Path, tmp: Path, wrong: set[str] = frozenset()) -> None:
    """A person labels the whole sample: ``wrong`` items have a wrong key, the rest are valid."""
    order = Design.from_dict(json.loads((folder / "design.json").read_text())["design"]).order
    cli("audit", "import", labels_file(tmp / f"{folder.parent.name}-labels.json", folder, {i: ["wrong key"] if i in wrong else ["valid"] for i in order}))


@pytest.fixture(scope="module")
def pages(tmp_path_factory, audit_source, demo_graph, demo_seeds) -> dict[str, Path]:
    need_browser()
    tmp = tmp_path_factory.mktemp("layout")
    plain = tmp / "medqa-a"
    shutil.copytree(FIXTURES / "medqa-a", plain)
    (plain_html,) = write_reports(plain, html=True, md=False)
    run = tmp / "run"
    shutil.copytree(audit_source[0], run)
    write_reports(run, html=True, md=False)
    cli("audit", run, "--sample", 6)
    items = [json.loads(line)["item_id"] for line in (run / "audit" / "items.jsonl").read_text().splitlines()]
    label_everything(run / "audit", tmp, wrong={items[0]})
    sweep_dir = scripted_sweep(tmp, demo_graph, demo_seeds, everyone_wrong={TOPICS[0]}, report=True, labels=("a", None))
    shutil.copy(sweep_dir / "report.html", sweep_dir / "report-before-audit.html")
    board = json.loads((sweep_dir / "leaderboard.json").read_text())
    cli("audit", sweep_dir, "--sample", len(board["matrix"]["items"]))
    label_everything(sweep_dir / "audit", tmp, wrong={board["matrix"]["items"][0]})
    return {"run report, not audited": plain_html, "run report, audited": run / "report.html",
            "sweep report, not audited": sweep_dir / "report-before-audit.html", "sweep report, audited": sweep_dir / "report.html"}  # fmt: skip


@pytest.fixture(scope="module")
def browser():
    need_browser()
    b = Browser()
    try:
        yield b
    finally:
        b.close()


@pytest.mark.parametrize("width", [1280, 420])
@pytest.mark.slow
def test_every_report_fits_the_width(browser, pages, width, tmp_path):
    for name, page in pages.items():
        url = page.resolve().as_uri()
        browser.open(url, width, 900, mobile=width < 600)
        fit = fits(browser)
        assert fit["ok"], (name, width, fit)
        assert browser.errors() == []
        png = full_page_png(browser, width)
        not_blank(png)
        (tmp_path / f"{name.replace(' ', '-').replace(',', '')}-{width}.png").write_bytes(png)


def test_the_sweep_report_links_each_target_report_and_names_a_url_target_in_full(browser, pages):
    page = pages["sweep report, audited"]
    browser.open(page.resolve().as_uri(), 1280, 900)
    links = browser.js("[...document.querySelectorAll('ul.links a')].map(a => [a.textContent, a.getAttribute('href')])")
    assert [text for text, _ in links] == ["a: interview report", f"{links[1][0].split(': ')[0]}: interview report"]
    assert all((page.parent / href).is_file() for _, href in links)
    board = json.loads((page.parent / "leaderboard.json").read_text())
    url_target = next(t for t in board["targets"] if t["name"] != "a")
    assert url_target["name"].startswith("http://127.0.0.1:") and url_target["model"] == url_target["name"]
    labelled = next(t for t in board["targets"] if t["name"] == "a")
    assert labelled["model"].startswith("http://") and (page.parent / "targets" / "a" / "report.html").is_file()
    # The URL-named target's full name is in its table cell (wrapped, not cut).
    cells = browser.js("[...document.querySelectorAll('#leaderboard table')[0].querySelectorAll('tbody td:nth-child(2)')].map(td => td.textContent)")
    assert url_target["name"] in cells


def board(*rows) -> Leaderboard:
    return Leaderboard.from_json({"ranked_on": "shared items", "targets": [
        {"name": n, "status": "ok", "rank": r, "rank_interval": [lo, hi], "rank_label": label, "score": s} for n, r, lo, hi, label, s in rows]})  # fmt: skip


def test_the_lead_says_a_tie_as_a_tie():
    assert lead_sentence(board(("local", 1, 1, 2, "1st–2nd", 66.7), ("gemma", 1, 1, 2, "1st–2nd", 66.7))) == (
        "Tied for first: local and gemma (66.7% each on the shared items); the data cannot tell them apart.")
    assert lead_sentence(board(("a", 1, 1, 2, "1st–2nd", 70.0), ("b", 2, 1, 3, "1st–3rd", 60.0), ("c", 3, 2, 3, "2nd–3rd", 50.0))) == (
        "No clear best: a leads on the point estimate, but b could also be first (rank intervals at 95%: a 1st–2nd, b 1st–3rd).")
    assert lead_sentence(board(("a", 1, 1, 1, "1st", 90.0), ("b", 2, 2, 2, "2nd", 10.0))) == (
        "Best: a (1st at 95%: no other target's rank interval reaches first).")
    assert lead_sentence(board()) == "No target has figures yet."
