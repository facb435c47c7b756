"""The ``judgeagent`` command line: a thin Typer layer over the library."""
