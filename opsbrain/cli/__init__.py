"""The ``opsbrain`` command line: a thin click layer over the library (the only package importing click).

Conventions (DESIGN.md, "Contracts"): every reporting command takes ``--json`` and then prints only JSON on
stdout. Exit codes: 0 ok / verdict passed; 1 verdict failed (a command calls ``ctx.exit(1)``); 2 bad input or
usage, reported as ONE line ``opsbrain: error: ...`` on stderr, never a traceback. Library code raises
:mod:`opsbrain.errors` (or ParamError / UnknownComponent / ValueError for bad values); the root group
(:mod:`opsbrain.cli.base`) turns them into that line. Set ``OPSBRAIN_DEBUG=1`` to see the traceback instead.

One module per command group; each registers its commands on the root group when imported here.
"""

from __future__ import annotations

from opsbrain.cli import (  # noqa: F401  (imported to register their commands)
    chaos_cmds,
    diagnose_cmd,
    kb_cmds,
    report_cmd,
    runbooks_cmds,
    runs_cmds,
    superpod_cmds,
    sweep_cmds,
    topology_cmds,
)
from opsbrain.cli.base import bad_input_types, cli, main, parse_params, sim_params

__all__ = ["bad_input_types", "cli", "main", "parse_params", "sim_params"]
