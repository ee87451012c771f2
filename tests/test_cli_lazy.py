"""The root command group imports a command's module only when the command is looked up
(opsbrain.cli.base.COMMAND_MODULES): the map names every command and the module that registers it."""

from __future__ import annotations

import importlib
import subprocess
import sys

from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.cli.base import COMMAND_MODULES


def test_the_map_names_each_command_and_the_module_that_registers_it() -> None:
    ctx = cli.make_context("opsbrain", ["--help"], resilient_parsing=True)
    listed = cli.list_commands(ctx)  # imports every module of the map
    assert sorted(listed) == sorted(COMMAND_MODULES)
    for name, module in COMMAND_MODULES.items():
        cmd = cli.commands[name]
        owner = cmd.callback.__module__ if cmd.callback else None
        assert owner == f"opsbrain.cli.{module}", name
    for module in set(COMMAND_MODULES.values()):  # no module registers a command the map does not name
        importlib.import_module(f"opsbrain.cli.{module}")
    assert set(cli.commands) - {"crash-in-process"} == set(COMMAND_MODULES)


def test_a_command_imports_only_its_own_module() -> None:
    code = ("import sys\nfrom opsbrain.cli import main\n"
            "try:\n    main(['runbooks', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('opsbrain.cli.') and m.endswith(('_cmds', '_cmd'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "['opsbrain.cli.runbooks_cmds']"


def test_help_lists_every_command() -> None:
    res = CliRunner().invoke(cli, ["--help"])
    assert res.exit_code == 0 and all(f"  {name} " in res.output for name in COMMAND_MODULES)
