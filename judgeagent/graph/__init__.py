"""Context graph (docs/concepts/method.md §1): entities from the reference texts, their co-occurrence
edges, their vectors (made on demand and cached in the graph folder, or all at build time with
FAISS indexes) and knowledge-path sampling (§3 step 2).

Importing this package is cheap: spaCy, torch and FAISS load only when first used.
"""

from judgeagent.graph.build import build_graph
from judgeagent.graph.context_graph import ContextGraph, EntityMatch, load_graph
from judgeagent.graph.embed import Embedder, shared_embedder
from judgeagent.graph.extract import EntityExtractor, SpacyExtractor, make_extractor, register_extractor
from judgeagent.graph.info import graph_info
from judgeagent.graph.sampler import KnowledgePath, PathStep

__all__ = [
    "ContextGraph",
    "Embedder",
    "EntityExtractor",
    "EntityMatch",
    "KnowledgePath",
    "PathStep",
    "SpacyExtractor",
    "build_graph",
    "graph_info",
    "load_graph",
    "make_extractor",
    "register_extractor",
    "shared_embedder",
]
