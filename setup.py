"""Package discovery, the one thing pyproject.toml cannot declare here.

The Typer front end lives in the top-level ``cli/`` folder but is imported as
``judgeagent.cli`` (``package-dir`` in pyproject.toml). setuptools' ``packages.find`` only
discovers packages under their own folder, so it would miss ``judgeagent.cli``; a hand-written
list would miss whatever package is added next. So: find every package under ``judgeagent/``
and add the one that lives elsewhere. ``make test`` builds the wheel and checks that every
module and data file of the tree is in it.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["judgeagent", "judgeagent.*"]), "judgeagent.cli"])
