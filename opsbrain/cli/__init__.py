"""The ``opsbrain`` command line: a thin click layer over the library (the only package importing click).

Conventions (DESIGN.md, "Contracts"): every reporting command takes ``--json`` and then prints only JSON on
stdout. Exit codes: 0 ok / verdict passed; 1 verdict failed (a command calls ``ctx.exit(1)``); 2 bad input or
usage, reported as ONE line ``opsbrain: error: ...`` on stderr, never a traceback. Library code raises
:mod:`opsbrain.errors` (or ParamError / UnknownComponent / ValueError for bad values); the root group
(:mod:`opsbrain.cli.base`) turns them into that line. Set ``OPSBRAIN_DEBUG=1`` to see the traceback instead.

One module per command group; each registers its commands on the root group when imported, which the root group
does when a command is looked up (:data:`opsbrain.cli.base.COMMAND_MODULES`): a command imports only its own module.
"""

from __future__ import annotations

from opsbrain.cli.base import bad_input_types, cli, main, parse_params, sim_params

__all__ = ["bad_input_types", "cli", "main", "parse_params", "sim_params"]
