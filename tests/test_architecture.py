"""Dependency rules of DESIGN.md, checked on the import statements of every module (AST, no imports run).

- faultlib (the plant) never imports opsbrain (the controller); nor do the data packages.
- Only opsbrain/cli/ imports click; only opsbrain/service/scheduler.py imports apscheduler.
- Diagnosis (opsbrain/diagnosis/) never imports faultlib.faults: it sees telemetry, not the injected truth.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("faultlib", "opsbrain", "knowledge_base", "runbooks", "scenarios", "benchmarks")
DATA_PACKAGES = ("knowledge_base", "runbooks", "scenarios")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module a source imports: ``import a.b``, ``from a import b`` (both ``a`` and ``a.b``),
    relative imports resolved against ``module``, and ``importlib.import_module("x")`` / ``__import__("x")``."""
    out: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".") if package else []
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base:
                out.add(base)
            out.update(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name in {"import_module", "__import__"}:
                out.add(node.args[0].value)
    return out


def _matches(imported: str, prefix: str) -> bool:
    return imported == prefix or imported.startswith(prefix + ".")


def project_modules() -> dict[str, tuple[str, set[str]]]:
    """Relative path -> (module name, imported modules), for every .py file of the project packages."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            mod = module_name(path)
            out[rel] = (mod, imports_of(path.read_text(encoding="utf-8"), mod, path.name == "__init__.py"))
    return out


MODULES = project_modules()


def violations(rule_applies: Callable[[str], bool], forbidden: str, allowed: tuple[str, ...] = ()) -> list[str]:
    return sorted(f"{rel} imports {imp}" for rel, (_mod, imps) in MODULES.items()
                  if rule_applies(rel) and rel not in allowed for imp in imps if _matches(imp, forbidden))


def test_the_walk_sees_the_project() -> None:
    assert sum(rel.startswith("faultlib/") for rel in MODULES) >= 10
    assert "click" in MODULES["opsbrain/cli/base.py"][1]  # the one allowed use is visible to the checker
    assert "faultlib.topology" in MODULES["faultlib/simparams.py"][1]


def test_faultlib_never_imports_opsbrain() -> None:
    assert violations(lambda rel: rel.startswith("faultlib/"), "opsbrain") == []


@pytest.mark.parametrize("pkg", DATA_PACKAGES)
def test_data_packages_never_import_opsbrain(pkg: str) -> None:
    assert violations(lambda rel: rel.startswith(f"{pkg}/"), "opsbrain") == []


def test_only_the_cli_imports_click() -> None:
    assert violations(lambda rel: not rel.startswith("opsbrain/cli/"), "click") == []


def test_only_the_service_scheduler_imports_apscheduler() -> None:
    assert violations(lambda rel: True, "apscheduler", allowed=("opsbrain/service/scheduler.py",)) == []


def test_diagnosis_never_reads_ground_truth() -> None:
    assert violations(lambda rel: rel.startswith("opsbrain/diagnosis/"), "faultlib.faults") == []


@pytest.mark.parametrize("source,module,expected", [
    ("import click", "opsbrain.x", "click"),
    ("from click.testing import CliRunner", "opsbrain.x", "click.testing"),
    ("from faultlib import faults", "opsbrain.diagnosis.model", "faultlib.faults"),
    ("from ...faultlib.faults import catalog", "pkg.opsbrain.diagnosis.model", "pkg.faultlib.faults"),
    ("from ..errors import InputError", "opsbrain.diagnosis.model", "opsbrain.errors"),
    ("from . import features", "opsbrain.diagnosis.model", "opsbrain.diagnosis.features"),
    ("def f():\n    import opsbrain.cli\n", "faultlib.engine", "opsbrain.cli"),
    ("import importlib\nimportlib.import_module('apscheduler.schedulers')", "m", "apscheduler.schedulers"),
])
def test_the_import_checker_catches_each_form(source: str, module: str, expected: str) -> None:
    assert expected in imports_of(source, module)


def test_relative_import_in_a_package_init_resolves_against_the_package() -> None:
    assert "opsbrain.diagnosis.features" in imports_of("from .features import x", "opsbrain.diagnosis", True)
