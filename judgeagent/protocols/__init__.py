"""Every way of running, one module (or package) each, registered by name.

    judgeagent     the interview of the JudgeAgent paper (the default), its ablation arms and
                   its Appendix E.2 experiments
    kieval         KIEval: interactor and evaluator hold a scored multi-turn dialogue per seed
    interviewer    LLM-as-an-Interviewer: feedback and revision, follow-ups, Interview Report
    escalate       MACEval: Easy → Medium → Hard along each seed's path until it fails twice
    contamination  the paper's Appendix E.1 probe: seed accuracy vs new questions on the same knowledge
    bank           fixed or adaptive tests of stored bank items, no generation
    seeds          no interview: seed questions written from a graph (``judgeagent seeds``)

Three modules are no protocol but what several share: ``seedwise`` (the steps of the
per-seed protocols), ``dialogue`` (the dialogue protocols' transcripts and replies) and
``stage_plans`` (the ``--dry-run`` plans of the follow-up and guard stages).

Each registers itself with ``judgeagent.engine.registry.register``; the registry imports the modules
of this package by name, so nothing here imports them. What a protocol supplies is
:class:`judgeagent.engine.protocol.Protocol`; the engine (:mod:`judgeagent.engine`) runs it.
"""
