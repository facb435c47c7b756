"""The run engine: one sequence for every way of running (:mod:`judgeagent.engine.run`).

A protocol (``judgeagent/protocols/``) supplies its steps through the
:class:`~judgeagent.engine.protocol.Protocol` interface and receives the run's
:class:`~judgeagent.engine.services.RunServices`; the engine opens the run folder, asks,
handles Ctrl-C, failed calls and stops, and writes the outputs.
"""

from judgeagent.engine.options import resolve
from judgeagent.engine.protocol import AuditSlot, OwnFolder, Protocol, split_seeds
from judgeagent.engine.registry import register
from judgeagent.engine.run import arun, open_run, run, run_loop
from judgeagent.engine.services import FinishedRun, RunOutcome, RunServices, Service

__all__ = ["AuditSlot", "FinishedRun", "OwnFolder", "Protocol", "RunOutcome", "RunServices", "Service", "arun", "open_run", "register", "resolve", "run",
           "run_loop", "split_seeds"]
