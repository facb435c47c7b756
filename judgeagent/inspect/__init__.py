"""Our protocols as Inspect AI tasks (the ``inspect`` extra): ``inspect eval judgeagent/interview``.

Registered through Inspect's ``inspect_ai`` entry point (pyproject.toml), from
:mod:`judgeagent.inspect.tasks`:

- :mod:`~judgeagent.inspect.arguments`: ``-T`` arguments, checked by the protocols' own options models;
- :mod:`~judgeagent.inspect.session`: the run engine's services over Inspect's models, one seed
  batch (or seed) per sample;
- :mod:`~judgeagent.inspect.log`: what a sample's messages, scores and the task's metrics show.

The interview itself (graph, plans, batches, difficulty controller, quality gate, leakage
guard, metrics) is the protocol's own code, the same a ``judgeagent evaluate`` run calls.
"""
