"""JudgeAgent: evaluate LLMs the way an interviewer would.

The pipeline, in the order a run goes through it:

- ``judgeagent.data``     read a benchmark folder into a :class:`Benchmark`
- ``judgeagent.graph``    build / load the :class:`ContextGraph` and sample :class:`KnowledgePath` s
- ``judgeagent.llm``      the one client layer every stage talks to models through
- ``judgeagent.prompts``  every prompt, as a template
- ``judgeagent.stages``   grading → extension → feedback
- ``judgeagent.metrics``  pure functions: difficulty control, ACC1/ACC2/CR/CtE
- ``judgeagent.report``   what a user reads after a run
- ``judgeagent.protocols`` the interview protocols (JudgeAgent's and the kin systems')

From Python::

    from judgeagent import evaluate, EvalConfig
    result = evaluate(EvalConfig(target="local", judge="local", protocol="kieval", limit=3))
    result.metrics["kieval"]["overall"], result.run_dir
"""

__version__ = "0.1.0"

__all__ = ["EvalConfig", "EvalResult", "SeedsConfig", "SeedsResult", "SweepConfig", "audit", "estimate", "evaluate", "sweep", "write_seeds"]


def __getattr__(name: str):
    # Loaded on first use, so `import judgeagent.<module>` stays as light as before.
    if name == "EvalConfig":
        from judgeagent.config import EvalConfig

        return EvalConfig
    # The modules behind estimate and sweep are named estimation and sweeps: a submodule named
    # like the function would replace it here as soon as it is imported.
    if name == "estimate":  # what a run will cost, nothing sent (judgeagent/estimation/)
        from judgeagent.estimation import estimate

        return estimate
    if name in ("sweep", "SweepConfig"):  # several targets, one judge, one leaderboard (judgeagent/sweeps/)
        from judgeagent import sweeps

        return getattr(sweeps, name)
    if name == "audit":  # the audit of generated questions (judgeagent/audit/): a package that is also the call
        import judgeagent.audit as _audit

        return _audit
    if name == "SeedsConfig":  # seed questions written from a graph (judgeagent/protocols/seeds/)
        from judgeagent.protocols.seeds.config import SeedsConfig

        return SeedsConfig
    if name in ("evaluate", "EvalResult", "write_seeds", "SeedsResult"):
        from judgeagent import api

        return getattr(api, name)
    raise AttributeError(f"module 'judgeagent' has no attribute {name!r}")
