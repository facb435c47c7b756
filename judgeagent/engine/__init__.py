"""The run engine: one sequence for every way of running (:mod:`judgeagent.engine.run`).

A protocol (``judgeagent/protocols/``) supplies its steps through the
:class:`~judgeagent.engine.protocol.Protocol` interface; the engine opens the run folder,
asks, handles Ctrl-C, failed calls and stops, and writes the outputs.
"""

from judgeagent.engine.options import resolve
from judgeagent.engine.protocol import LeakGuard, Parts, Protocol, split_seeds
from judgeagent.engine.run import RunContext, RunOutcome, arun, run, run_loop

__all__ = ["LeakGuard", "Parts", "Protocol", "RunContext", "RunOutcome", "arun", "resolve", "run", "run_loop", "split_seeds"]
