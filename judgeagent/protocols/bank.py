"""``--protocol bank`` (``judgeagent evaluate --bank GRAPH_DIR``): ask a target stored bank
items, no generation.

Several targets asked the same items (same ``--bank-size`` and ``--bank-seed``) are on one
scale. Items that calibration flagged are left out, with a note. Fixed: one unit per item,
each written as it is answered, so an interrupted run resumes. With ``--adaptive`` the items
are chosen one at a time by Fisher information at the target's current θ until the SE
reaches ``--target-se``: one unit, the whole test (each step depends on the one before).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator, model_validator
from rich.table import Table

from judgeagent.bank.bankrun import Ability, BankPool, LevelFigures, adaptive_test, ask_item, bank_pool, draw_items, fixed_metrics, item_record, pool_notes
from judgeagent.bank.store import Bank, BankAnswer, BankItem
from judgeagent.batches import Batch
from judgeagent.budgets import answer_tokens, answering
from judgeagent.config import EvalConfig, ProtocolOptions
from judgeagent.data.benchmark import QuestionType
from judgeagent.engine.callplan import ONE, Call, Count, RateValues
from judgeagent.engine.protocol import Figures, Protocol, Renderable
from judgeagent.engine.registry import register
from judgeagent.engine.services import RunOutcome, RunServices
from judgeagent.errors import ConfigError
from judgeagent.metrics.audited import Answered
from judgeagent.records import AbilityRecord, BankItemRecord, Json, JsonModel
from judgeagent.stages.extension import path_text
from judgeagent.stages.grading import answer_messages

ADAPTIVE_UNIT = "adaptive"


class BankOptions(ProtocolOptions):
    """Which bank items a bank run asks, and how."""

    bank: Path = Field(description="The graph folder whose question bank is asked (instead of interviewing: no generation).")
    bank_size: int | None = Field(default=None, ge=1, description="How many items (default: every unflagged one; with --adaptive, the most to ask).")
    bank_seed: int = Field(default=0, description="The seed that draws the items.")
    bank_items: list[str] | None = Field(
        default=None, description="Ask exactly these item ids (comma-separated), in this order, instead of a draw (a sweep's shared items)."
    )
    adaptive: bool = Field(default=False, description="Pick each item by Fisher information at the current ability (needs `judgeagent calibrate`).")
    target_se: float = Field(default=0.3, gt=0.0, description="With --adaptive: stop once the ability's standard error is at most this.")

    @field_validator("bank_items", mode="before")
    @classmethod
    def _comma_separated(cls, v: Any) -> Any:
        # The command line gives one text; Python and config.json give a list.
        return [x.strip() for x in v.split(",") if x.strip()] if isinstance(v, str) else v

    @model_validator(mode="after")
    def _items_or_draw(self) -> BankOptions:
        if self.bank_items is not None and (self.adaptive or self.bank_size is not None):
            raise ValueError("bank_items names the items to ask; it does not go with adaptive or bank_size")
        return self


Run = RunServices[BankOptions, BankItemRecord]
BANK = answering("bank", 15)  # the target answers one stored item


@register
class BankRun(Protocol[BankOptions, BankItemRecord]):
    name = "bank"
    title = "Bank run (fixed or adaptive test of stored items)"
    order = 60
    label = "bank items"
    writes_report = False
    audited_items = "bank items"
    audited_in = "bank"  # the items a bank run asked are the bank's: their provenance is read from it
    rates = ()  # one request per item asked: nothing random to learn

    def __init__(self) -> None:
        self.bank: Bank | None = None
        self.pool: BankPool | None = None
        self.items: dict[str, BankItem] = {}  # unit id → its item (a fixed test)

    def needs_benchmark(self, options: BankOptions) -> bool:
        return False

    @staticmethod
    def mode(options: BankOptions) -> str:
        return "adaptive" if options.adaptive else "bank"

    def stored(self) -> tuple[Bank, BankPool]:
        """The bank and its usable items, opened by ``units``."""
        assert self.bank is not None and self.pool is not None, "units() opens the bank"
        return self.bank, self.pool

    def units(self, run: Run) -> list[Batch]:
        """Fixed: the drawn items, one unit each. Adaptive: one unit, the whole test."""
        opts = run.options
        self.bank = Bank.open(Path(opts.bank), create=False)
        self.pool = pool = bank_pool(Path(opts.bank), self.bank, adaptive=opts.adaptive)
        if opts.adaptive:
            return [Batch(0, ADAPTIVE_UNIT, [])]
        items = chosen_items(pool, opts.bank_items, opts.bank) if opts.bank_items is not None else draw_items(pool.items, opts.bank_size, opts.bank_seed)
        self.items = {i.item_id: i for i in items}
        return [Batch(n, item.item_id, [item.to_question()]) for n, item in enumerate(items)]

    def identity(self, run: Run) -> Json:
        cfg, opts = run.cfg, run.options
        identity: Json = {"mode": self.mode(opts), "bank": str(Path(opts.bank).resolve()), "target": cfg.target, "judge": cfg.judge,
                "bank_size": opts.bank_size, "bank_seed": opts.bank_seed, "target_se": opts.target_se if opts.adaptive else None,
                "seed": cfg.seed}  # fmt: skip
        if opts.bank_items is not None:
            identity["bank_items"] = list(opts.bank_items)
        return identity

    def folder_name(self, run: Run) -> tuple[str, str, str]:
        return run.cfg.target, Path(run.options.bank).name, f"-{self.mode(run.options)}"

    def todo(self, run: Run) -> list[Batch]:
        if run.options.adaptive:
            return [] if run.done else run.units
        done = run.done_ids()
        return [u for u in run.units if u.id not in done]

    async def ask_unit(self, run: Run, unit: Batch) -> None:
        if unit.id != ADAPTIVE_UNIT:
            rec = item_record(self.items[unit.id], await ask_item(run.models, self.items[unit.id]))
            rec.batch_id, rec.batch_index = unit.id, unit.index
            run.append(rec)
            return
        opts = run.options
        test, records = await adaptive_test(run.models, self.stored()[1], opts.target_se, opts.bank_size)
        if records:  # the test's own end, which no single step knows, rides on its last step
            records[-1].final = AbilityRecord(theta=round(test.theta, 4), se=round(test.se, 4), stop_reason=test.stop_reason)
        for n, rec in enumerate(records):
            rec.batch_id, rec.batch_index = ADAPTIVE_UNIT, n
            run.append(rec)

    def call_plan(self, run: Run, unit: Batch | None, rates: RateValues) -> list[Call]:
        """One request per item. An adaptive test asks until the ability's standard error is at
        most --target-se: about 1 / (se² · 0.2) items (a 2PL item near the ability gives ~0.2
        of information), at most --bank-size or the pool."""
        if unit is None:
            return []
        opts, pool = run.options, self.stored()[1]
        items = [self.items[unit.id]] if unit.id != ADAPTIVE_UNIT else pool.items[:1]
        if not items:
            return []
        count = ONE
        if unit.id == ADAPTIVE_UNIT:
            most = min(len(pool.items), opts.bank_size or len(pool.items))
            mean = min(most, 1 / (opts.target_se**2 * 0.2))
            count = Count(mean, (most - 1) ** 2 / 12, min(most, 1.0), float(most))
        item = items[0]
        qtype = QuestionType(item.qtype)
        context = path_text([s["text"] for s in item.path], [s["entity"] for s in item.path]) if qtype.shows_context else None
        return [Call(BANK, "target", count, answer_messages(qtype, [item.to_question()], context=context), max_tokens=answer_tokens(1))]

    def metrics(self, run: Run, records: list[BankItemRecord]) -> Figures:
        opts, (bank, pool) = run.options, self.stored()
        mode = self.mode(opts)
        metrics: Figures
        if opts.adaptive:
            # Runs made before the engine kept no "final": their last step's figures are the test's.
            last = records[-1] if records else None
            final = last.final if last is not None and last.final is not None else AbilityRecord(theta=last.theta if last else None,
                                                                                                  se=last.se if last else None)
            metrics = {"mode": mode, "theta": final.theta, "se": final.se, "items_used": len(records),
                       "items_available": len(pool.items), "target_se": opts.target_se, "stop_reason": final.stop_reason}
            finished = {ADAPTIVE_UNIT} if records else set()
        else:
            metrics = {"mode": mode, **asdict(fixed_metrics(records, pool))}
            if opts.bank_size and opts.bank_size > len(pool.items):
                metrics["size_note"] = f"--bank-size {opts.bank_size} asked for more items than the bank has usable ({len(pool.items)}): all were asked"
            finished = {r.item_id for r in records}
        return metrics | pool_notes(pool, Path(opts.bank), len(bank.items())) | dict(run.bookkeeping(finished))

    def after(self, run: Run, records: list[BankItemRecord]) -> None:
        """The target's answers into the bank, for calibration."""
        bank, mode, target = self.stored()[0], self.mode(run.options), run.target
        bank.write([], [BankAnswer(r.item_id, target.identity, target.name, str(run.folder.path.resolve()), mode, r.target_answer.reply,
                                   r.target_answer.chosen, r.correct) for r in records])

    def audited_answers(self, record: BankItemRecord, qtype: str) -> list[Answered]:
        """The stored item the record asked, by its bank id."""
        return [Answered(record.item_id, record.level or "unlabeled", record.correct)] if record.item_id else []

    def headline(self, outcome: RunOutcome, cfg: EvalConfig) -> list[Renderable]:
        return bank_lines(BankFigures.from_json(outcome.metrics), cfg.target)


