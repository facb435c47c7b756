"""JudgeAgent: evaluate LLMs the way an interviewer would.

The pipeline, in the order a run goes through it:

- ``judgeagent.data``     read a benchmark folder into a :class:`Benchmark`
- ``judgeagent.graph``    build / load the :class:`ContextGraph` and sample :class:`KnowledgePath` s
- ``judgeagent.llm``      the one client layer every stage talks to models through
- ``judgeagent.prompts``  every prompt, as a template
- ``judgeagent.stages``   grading → extension → feedback
- ``judgeagent.metrics``  pure functions: difficulty control, ACC1/ACC2/CR/CtE
- ``judgeagent.report``   what a user reads after a run
"""

__version__ = "0.1.0"
