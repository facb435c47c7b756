"""A real-prose bench corpus: Debian documentation packages, reStructuredText stripped to prose.

    .venv/bin/python bench/real_prose.py --words 1000000            # -> bench/out/real-prose-1000000/
    .venv/bin/python bench/real_prose.py --words 3000000 --packages linux-doc-6.1 python3.11-doc

The generated corpus of ``bench/build_graph.py`` has real text's entity counts but not its
sentences: real technical prose has long sentences, long noun chunks and code-like tokens
(``_CRS``, ``PNP0A03``, ``/sys/bus/pci``), which is what a parser spends its time on. This
script fetches documentation packages from the Debian archive with ``apt-get download``
into ``bench/out/`` (git-ignored; nothing of them is committed), reads the reStructuredText
sources their Sphinx HTML ships (``html/_sources/*.rst.txt``), strips the markup to prose
and writes the generic JSONL format (``corpus.jsonl``: ``{doc_id, title, text}``, and a
one-question ``questions.jsonl`` the loader wants), one document per source file.

Documents are taken in a fixed shuffled order (seeded) until the word budget is reached,
so a smaller corpus is a prefix of a larger one from the same packages, and every size
samples the whole package rather than its first directories. English only: translations
are skipped. Code blocks, tables, tables of contents, API-extraction directives and
comments are dropped; headings, paragraphs, list items, admonitions and the bodies of
description directives (``.. function::``) are kept as plain paragraphs.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"
DEFAULT_PACKAGES = ("linux-doc-6.1", "python3.11-doc")
SEED = 0
MIN_DOC_WORDS = 50

# Directives whose body is code, layout or machinery, never prose: the whole block goes.
DROPPED_DIRECTIVES = frozenset(
    "code-block code sourcecode literalinclude toctree kernel-doc include raw only tabularcolumns "
    "flat-table list-table csv-table table math image figure kernel-figure kernel-render kernel-feat "
    "kernel-abi kernel-include productionlist doctest testcode testoutput testsetup testcleanup highlight "
    "index contents sectionauthor moduleauthor codeauthor cssclass c:namespace c:namespace-push "
    "c:namespace-pop py:currentmodule currentmodule module program default-role role "
    "literal-block parsed-literal graphviz digraph".split()
)
# Admonitions: their argument on the directive line is prose too.
ADMONITIONS = frozenset("note warning attention caution danger error hint important tip seealso admonition "
                        "versionadded versionchanged deprecated deprecated-removed".split())

_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:.-]+)::\s*(.*)$")
_COMMENT = re.compile(r"^(\s*)\.\.(\s|$)")
_UNDERLINE = re.compile(r"""^\s*([=\-~^"'`#*+_:.<>])\1{2,}\s*$""")
_TABLE_BORDER = re.compile(r"^\s*[+|][-=+|:\s]*$|^\s*=+(\s+=+)+\s*$")
_GRID_ROW = re.compile(r"^\s*\|.*\|\s*$")
_FIELD = re.compile(r"^\s*:[\w -]+:\s*")
_BULLET = re.compile(r"^\s*(?:[-*+•]|#\.|\d+[.)]|\(\w\)|[a-z][.)])\s+")
_ROLE_TARGET = re.compile(r":[\w:.+-]+:`([^`<]*?)\s*<[^`>]*>`")
_ROLE = re.compile(r":[\w:.+-]+:`~?!?([^`]*)`")
_LINK_TARGET = re.compile(r"`([^`<]*?)\s*<[^`>]*>`__?")
_LINK = re.compile(r"`([^`]+)`__?")
_LITERAL = re.compile(r"``([^`]*)``")
_STRONG = re.compile(r"\*\*([^*]+)\*\*")
_EMPH = re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])")
_FOOTNOTE_REF = re.compile(r"\s*\[(?:\d+|#\w*|\*)\]_")
_SUBST = re.compile(r"\|([\w -]+)\|_?")
_WS = re.compile(r"\s+")


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def inline(text: str) -> str:
    """Inline markup to its text: roles, links, literals, emphasis, footnote references."""
    text = _ROLE_TARGET.sub(r"\1", text)
    text = _ROLE.sub(r"\1", text)
    text = _LINK_TARGET.sub(r"\1", text)
    text = _LITERAL.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _STRONG.sub(r"\1", text)
    text = _EMPH.sub(r"\1", text)
    text = _FOOTNOTE_REF.sub("", text)
    text = _SUBST.sub(r"\1", text)
    return _WS.sub(" ", text).strip()