class BankFigures(JsonModel):
    """A bank run's metrics.json, as its headline reads it."""

    mode: str = "bank"
    excluded_note: str | None = None
    size_note: str | None = None
    items_from_older_graph: int = 0
    # adaptive
    theta: float | None = None
    se: float | None = None
    items_used: int = 0
    items_available: int = 0
    stop_reason: str | None = None
    # fixed
    n_items: int = 0
    accuracy: float | None = None
    by_level: dict[str, LevelFigures] = Field(default_factory=dict)
    ability: Ability | None = None


def chosen_items(pool: BankPool, ids: list[str], bank: Path) -> list[BankItem]:
    """The named items, in the order named; an id the bank lacks is an error, one calibration
    flagged is left out like any flagged item (the pool's note says how many)."""
    usable = {i.item_id: i for i in pool.items}
    flagged = set(pool.flagged)
    missing = [i for i in ids if i not in usable and i not in flagged]
    if missing:
        raise ConfigError(f"{bank}: no item {missing[0]} in its question bank" + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    chosen = [usable[i] for i in dict.fromkeys(ids) if i in usable]
    if not chosen:
        raise ConfigError(f"{bank}: none of the {len(ids)} named items is usable (calibration flagged them)")
    return chosen


def bank_lines(m: BankFigures, target: str) -> list[Renderable]:
    """The notes, then θ for an adaptive test or the accuracy table by level."""
    out: list[Renderable] = [f"note: {note}" for note in (m.excluded_note, m.size_note) if note]
    if m.items_from_older_graph:
        out.append(f"note: {m.items_from_older_graph} of the items come from an older build of the graph")
    if m.mode == "adaptive":
        if m.theta is not None:
            out.append(f"{target}: θ {m.theta:.2f} (SE {m.se or 0:.2f}) after {m.items_used} of {m.items_available} items ({m.stop_reason})")
        return out
    t = Table(title=f"{target} on {m.n_items} bank items")
    for col in ("level", "items", "accuracy"):
        t.add_column(col, justify="right")
    for level, x in m.by_level.items():
        t.add_row(level, str(x.n_items), f"{x.accuracy:.1f}%")
    t.add_row("all", str(m.n_items), "–" if m.accuracy is None else f"{m.accuracy:.1f}%")
    out.append(t)
    if m.ability:
        out.append(f"θ {m.ability.theta:.2f} (SE {m.ability.se:.2f}) on {m.ability.n_items} calibrated items")
    return out


__all__ = ["BankOptions", "BankPool", "BankRun"]
