"""The ``pbem`` command line: ``main`` (the ``pbem`` script and ``python -m pbem``).

command.py holds the parser and the error boundary; each group of commands lives in
its own module (service.py, player.py, map.py, data.py) that defines
``add_commands(subparsers)``.
"""

from pbem.cli.command import build_parser, main

__all__ = ["build_parser", "main"]