def rst_paragraphs(source: str) -> Iterator[str]:
    """The prose paragraphs of one reStructuredText source, markup stripped."""
    lines = source.replace("\t", "    ").splitlines()
    skip_below: int | None = None  # inside a dropped block: skip lines indented deeper than this
    paragraph: list[str] = []

    def flush() -> Iterator[str]:
        if paragraph:
            text = inline(" ".join(paragraph))
            paragraph.clear()
            if text and any(c.isalpha() for c in text):
                yield text

    for i, line in enumerate(lines):
        stripped = line.strip()
        if skip_below is not None:
            if not stripped or indent_of(line) > skip_below:
                continue
            skip_below = None
        if not stripped:
            yield from flush()
            continue
        directive = _DIRECTIVE.match(line)
        if directive:
            yield from flush()
            name = directive.group(2).split(":")[-1] if directive.group(2).startswith(("py:", "c:")) else directive.group(2)
            if directive.group(2) in DROPPED_DIRECTIVES or name in DROPPED_DIRECTIVES:
                skip_below = indent_of(line)
            elif name in ADMONITIONS and directive.group(3):
                paragraph.append(directive.group(3))
            continue
        if _COMMENT.match(line):  # a comment, a target (.. _name:) or a substitution definition
            yield from flush()
            skip_below = indent_of(line)
            continue
        if _UNDERLINE.match(line) or _TABLE_BORDER.match(line) or _GRID_ROW.match(line):
            yield from flush()
            continue
        if stripped.startswith((">>>", "... ", "$ ", "# ")) and not paragraph:
            continue  # an interactive session or shell line outside a literal block
        if _FIELD.match(line) and not paragraph and stripped.startswith(":"):
            rest = _FIELD.sub("", line).strip()
            if rest:
                paragraph.append(rest)
            continue
        bullet = _BULLET.match(line)
        if bullet:
            yield from flush()
            line = line[bullet.end():]
        text = line.strip()
        if text.endswith("::"):
            # A literal block follows: keep the sentence, drop the block.
            text = text[:-2].rstrip() + ("" if text[:-2].endswith(" ") or text == "::" else ":")
            if text:
                paragraph.append(text)
            yield from flush()
            skip_below = _block_indent(lines, i)
            continue
        paragraph.append(text)
    yield from flush()


def _block_indent(lines: list[str], i: int) -> int:
    """The indentation below which a literal block after line ``i`` ends (that line's own)."""
    return indent_of(lines[i])


def title_of(source: str, fallback: str) -> str:
    lines = source.splitlines()
    for a, b in zip(lines, lines[1:]):
        if a.strip() and _UNDERLINE.match(b) and not _UNDERLINE.match(a) and not _COMMENT.match(a):
            return inline(a.strip())
    return fallback


def fetch(package: str, out: Path) -> Path:
    """The package's files, unpacked under ``out/<package>/`` (downloaded once)."""
    root = out / package
    if (root / ".unpacked").is_file():
        return root
    out.mkdir(parents=True, exist_ok=True)
    debs = sorted(out.glob(f"{package}_*.deb"))
    if not debs:
        subprocess.run(["apt-get", "download", package], cwd=out, check=True)
        debs = sorted(out.glob(f"{package}_*.deb"))
    if not debs:
        raise SystemExit(f"apt-get download {package} left no .deb in {out}")
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["dpkg-deb", "-x", str(debs[-1]), str(root)], check=True)
    (root / ".unpacked").write_text(debs[-1].name)
    return root


def sources(root: Path) -> list[Path]:
    """The English reStructuredText sources of a Sphinx HTML tree, in path order."""
    found = [p for p in root.rglob("*.rst.txt") if "_sources" in p.parts]
    return sorted(p for p in found if "translations" not in p.parts)


def documents(packages: tuple[str, ...], out: Path) -> Iterator[dict]:
    """Every document of the packages, in the fixed shuffled order."""
    files = [(pkg, p) for pkg in packages for p in sources(fetch(pkg, out))]
    random.Random(SEED).shuffle(files)
    for pkg, path in files:
        source = path.read_text(encoding="utf-8", errors="replace")
        paragraphs = list(rst_paragraphs(source))
        text = "\n\n".join(paragraphs)
        if len(text.split()) < MIN_DOC_WORDS:
            continue
        rel = path.relative_to(next(q for q in path.parents if q.name == "_sources"))
        doc_id = f"{pkg}/{rel.as_posix().removesuffix('.rst.txt')}"
        yield {"doc_id": doc_id, "title": title_of(source, doc_id), "text": text}


def write_corpus(words: int, packages: tuple[str, ...] = DEFAULT_PACKAGES, out: Path = OUT) -> tuple[Path, int, int]:
    """Write ``out/real-prose-<words>/`` (once); returns (folder, documents, words written)."""
    folder = out / f"real-prose-{words}"
    done = folder / "done.json"
    if done.is_file():
        meta = json.loads(done.read_text())
        if meta["packages"] == list(packages):
            return folder, meta["documents"], meta["words"]
    folder.mkdir(parents=True, exist_ok=True)
    total = n = 0
    first = None
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as f:
        for doc in documents(packages, out):
            if total >= words:
                break
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
            total += len(doc["text"].split())
            n += 1
            first = first or doc["doc_id"]
    # The generic loader wants questions; the graph build never reads them.
    question = {"id": "q1", "question": "What does the first document describe?", "answer": "its subject",
                "doc_id": first}
    (folder / "questions.jsonl").write_text(json.dumps(question) + "\n", encoding="utf-8")
    if total < words:
        print(f"note: the packages hold only {total} words of prose, fewer than the {words} asked for", file=sys.stderr)
    done.write_text(json.dumps({"packages": list(packages), "documents": n, "words": total}))
    return folder, n, total


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, required=True)
    ap.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES))
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    folder, n, total = write_corpus(args.words, tuple(args.packages), args.out)
    print(f"{folder}: {n} documents, {total} words")
    return 0


if __name__ == "__main__":
    sys.exit(main())
