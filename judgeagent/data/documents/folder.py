"""The loader of a folder of documents: every file under it (subfolders too, hidden ones
left out) is one Document, converted by its reader, chunked with its headings kept.

A costly conversion (a PDF's) is kept in the user's cache by the file's sha256, so a rebuild
does not convert an unchanged file again (:mod:`judgeagent.data.documents.cache`).

A file that cannot be read is left out and listed in ``Benchmark.skipped`` with the
reason; the caller says so (build-graph prints a line per file and refuses with
``--strict``). A folder of documents has no questions: ``build-graph`` builds its graph, and
commands that ask questions refuse it (:func:`judgeagent.data.detect.load_benchmark`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from judgeagent.data.benchmark import Benchmark, Chunk, Document, QuestionType, SkippedFile
from judgeagent.data.chunking import chunk_document
from judgeagent.data.documents import Converted, Unreadable, convert_file, reader_for
from judgeagent.errors import DataError

FORMAT = "documents"


def files(folder: Path) -> list[Path]:
    """Every file under ``folder``, sorted, without hidden files and folders."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and not _hidden(p.relative_to(folder)))


def looks_like(folder: Path) -> bool:
    """At least one file under the folder has a type a reader knows."""
    return any(reader_for(p) is not None for p in folder.rglob("*")
               if p.is_file() and not _hidden(p.relative_to(folder)))


def load(folder: Path, *, chunk_tokens: int, section_chunks: int = 0, progress: bool = False) -> Benchmark:
    documents: list[Document] = []
    chunks: list[Chunk] = []
    skipped: list[SkippedFile] = []
    sources: list[str] = []
    paths = files(folder)
    with _FileBar(progress, len(paths)) as advance:
        for path in paths:
            source = path.relative_to(folder).as_posix()
            try:
                digest = _sha256(path)
                converted = convert_file(path, digest)
            except OSError as err:
                skipped.append(SkippedFile(source, f"cannot read the file ({err.strerror or err})"))
                advance()
                continue
            except Unreadable as why:
                skipped.append(SkippedFile(source, str(why)))
                advance()
                continue
            doc, doc_chunks = _document(source, digest, converted, chunk_tokens)
            documents.append(doc)
            chunks += doc_chunks
            sources.append(str(path))
            advance()
    if not documents:
        first = skipped[0] if skipped else None
        detail = f"; {folder / first.source}: {first.reason}" if first else ""
        raise DataError(folder, f"no document could be read ({len(skipped)} files skipped){detail}")
    return Benchmark(
        name=folder.resolve().name,
        format=FORMAT,
        qtype=QuestionType.KQA,  # no questions yet; the seeds written from the graph say their own type
        questions=[],
        documents=documents,
        chunks=chunks,
        source_files=sources,
        skipped=skipped,
    )


def _document(source: str, digest: str, converted: Converted, chunk_tokens: int) -> tuple[Document, list[Chunk]]:
    """The file's Document (id: its path in the folder) and chunks; headings stay with their text."""
    texts = [b.text for b in converted.blocks]
    headings = {k for k, b in enumerate(converted.blocks) if b.is_heading}
    first_heading = next((b.text for b in converted.blocks if b.is_heading), None)
    title = converted.title or first_heading or Path(source).stem
    doc, doc_chunks = chunk_document(source, title, texts, chunk_tokens, headings=headings)
    return Document(doc.id, doc.title, doc.chunk_ids, source=source, sha256=digest), doc_chunks


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


class _FileBar:
    """A progress bar over the files on stderr (conversion of a large PDF takes seconds)."""

    def __init__(self, enabled: bool, total: int):
        self.enabled, self.total = enabled, total

    def __enter__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(TextColumn("{task.description:<24}"), BarColumn(), MofNCompleteColumn(),
                                  TimeElapsedColumn(), console=Console(stderr=True), disable=not self.enabled)
        self._progress.__enter__()
        task = self._progress.add_task("read documents", total=self.total)
        return lambda: self._progress.advance(task)

    def __exit__(self, *exc):
        return self._progress.__exit__(*exc)
