"""The HTML report opened in real headless Chromium, driven over the DevTools protocol.

Checked: no console errors, no network request (only the file itself and data: URIs),
every figure is an image with a non-zero size, a phone-width viewport has no sideways
page scroll, print media hides the contents list and prints to PDF, and the screenshot is
not blank. Chromium comes from Debian (scripts/install_chromium.sh); without it these
tests are skipped, except under CI, where a missing browser is a failure.
"""

from __future__ import annotations

import base64
import io
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from browser import Browser, need_browser, not_blank

from judgeagent.report import write_reports

FIXTURES = Path(__file__).parent / "fixtures" / "runs"


@pytest.fixture(scope="module")
def browser():
    need_browser()
    b = Browser()
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module", params=["medqa-a", "quality-a"])
def report_url(request, tmp_path_factory):
    run = tmp_path_factory.mktemp("html") / request.param
    shutil.copytree(FIXTURES / request.param, run)
    (html,) = write_reports(run, html=True, md=False)
    return html.resolve().as_uri(), request.param


IMAGES_JS = """JSON.stringify([...document.images].map(i => ({
  alt: i.alt, complete: i.complete, w: i.naturalWidth, h: i.naturalHeight,
  cw: i.getBoundingClientRect().width, ch: i.getBoundingClientRect().height, data: i.src.startsWith('data:image/png;base64,')})))"""


def test_desktop_page_has_no_errors_no_requests_and_sized_images(browser, report_url):
    url, name = report_url
    browser.open(url, 1200, 900)
    assert browser.errors() == []
    # Only the report file itself; images are data: URIs, which Chromium may or may not list.
    others = [u for u in browser.requests() if u != url and not u.startswith("data:")]
    assert others == []
    images = json.loads(browser.js(IMAGES_JS))
    want = {"medqa-a": 3, "quality-a": 3}[name]  # trajectory, follow-up accuracy, + ΔACC/round or ACC by label
    assert len(images) == want
    for img in images:
        assert img["data"] and img["complete"], img
        assert img["w"] > 200 and img["h"] > 100 and img["cw"] > 200 and img["ch"] > 50, img
    shot = base64.b64decode(browser.call("Page.captureScreenshot", format="png")["data"])
    not_blank(shot)
    assert browser.js("document.title").startswith("JudgeAgent report")
    assert browser.js("document.querySelectorAll('section').length") == 5


def test_phone_width_has_no_sideways_scroll(browser, report_url):
    url, _ = report_url
    browser.open(url, 375, 812, mobile=True)
    assert browser.errors() == []
    overflow = browser.js("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1, f"the page scrolls sideways by {overflow}px on a phone"
    # Figures shrink to the screen instead of overflowing it.
    widths = json.loads(browser.js("JSON.stringify([...document.images].map(i => i.getBoundingClientRect().right))"))
    assert widths and max(widths) <= 375
    not_blank(base64.b64decode(browser.call("Page.captureScreenshot", format="png")["data"]))


def test_printable(browser, report_url):
    url, _ = report_url
    browser.open(url, 1200, 900)
    browser.call("Emulation.setEmulatedMedia", media="print")
    try:
        assert browser.js("getComputedStyle(document.querySelector('nav.toc')).display") == "none"
        assert browser.js("[...document.images].every(i => i.getBoundingClientRect().width > 0)")
    finally:
        browser.call("Emulation.setEmulatedMedia", media="")
    pdf = base64.b64decode(browser.call("Page.printToPDF", printBackground=True)["data"])
    assert pdf.startswith(b"%PDF") and len(pdf) > 20_000
    assert browser.errors() == []


def save_screenshot(run_name: str, out: Path, width: int = 1000) -> None:
    """The picture of a report for the README: the top of the page (run, figures, tables)
    above the Plots section, stacked into one PNG."""
    from PIL import Image

    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / run_name
        shutil.copytree(FIXTURES / run_name, run)
        (html,) = write_reports(run, html=True, md=False)
        b = Browser()
        try:
            b.open(html.resolve().as_uri(), width, 900)
            parts = []
            for selector, height in (("body", 1250), ("#plots", 1500)):
                top = b.js(f"document.querySelector('{selector}').getBoundingClientRect().top + window.scrollY")
                clip = {"x": 0, "y": max(0, top - 10), "width": width, "height": height, "scale": 1}
                data = b.call("Page.captureScreenshot", format="png", captureBeyondViewport=True, clip=clip)["data"]
                parts.append(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"))
        finally:
            b.close()
    gap = 24
    sheet = Image.new("RGB", (width, sum(p.height for p in parts) + gap), "#d9dee6")
    sheet.paste(parts[0], (0, 0))
    sheet.paste(parts[1], (0, parts[0].height + gap))
    sheet.save(out, optimize=True)


if __name__ == "__main__":  # .venv/bin/python tests/test_report_html.py docs/report-screenshot.png
    import sys

    save_screenshot("medqa-a", Path(sys.argv[1] if len(sys.argv) > 1 else "docs/report-screenshot.png"))
