"""Reading a folder of documents: conversion time per MB of each format, and what each candidate
library keeps, on documents this machine already has (nothing is downloaded).

    flock /tmp/bench.lock .venv/bin/python bench/documents.py --json bench/out/documents.json

The corpus, each part taken where it ships:

- PDF: every PDF of 50 kB or more under /usr/share/doc (Debian's manuals: libtasn1's, the
  shared-mime-info specification);
- HTML: Python's own documentation, the Sphinx pages of the python3.11-doc package (read from
  the package in apt's cache, unpacked into bench/out/, never committed), else the HTML under
  /usr/share/doc; a seeded sample of ``--html-pages`` pages;
- Markdown: Node.js's API documentation (/usr/share/doc/nodejs/api/*.md), a seeded sample;
- text: the licences in /usr/share/common-licenses;
- DOCX: no package ships one, so the HTML sample's main text (headings and paragraphs) is
  written into .docx files with python-docx: their text is not ours, their layout is.

For each file and each candidate that reads its format, the bench times the conversion (best of
``--repeat``; CPU time of this process) and counts in the output: words, headings, paragraphs,
and the furniture a reader should leave out: page-number lines and table-of-contents leader
lines (PDF), navigation and footer lines of the Sphinx pages (HTML). Figures go to the
Documents measurements page (docs/measurements/documents.md).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

OUT = Path(__file__).resolve().parent / "out"
PYDOC_DEB = "/var/cache/apt/archives/python3.11-doc_*.deb"
SEED = 0

_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s*(?:of|/)\s*\d+)?\s*$", re.IGNORECASE)
_LEADER = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$")
# What a Sphinx page of Python's docs has around its text on every page.
_SPHINX_FURNITURE = ("Navigation", "Table of Contents", "Previous topic", "Next topic", "This Page",
                     "Report a Bug", "Show Source", "© Copyright", "Last updated on", "Found a bug?", "Quick search")


# --- the corpus ---------------------------------------------------------------------------


def corpus(html_pages: int, md_files: int) -> dict[str, list[Path]]:
    rng = random.Random(SEED)
    pdfs = sorted(p for p in Path("/usr/share/doc").rglob("*.pdf") if p.stat().st_size >= 50_000)
    html = _python_docs() or sorted(Path("/usr/share/doc").rglob("*.html"))
    html = sorted(rng.sample(html, min(html_pages, len(html))))
    md = sorted(Path("/usr/share/doc/nodejs/api").glob("*.md"))
    md = sorted(rng.sample(md, min(md_files, len(md))))
    return {"pdf": pdfs, "html": html, "md": md, "txt": _licences(), "docx": _docx_from(html)}


def _licences() -> list[Path]:
    """Debian's licence texts, copied with a .txt name (they ship without one)."""
    folder = OUT / "documents-txt"
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for p in sorted(Path("/usr/share/common-licenses").iterdir()):
        if p.is_file() and not p.is_symlink():
            target = folder / (p.name + ".txt")
            target.write_bytes(p.read_bytes())
            made.append(target)
    return made


def _python_docs() -> list[Path]:
    """Sphinx pages of python3.11-doc, unpacked from apt's cache (the package need not be installed)."""
    target = OUT / "python3.11-doc"
    root = target / "usr/share/doc/python3.11/html"
    if not root.is_dir():
        debs = sorted(Path("/").glob(PYDOC_DEB.lstrip("/")))
        if not debs:
            return []
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(["dpkg-deb", "-x", str(debs[-1]), str(target)], check=True)
    # Pages with prose: the tutorial, the library reference and the how-tos, not the indexes.
    return sorted(p for sub in ("tutorial", "library", "howto", "reference") for p in (root / sub).glob("*.html"))


def _docx_from(html: list[Path]) -> list[Path]:
    import docx

    from judgeagent.data.documents import Unreadable, convert_file

    folder = OUT / "documents-docx"
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for page in html:
        target = folder / (page.stem + ".docx")
        if not target.exists():
            try:
                blocks = convert_file(page).blocks
            except Unreadable:
                continue
            document = docx.Document()
            for b in blocks:
                if b.level:
                    document.add_heading(b.text, level=min(b.level, 9))
                else:
                    document.add_paragraph(b.text)
            document.save(str(target))
        made.append(target)
    return made


# --- the candidates -------------------------------------------------------------------------


@dataclass
class Output:
    text: str
    headings: int
    paragraphs: int


def ours(path: Path) -> Output:
    from judgeagent.data.documents import convert_file

    blocks = convert_file(path).blocks
    return Output("\n".join(b.text for b in blocks), sum(b.is_heading for b in blocks), sum(not b.is_heading for b in blocks))


_FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)


def _markdown_output(md: str) -> Output:
    # A comment line of a fenced code block starts with "# " too: not a heading.
    lines = _FENCE.sub("", md).splitlines()
    headings = sum(1 for line in lines if re.match(r"#{1,6}\s", line))
    paragraphs = len([p for p in re.split(r"\n\s*\n", md) if p.strip()]) - headings
    return Output(md, headings, max(paragraphs, 0))


def markitdown(path: Path) -> Output:
    from markitdown import MarkItDown

    return _markdown_output(MarkItDown().convert(str(path)).text_content)


def pypdfium2_text(path: Path) -> Output:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(path))
    try:
        text = "\n".join(page.get_textpage().get_text_range() for page in pdf)
    finally:
        pdf.close()
    return Output(text.replace("\r\n", "\n"), 0, 0)  # lines only: no paragraph or heading


