"""A folder of documents: each reader on files the tests make with libraries, the files that
cannot be read, the folder loader, and build-graph on a mixed folder (one real build)."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.data import load_benchmark
from judgeagent.data.documents import Block, Unreadable, convert_file
from judgeagent.data.documents.readers.pages import PageBox, remove_furniture
from judgeagent.errors import DataError


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch) -> Path:
    """Each test its own conversion cache: a conversion cached by another test (or another run)
    would hide what the reader does."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("JUDGEAGENT_CACHE_DIR", str(folder))
    return folder


# --- files made by the tests ---------------------------------------------------------------

PUMP_INTRO = ("The Halvard pump is bolted to its frame with four M8 bolts. Tighten them in a cross "
              "pattern before the first start, then check the inlet seal for leaks after ten minutes.")
PUMP_PRIMING = ("Prime the casing with clean water through the upper plug. A dry start scores the "
                "carbon face of the shaft seal within seconds, and the warranty does not cover it.")
PUMP_FILTER = ("Replace the mesh filter every six months. The filter housing opens with a quarter turn "
               "once the isolation valve upstream of the pump is closed.")
HEADER = "Halvard Pumps - Service Guide"


def make_pdf(path: Path) -> Path:
    """Two pages, each with the running header, a "Page N of 2" footer, a heading and body text."""
    from fpdf import FPDF

    class Manual(FPDF):
        def header(self):
            self.set_font("Helvetica", size=9)
            self.cell(0, 6, HEADER, align="C")
            self.ln(14)

        def footer(self):
            self.set_y(-15)
            self.set_font("Helvetica", size=9)
            self.cell(0, 6, f"Page {self.page_no()} of 2", align="C")

    pdf = Manual()
    pdf.set_title("Halvard pump manual")
    for heading, size, paragraphs in (("Installing the pump", 18, [PUMP_INTRO, PUMP_PRIMING]),
                                      ("Maintenance", 14, [PUMP_FILTER])):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", size)
        pdf.multi_cell(0, 9, heading)
        pdf.ln(4)
        pdf.set_font("Helvetica", size=11)
        for text in paragraphs:
            pdf.multi_cell(0, 5, text)  # 5 mm lines for 11 pt text: the leading of a printed page
            pdf.ln(4)
    pdf.output(str(path))
    return path


def make_image_pdf(path: Path) -> Path:
    """A "scanned" page: one picture and no text layer."""
    from fpdf import FPDF
    from PIL import Image, ImageDraw

    picture = Image.new("RGB", (400, 200), "white")
    ImageDraw.Draw(picture).rectangle((20, 20, 380, 60), fill="black")
    pdf = FPDF()
    pdf.add_page()
    pdf.image(picture, x=10, y=10, w=150)
    pdf.output(str(path))
    return path


def make_encrypted_pdf(path: Path, source: Path) -> Path:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(source))
    writer.encrypt(user_password="open sesame", owner_password="owner")
    writer.write(path)
    return path


HTML = """<!DOCTYPE html>
<html><head><title>Heat exchangers | Plant Notes</title></head>
<body>
<header><a href="/">Plant Notes</a></header>
<nav><ul><li><a href="/">Home</a></li><li><a href="/pumps">Pumps catalogue</a></li>
<li><a href="/valves">Valves catalogue</a></li><li><a href="/contact">Contact us</a></li></ul></nav>
<main><article>
<h1>Cleaning a plate heat exchanger</h1>
<p>A plate heat exchanger loses efficiency as scale builds up on its plates. The Orvik model in
Hall B should be opened once a year, before the heating season, and its gaskets inspected.</p>
<h2>Opening the frame</h2>
<p>Loosen the tightening bolts in the order stamped on the frame, a few turns each, so that the
pressure plate moves back evenly. Measure the plate pack first: the same length is needed when closing.</p>
<p>Lift each plate out and lay it flat. Soft brushes and a mild citric solution remove the scale;
a steel brush scratches the plates and leaves them to corrode.</p>
</article></main>
<footer><p>Copyright Plant Notes. All rights reserved. Privacy policy. Cookie settings.</p></footer>
</body></html>
"""


