"""Reports of a finished run, built from the run folder alone (no model calls, no graph).

    write_reports(run_dir)           report.html and report.md (its figures in report_files/)
    load_run(run_dir) → Run          the folder as plain data
    build_document(run) → Document   the report's content, laid out once for both formats

Modules: ``load`` reads the folder, ``sections`` computes each section's content (pure),
``plots`` draws the figures, ``document`` lays them out as blocks, ``markdown`` and ``html``
write the blocks, ``compare`` puts several runs side by side, ``summary`` is the one judge
call ``evaluate`` makes at the end (its result, summary.json, is read here).
"""

from __future__ import annotations

from pathlib import Path

from judgeagent.files import write_bytes_atomic
from judgeagent.report.document import Document, build_document
from judgeagent.report.load import Run, load_run

IMAGE_DIR = "report_files"


def write_reports(run_dir: Path, html: bool = True, md: bool = True, setting: str | None = None) -> list[Path]:
    """Write the run's reports into its folder; returns the report files written.

    ``setting`` picks one setting of an ablation run; its files get the setting's name as
    a suffix (report-no-graph.html), so they sit beside the main report.
    """
    from judgeagent.report.html import to_html
    from judgeagent.report.markdown import to_markdown

    run_dir = Path(run_dir)
    doc = build_document(load_run(run_dir, setting))
    suffix = "" if setting is None else "-" + "".join(c if c.isalnum() else "-" for c in setting)
    written: list[Path] = []
    if html:
        path = run_dir / f"report{suffix}.html"
        write_bytes_atomic(path, to_html(doc).encode("utf-8"))
        written.append(path)
    if md:
        img_dir = f"{IMAGE_DIR}{suffix}"
        text, images = to_markdown(doc, img_dir)
        (run_dir / img_dir).mkdir(exist_ok=True)
        for old in (run_dir / img_dir).glob("*.png"):  # figures of an earlier report that this one lacks
            if f"{img_dir}/{old.name}" not in images:
                old.unlink()
        for rel, png in images.items():
            write_bytes_atomic(run_dir / rel, png)
        path = run_dir / f"report{suffix}.md"
        write_bytes_atomic(path, text.encode("utf-8"))
        written.append(path)
    return written


__all__ = ["Document", "Run", "build_document", "load_run", "write_reports"]
