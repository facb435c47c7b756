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
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from judgeagent.report import write_reports

FIXTURES = Path(__file__).parent / "fixtures" / "runs"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", "--remote-debugging-port=0",
]


def _need_browser():
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (scripts/install_chromium.sh installs it)")
        pytest.skip("chromium is not installed (scripts/install_chromium.sh installs it)")
    try:
        import websocket  # noqa: F401  (websocket-client, a test dependency)
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("websocket-client is not installed")
        pytest.skip("websocket-client is not installed")


class Browser:
    """A headless Chromium and one page, spoken to over the DevTools protocol."""

    def __init__(self):
        import websocket

        self.profile = tempfile.mkdtemp(prefix="ja-chromium-")
        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        # Chromium writes the port it picked to DevToolsActivePort: no port guessing, no race.
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not start")
            time.sleep(0.05)
        port = int(port_file.read_text().splitlines()[0])
        pages = []
        while not pages:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                pages = [t for t in json.load(r) if t.get("type") == "page"]
            if not pages:
                time.sleep(0.05)
        # suppress_origin: Chromium refuses DevTools websockets that carry an Origin header.
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        self.ids = itertools.count(1)
        self.events: list[dict] = []
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable")

    def call(self, method: str, **params) -> dict:
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_for(self, method: str, timeout: float = 30) -> dict:
        """The first ``method`` event since the events were last cleared (it may have come in
        while a call was waiting for its own answer)."""
        deadline = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < deadline:
            for ev in self.events[seen:]:
                if ev.get("method") == method:
                    return ev
            seen = len(self.events)
            self.events.append(json.loads(self.ws.recv()))
        raise TimeoutError(method)

    def open(self, url: str, width: int, height: int, mobile: bool = False) -> None:
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=2 if mobile else 1, mobile=mobile)
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def js(self, expression: str):
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(res["exceptionDetails"])
        return res["result"].get("value")

    def errors(self) -> list[str]:
        out = []
        for ev in self.events:
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(f"console: {p.get('args')}")
            elif m == "Runtime.exceptionThrown":
                out.append(f"exception: {p.get('exceptionDetails')}")
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif m == "Network.loadingFailed":
                out.append(f"load failed: {p.get('errorText')}")
        return out

    def requests(self) -> list[str]:
        return [ev["params"]["request"]["url"] for ev in self.events if ev.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    _need_browser()
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


def _not_blank(png: bytes) -> None:
    from PIL import Image, ImageStat

    img = Image.open(io.BytesIO(png)).convert("L")
    assert img.width > 100 and img.height > 100
    assert ImageStat.Stat(img).stddev[0] > 10, "the screenshot is (nearly) one colour"
    assert len(img.getcolors(maxcolors=1 << 16) or range(1 << 16)) > 50


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
    _not_blank(shot)
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
    _not_blank(base64.b64decode(browser.call("Page.captureScreenshot", format="png")["data"]))


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