def make_docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.sections[0].header.paragraphs[0].text = "CONFIDENTIAL - internal use"
    document.sections[0].footer.paragraphs[0].text = "Revision 7"
    document.add_heading("Boiler commissioning", level=1)
    document.add_paragraph("The boiler is commissioned by a certified engineer, who signs the log book kept in the plant room.")
    document.add_heading("Water treatment", level=2)
    document.add_paragraph("Feed water is softened to below 0.1 mmol/l of hardness before it enters the drum.")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate((("Parameter", "Limit"), ("pH", "9.5 to 10.5"))):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    document.save(str(path))
    return path


MARKDOWN = """---
title: ignored front matter
---
Cooling towers
==============

Cooling towers reject heat by *evaporating* part of the [circulating water](https://example.org).

## Drift eliminators

- Drift eliminators catch droplets.
- They are cleaned each spring.

```
# not a heading: a comment in a code block
blowdown = 0.2
```
"""

TEXT = "Compressed air lines slope toward drain legs.\n\nEach drain leg ends in an automatic trap.\n"


# --- readers ------------------------------------------------------------------------------


def test_pdf_keeps_headings_and_paragraphs_in_order_without_running_header_footer_or_page_numbers(tmp_path):
    converted = convert_file(make_pdf(tmp_path / "manual.pdf"))
    assert converted.title == "Halvard pump manual"
    assert converted.blocks == (
        Block("Installing the pump", 1), Block(PUMP_INTRO), Block(PUMP_PRIMING),
        Block("Maintenance", 2), Block(PUMP_FILTER),
    )


def test_html_keeps_the_article_and_drops_navigation_header_and_footer(tmp_path):
    page = tmp_path / "exchanger.html"
    page.write_text(HTML, encoding="utf-8")
    converted = convert_file(page)
    assert [b.level for b in converted.blocks] == [1, 0, 2, 0, 0]
    assert converted.blocks[0] == Block("Cleaning a plate heat exchanger", 1)
    assert converted.blocks[2] == Block("Opening the frame", 2)
    assert converted.blocks[4].text.startswith("Lift each plate out and lay it flat.")
    text = " ".join(b.text for b in converted.blocks)
    for gone in ("catalogue", "Contact us", "Copyright", "Cookie", "Home"):
        assert gone not in text


def test_docx_headings_stay_headings_and_page_header_footer_are_not_text(tmp_path):
    converted = convert_file(make_docx(tmp_path / "boiler.docx"))
    assert converted.blocks == (
        Block("Boiler commissioning", 1),
        Block("The boiler is commissioned by a certified engineer, who signs the log book kept in the plant room."),
        Block("Water treatment", 2),
        Block("Feed water is softened to below 0.1 mmol/l of hardness before it enters the drum."),
        Block("Parameter | Limit\npH | 9.5 to 10.5"),
    )


def test_markdown_is_parsed_not_pattern_matched(tmp_path):
    path = tmp_path / "towers.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    converted = convert_file(path)
    assert converted.title == "Cooling towers"
    assert converted.blocks == (
        Block("Cooling towers", 1),
        Block("Cooling towers reject heat by evaporating part of the circulating water."),
        Block("Drift eliminators", 2),
        Block("- Drift eliminators catch droplets.\n- They are cleaned each spring."),
        Block("# not a heading: a comment in a code block\nblowdown = 0.2"),
    )


def test_text_paragraphs_and_a_windows_1252_file(tmp_path):
    utf8 = tmp_path / "air.txt"
    utf8.write_text(TEXT, encoding="utf-8")
    assert convert_file(utf8).blocks == (Block("Compressed air lines slope toward drain legs."),
                                          Block("Each drain leg ends in an automatic trap."))
    old = tmp_path / "old.txt"
    old.write_bytes("Caf\xe9 boilers run at 90\xb0C.".encode("cp1252"))
    assert convert_file(old).blocks == (Block("Café boilers run at 90°C."),)


