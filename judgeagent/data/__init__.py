"""Benchmarks: the shared data model and the loaders for each supported format."""

from judgeagent.data.benchmark import Benchmark, Chunk, Document, Question, QuestionType

__all__ = ["Benchmark", "Chunk", "Document", "Question", "QuestionType", "load_benchmark"]


def load_benchmark(path, **kwargs) -> Benchmark:
    """Detect the format of the folder ``path`` and load it (see :mod:`judgeagent.data.detect`)."""
    from judgeagent.data.detect import load_benchmark as _load

    return _load(path, **kwargs)
