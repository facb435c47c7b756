"""A process that embeds texts into a graph folder's vector cache (tests/test_graph_lazy.py).

    python lazy_cache_child.py CACHE_FILE TEXTS_JSON OUT_NPY [--batch N]

Waits for a line on stdin (so two of them start together), embeds the texts a few at a
time (each batch its own transaction), printing ``stored N`` after each, and saves the
vectors it got to OUT_NPY.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hash_encoder import HashEncoder  # noqa: E402

from judgeagent.graph.chunk_cache import ChunkCache  # noqa: E402
from judgeagent.graph.vectors import VectorStore  # noqa: E402


def main() -> int:
    cache_file, texts_file, out = sys.argv[1:4]
    batch = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--batch" else 3
    texts = json.loads(Path(texts_file).read_text(encoding="utf-8"))
    store = VectorStore(HashEncoder(), ChunkCache(Path(cache_file)))
    print("ready", flush=True)
    sys.stdin.readline()
    parts = []
    for lo in range(0, len(texts), batch):
        parts.append(store.encode(texts[lo : lo + batch]))
        print(f"stored {lo + batch}", flush=True)
    np.save(out, np.concatenate(parts))
    print(f"embedded {store.embedded}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