def pdfminer_text(path: Path) -> Output:
    from pdfminer.high_level import extract_text

    text = extract_text(str(path))
    return Output(text, 0, len([p for p in re.split(r"\n\s*\n", text) if p.strip()]))


def trafilatura_markdown(path: Path) -> Output:
    import trafilatura

    return _markdown_output(trafilatura.extract(path.read_bytes(), output_format="markdown", include_tables=True) or "")


def soup_text(path: Path) -> Output:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(path.read_bytes(), "html.parser")
    for tag in soup(["script", "style"]):
        tag.decompose()
    text = soup.get_text("\n")
    return Output(text, 0, len([line for line in text.splitlines() if line.strip()]))


def mammoth_markdown(path: Path) -> Output:
    import mammoth
    from markdownify import markdownify

    with open(path, "rb") as f:
        html = mammoth.convert_to_html(f).value
    return _markdown_output(markdownify(html, heading_style="ATX"))


CANDIDATES: dict[str, dict[str, Callable[[Path], Output]]] = {
    "pdf": {"ours (pdfminer.six layout)": ours, "pdfminer.six extract_text": pdfminer_text,
            "pypdfium2 text": pypdfium2_text, "markitdown": markitdown},
    "html": {"ours (trafilatura XML)": ours, "trafilatura markdown": trafilatura_markdown,
             "markitdown": markitdown, "BeautifulSoup get_text": soup_text},
    "docx": {"ours (python-docx)": ours, "mammoth + markdownify": mammoth_markdown, "markitdown": markitdown},
    "md": {"ours (markdown-it-py)": ours, "markitdown": markitdown},
    "txt": {"ours": ours},
}


# --- measuring ----------------------------------------------------------------------------------


@dataclass
class Tally:
    files: int = 0
    failed: int = 0
    megabytes: float = 0.0
    cpu_s: float = 0.0
    words: int = 0
    headings: int = 0
    paragraphs: int = 0
    furniture: dict[str, int] = field(default_factory=dict)

    def row(self) -> dict:
        per_mb = self.cpu_s / self.megabytes if self.megabytes else 0.0
        return {"files": self.files, "failed": self.failed, "MB": round(self.megabytes, 3), "cpu_s": round(self.cpu_s, 2),
                "s_per_MB": round(per_mb, 2), "words": self.words, "headings": self.headings,
                "paragraphs": self.paragraphs, **self.furniture}


def furniture(fmt: str, text: str) -> dict[str, int]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if fmt == "pdf":
        return {"page_number_lines": sum(1 for line in lines if _PAGE_NUMBER.match(line)),
                "toc_leader_lines": sum(1 for line in lines if _LEADER.search(line))}
    if fmt == "html":
        return {"navigation_lines": sum(1 for line in lines if any(line.startswith(f) for f in _SPHINX_FURNITURE))}
    return {}


def measure(fmt: str, name: str, read: Callable[[Path], Output], files: list[Path], repeat: int) -> Tally:
    tally = Tally()
    for path in files:
        tally.files += 1
        best = None
        out = None
        for _ in range(repeat):
            start = time.process_time()
            try:
                out = read(path)
            except Exception as err:  # noqa: BLE001 - a candidate failing on a file is a figure, not a crash
                print(f"  {name} failed on {path.name}: {type(err).__name__}: {str(err)[:100]}", file=sys.stderr)
                out = None
                break
            spent = time.process_time() - start
            best = spent if best is None else min(best, spent)
        if out is None or best is None:
            tally.failed += 1
            continue
        tally.megabytes += path.stat().st_size / 1e6
        tally.cpu_s += best
        tally.words += len(out.text.split())
        tally.headings += out.headings
        tally.paragraphs += out.paragraphs
        for k, v in furniture(fmt, out.text).items():
            tally.furniture[k] = tally.furniture.get(k, 0) + v
    return tally


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--html-pages", type=int, default=40, help="Sphinx pages in the HTML sample (seeded)")
    ap.add_argument("--md-files", type=int, default=20, help="Markdown files in the sample (seeded)")
    ap.add_argument("--repeat", type=int, default=2, help="conversions per file; the fastest counts")
    ap.add_argument("--formats", nargs="+", default=list(CANDIDATES), choices=list(CANDIDATES))
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args(argv)

    from machine import describe

    print(describe())
    print(f"date {datetime.now(UTC).isoformat(timespec='seconds')}")
    files = corpus(args.html_pages, args.md_files)
    figures: dict = {"machine": describe(), "date": datetime.now(UTC).isoformat(timespec="seconds"), "formats": {}}
    for fmt in args.formats:
        paths = files[fmt]
        size = sum(p.stat().st_size for p in paths) / 1e6
        print(f"\n{fmt}: {len(paths)} files, {size:.2f} MB")
        if not paths:
            continue
        rows = {}
        for name, read in CANDIDATES[fmt].items():
            read(paths[0])  # imports and first-use setup are not the conversion's cost
            rows[name] = measure(fmt, name, read, paths, args.repeat).row()
            r = rows[name]
            extra = "  ".join(f"{k} {v}" for k, v in r.items() if k not in ("files", "MB", "cpu_s", "failed"))
            print(f"  {name:<28} {r['cpu_s']:7.2f} s CPU  failed {r['failed']}  {extra}")
        figures["formats"][fmt] = {"files": [str(p) for p in paths], "MB": round(size, 3), "candidates": rows}
    import os

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nload average at the end {load}")
    figures["load_end"] = load
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
