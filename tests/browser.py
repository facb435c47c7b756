"""A headless Debian Chromium driven over the DevTools protocol, for the browser tests (the
HTML report, the audit page). Without Chromium the tests are skipped, except under CI, where
a missing browser is a failure (scripts/install_chromium.sh installs it)."""

from __future__ import annotations

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

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", "--remote-debugging-port=0",
]


def need_browser():
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


# What "fits the width" means, measured in the page as laid out: the document does not scroll
# sideways, no visible element reaches past the right edge, and no table cell is clipped (off
# the page, its content wider than itself, or cut off by a scrolling or hiding container).
FIT_JS = """(() => {
  const w = document.documentElement.clientWidth;
  const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (typeof e.className === 'string' && e.className ? '.' + e.className : '');
  const wide = [...document.querySelectorAll('body *')].filter(e => shown(e) && e.getBoundingClientRect().right > w + 1).map(name);
  const clipped = [];
  for (const c of document.querySelectorAll('td, th')) {
    if (!shown(c)) continue;
    const r = c.getBoundingClientRect();
    let why = null;
    if (r.left < -1 || r.right > w + 1) why = 'off the page';
    else if (c.scrollWidth > c.clientWidth + 1) why = 'content wider than the cell';
    else for (let p = c.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX === 'visible') continue;
      const q = p.getBoundingClientRect();
      if (r.left < q.left - 1 || r.right > q.right + 1) { why = 'cut off by ' + name(p); break; }
    }
    if (why) clipped.push(c.textContent.trim().slice(0, 40) + ': ' + why);
  }
  return {scroll: document.documentElement.scrollWidth, client: w, wide: wide.slice(0, 10), clipped: clipped.slice(0, 10)};
})()"""


def fits(b: Browser) -> dict:
    """The page's fit (FIT_JS); ``ok`` when nothing scrolls sideways, reaches past the edge or is clipped."""
    fit = b.js(FIT_JS)
    return fit | {"ok": fit["scroll"] <= fit["client"] and not fit["wide"] and not fit["clipped"]}


def full_page_png(b: Browser, width: int) -> bytes:
    """A screenshot of the whole page at ``width``."""
    import base64

    height = b.js("document.documentElement.scrollHeight")
    shot = b.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                  clip={"x": 0, "y": 0, "width": width, "height": min(height, 16000), "scale": 1})["data"]  # fmt: skip
    return base64.b64decode(shot)


def not_blank(png: bytes) -> None:
    """The screenshot shows something: not one colour, not a handful."""
    from PIL import Image, ImageStat

    img = Image.open(io.BytesIO(png)).convert("L")
    assert img.width > 100 and img.height > 100
    assert ImageStat.Stat(img).stddev[0] > 10, "the screenshot is (nearly) one colour"
    assert len(img.getcolors(maxcolors=1 << 16) or range(1 << 16)) > 50


class Browser:
    """A headless Chromium and one page, spoken to over the DevTools protocol."""

    def __init__(self, profile: str | None = None):
        """``profile``: a user-data folder to keep (and reopen later); default a fresh one,
        removed on close."""
        import websocket

        self.keep_profile = profile is not None
        self.profile = profile or tempfile.mkdtemp(prefix="ja-chromium-")
        # Chromium writes the port it picked to DevToolsActivePort: no port guessing, no race
        # (a kept profile still holds the last session's).
        port_file = Path(self.profile) / "DevToolsActivePort"
        port_file.unlink(missing_ok=True)
        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
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
        # Closed as a person closes it (Browser.close): Chromium writes localStorage to the
        # profile lazily, and a SIGTERM under load could end it before the write, losing
        # labels a real close keeps. SIGTERM stays the fallback for a browser that hangs.
        try:
            self.call("Browser.close")
            self.proc.wait(20)
        except Exception:
            pass
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
        if not self.keep_profile:
            shutil.rmtree(self.profile, ignore_errors=True)

    def crash(self) -> None:
        """The browser killed outright (SIGKILL), as by a crash or a power cut: nothing it had
        not yet written to disk is kept. The profile stays for the next Browser."""
        self.proc.kill()
        self.proc.wait()
        try:
            self.ws.close()
        except Exception:
            pass

    # ------------------------------------------------------------------ input, as a person gives it
    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element, scrolled into view first."""
        x, y = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView({{block: 'center'}});"
            " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    NAMED_KEYS = {"ArrowRight": 39, "ArrowLeft": 37, "Escape": 27, "Enter": 13}

    def press(self, key: str) -> None:
        """A real key press: keyDown (with its text, for a printable key), then keyUp."""
        if key in self.NAMED_KEYS:
            code, vk, text = key, self.NAMED_KEYS[key], {}
        else:
            code = f"Digit{key}" if key.isdigit() else f"Key{key.upper()}"
            vk, text = ord(key.upper()), {"text": key}
        self.call("Input.dispatchKeyEvent", type="keyDown", key=key, code=code, windowsVirtualKeyCode=vk, **text)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=vk)

    def type_text(self, text: str) -> None:
        """Text typed into the focused field."""
        self.call("Input.insertText", text=text)