@pytest.mark.parametrize(("name", "make", "reason"), [
    ("corrupt.pdf", lambda p, src: p.write_bytes(src.read_bytes()[: len(src.read_bytes()) // 2]),
     "damaged PDF (PSEOF: Unexpected EOF)"),
    ("renamed.pdf", lambda p, src: p.write_bytes(b"<html>not a pdf</html>"), "not a PDF (no %PDF header)"),
    ("locked.pdf", lambda p, src: make_encrypted_pdf(p, src), "encrypted (it needs a password)"),
    ("scan.pdf", lambda p, src: make_image_pdf(p), "no text layer (a scanned PDF? run OCR on it first)"),
    ("notes.odt", lambda p, src: p.write_bytes(b"PK\x03\x04"),
     "unknown type (.odt; reads .docx, .htm, .html, .markdown, .md, .pdf, .text, .txt, .xhtml)"),
    ("blob.txt", lambda p, src: p.write_bytes(b"\x00\x01\x02binary"), "binary data, not text"),
    ("old.docx", lambda p, src: p.write_bytes(b"\xd0\xcf\x11\xe0 an OLE2 .doc"),
     "not a .docx file (a .docx is a zip archive; an old binary .doc must be saved as .docx)"),
])
def test_a_file_that_cannot_be_read_says_why(tmp_path, name, make, reason):
    source = make_pdf(tmp_path / "source.pdf")
    path = tmp_path / name
    make(path, source)
    with pytest.raises(Unreadable) as err:
        convert_file(path)
    assert str(err.value) == reason


def test_a_missing_reader_library_stops_the_build_with_the_extra_to_install(tmp_path, monkeypatch):
    """The installation's fault, not the file's: one line and exit 2, never a skip of every PDF."""
    folder = tmp_path / "docs"
    folder.mkdir()
    make_pdf(folder / "manual.pdf")
    monkeypatch.setitem(sys.modules, "pdfminer.high_level", None)  # what an absent package gives an import
    result = CliRunner().invoke(app, ["build-graph", str(folder), "--out", str(tmp_path / "g")])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        "error: reading PDF files needs the pdfminer.six package: pip install 'judgeagent[documents]'")


def test_an_owner_password_alone_does_not_stop_reading(tmp_path):
    """Permissions-only encryption (no password to open) is how many published PDFs ship."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(make_pdf(tmp_path / "manual.pdf")))
    writer.encrypt(user_password="", owner_password="owner")
    writer.write(tmp_path / "permissions.pdf")
    assert convert_file(tmp_path / "permissions.pdf").blocks[0] == Block("Installing the pump", 1)


def test_page_furniture_rule_on_boxes():
    def page(n, body):
        return [PageBox(f"Chapter 2: Seals {n + 16}", 0.03, 0.05), PageBox(body, 0.3, 0.5),
                PageBox("}", 0.02, 0.04) if n == 0 else PageBox("Intro", 0.3, 0.35),
                PageBox(f"- {n + 1} -", 0.95, 0.97)]

    pages = [page(0, "First body."), page(1, "Second body.")]
    pages[1].append(PageBox("}", 0.02, 0.04))  # code at the top of two pages: no letter, kept
    kept = remove_furniture(pages)
    assert [[b.text for b in p] for p in kept] == [["First body.", "}"], ["Second body.", "Intro", "}"]]


# --- the folder -----------------------------------------------------------------------------


@pytest.fixture
def mixed(tmp_path) -> Path:
    """One file of each kind (two in a subfolder), one corrupt PDF, one unknown type, one hidden file."""
    folder = tmp_path / "plant"
    (folder / "manuals").mkdir(parents=True)
    make_pdf(folder / "manuals" / "pump.pdf")
    make_docx(folder / "manuals" / "boiler.docx")
    (folder / "exchanger.html").write_text(HTML, encoding="utf-8")
    (folder / "towers.md").write_text(MARKDOWN, encoding="utf-8")
    (folder / "air.txt").write_text(TEXT, encoding="utf-8")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    (folder / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / ".notes.txt").write_text("hidden: never read", encoding="utf-8")
    return folder


SOURCES = ["air.txt", "exchanger.html", "manuals/boiler.docx", "manuals/pump.pdf", "towers.md"]
SKIPPED = [("broken.pdf", "damaged PDF (PDFSyntaxError: No /Root object! - Is this really a PDF?)"),
           ("diagram.png", "unknown type (.png; reads .docx, .htm, .html, .markdown, .md, .pdf, .text, .txt, .xhtml)")]


def test_folder_of_documents_loads_each_file_as_one_document(mixed):
    bench = load_benchmark(mixed, questions=False)
    assert bench.format == "documents" and bench.questions == []
    assert [d.id for d in bench.documents] == SOURCES
    assert [d.source for d in bench.documents] == SOURCES
    assert [d.sha256 for d in bench.documents] == [hashlib.sha256((mixed / s).read_bytes()).hexdigest() for s in SOURCES]
    assert [d.title for d in bench.documents] == ["air", "Cleaning a plate heat exchanger", "Boiler commissioning",
                                                  "Halvard pump manual", "Cooling towers"]
    assert [(s.source, s.reason) for s in bench.skipped] == SKIPPED
    pump = bench.document_text("manuals/pump.pdf")
    assert pump == "\n\n".join(["Installing the pump", PUMP_INTRO, PUMP_PRIMING, "Maintenance", PUMP_FILTER])
    assert HEADER not in pump and "Page 1" not in pump


def test_a_heading_never_ends_a_chunk(mixed):
    bench = load_benchmark(mixed, questions=False, chunk_tokens=60)
    chunks = [c.text for c in bench.chunks if c.doc_id == "manuals/pump.pdf"]
    assert chunks == ["Installing the pump\n\n" + PUMP_INTRO, PUMP_PRIMING, "Maintenance\n\n" + PUMP_FILTER]


def test_commands_that_ask_questions_refuse_a_folder_of_documents(mixed, tmp_path):
    with pytest.raises(DataError) as err:
        load_benchmark(mixed)
    message = str(err.value)
    assert message.startswith(
        f"{mixed}: a folder of documents has no questions: build its graph (judgeagent build-graph), "
        "then write seed questions from it (judgeagent seeds) and give their folder instead; "
        "or, if it is meant to be a benchmark: unknown benchmark layout; expected MedQA")
    assert message.endswith("found: air.txt, broken.pdf, diagram.png, exchanger.html, manuals/, towers.md")
    result = CliRunner().invoke(app, ["evaluate", "--data", str(mixed), "--target", "local", "--judge", "local",
                                      "--out", str(tmp_path / "runs")])
    assert result.exit_code == 2
    assert " ".join(result.output.split()) == "error: " + " ".join(message.split())


def test_strict_refuses_with_one_line_naming_the_file(mixed, tmp_path):
    with pytest.raises(DataError) as err:
        load_benchmark(mixed, questions=False, strict=True)
    assert str(err.value) == (f"{mixed / 'broken.pdf'}: {SKIPPED[0][1]} "
                              "(--strict refuses a folder with a file it cannot read; 1 more file cannot be read)")
    result = CliRunner().invoke(app, ["build-graph", str(mixed), "--strict", "--out", str(tmp_path / "g")])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    # The conversion's progress bar, then the one error line; no file is reported as skipped.
    assert lines[-1] == "error: " + str(err.value)
    assert [line for line in lines if "skipped" in line or "error" in line] == [lines[-1]]
    assert not (tmp_path / "g").exists()


def test_a_folder_with_no_readable_document_is_one_line(tmp_path):
    folder = tmp_path / "scans"
    folder.mkdir()
    make_image_pdf(folder / "scan.pdf")
    with pytest.raises(DataError) as err:
        load_benchmark(folder, questions=False)
    assert str(err.value) == (f"{folder}: no document could be read (1 files skipped); "
                              f"{folder / 'scan.pdf'}: no text layer (a scanned PDF? run OCR on it first)")


def test_a_costly_conversion_is_cached_by_the_file_bytes(mixed, own_cache, monkeypatch):
    from judgeagent.data.documents.readers import pdf

    calls: list[str] = []
    convert = pdf.convert

    def counted(path):
        calls.append(Path(path).name)
        return convert(path)

    monkeypatch.setattr(pdf, "convert", counted)
    first = load_benchmark(mixed, questions=False)
    assert sorted(calls) == ["broken.pdf", "pump.pdf"]
    again = load_benchmark(mixed, questions=False)
    assert sorted(calls) == ["broken.pdf", "pump.pdf"]  # neither converted again: the readable one nor the damaged one
    assert (again.documents, again.chunks, again.skipped) == (first.documents, first.chunks, first.skipped)
    assert len(list((own_cache / "documents").glob("*.json"))) == 4  # two PDFs, the Word file, the web page
    # A changed file is converted anew; the unchanged one still comes from the cache.
    (mixed / "manuals" / "pump.pdf").write_bytes((mixed / "manuals" / "pump.pdf").read_bytes() + b"\n% appended\n")
    load_benchmark(mixed, questions=False)
    assert sorted(calls) == ["broken.pdf", "pump.pdf", "pump.pdf"]


def test_unreadable_files_are_part_of_the_input_hash(mixed):
    from judgeagent.graph.build import input_hash

    def digest() -> str:
        return input_hash(load_benchmark(mixed, questions=False), {"settings": "same"})

    before = digest()
    assert digest() == before
    (mixed / "sketch.odt").write_bytes(b"PK\x03\x04")  # a new file that cannot be read: the manifest must list it
    with_new = digest()
    assert with_new != before
    make_pdf(mixed / "broken.pdf")  # the damaged file becomes readable
    assert digest() not in (before, with_new)


# --- build-graph: one real build, then an incremental one -----------------------------------


@pytest.mark.slow
def test_build_graph_on_a_mixed_folder_then_one_changed_file(mixed, tmp_path, spacy_extractor, embedder):
    out = tmp_path / "graphs" / "plant"
    runner = CliRunner()
    first = runner.invoke(app, ["build-graph", str(mixed), "--out", str(out), "--workers", "1"])
    assert first.exit_code == 0, first.output
    for source, reason in SKIPPED:
        assert f"skipped {mixed / source}: {reason}" in first.output
    assert "skipped 2 of 7 files (they cannot be read); building from the other 5 (--strict refuses instead)" in first.output
    manifest = json.loads((out / "manifest.json").read_text())
    before = {d["source"]: d for d in manifest["documents"]}
    assert sorted(before) == SOURCES
    assert {s: d["sha256"] for s, d in before.items()} == {s: hashlib.sha256((mixed / s).read_bytes()).hexdigest() for s in SOURCES}
    assert manifest["skipped"] == [{"source": s, "reason": r} for s, r in SKIPPED]
    assert manifest["benchmark"] == {"name": "plant", "format": "documents", "qtype": None}  # no questions, so no question type
    assert re.search(rf"{manifest['counts']['chunks']} chunks, 5 documents", first.output)

    towers = mixed / "towers.md"
    towers.write_text(MARKDOWN.replace("They are cleaned each spring.", "They are cleaned each autumn by the Brenmoor crew."),
                      encoding="utf-8")
    again = runner.invoke(app, ["build-graph", str(mixed), "--out", str(out), "--workers", "1"])
    assert again.exit_code == 0, again.output
    after = {d["source"]: d for d in json.loads((out / "manifest.json").read_text())["documents"]}
    changed = {s for s in SOURCES if after[s]["sha256"] != before[s]["sha256"]}
    assert changed == {"towers.md"}
    total = sum(d["chunks"] for d in after.values())
    unchanged = total - after["towers.md"]["chunks"]
    # Every chunk of the four unchanged files comes from the cache; the changed file's one chunk is extracted again
    # (a lazy build, the default, embeds nothing).
    assert f"reused {unchanged} of {total} chunk extractions; no vectors embedded" in again.output
    assert "brenmoor crew" in (out / "nodes.json").read_text().lower()
