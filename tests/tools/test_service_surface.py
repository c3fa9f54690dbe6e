"""What services hand above them: no store type in any public signature of the open
workspace and its aggregate services, and no ui module opening a workspace itself.

The import contracts (test_contracts.py) stop ui/ and cli/ importing the store; these
checks stop a service handing a store object up all the same (a returned repository
needs no import to be used)."""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import typing
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import axmem_gui.store.entries
import axmem_gui.store.records
import axmem_gui.store.repositories
import axmem_gui.store.workspace
from axmem_gui.services import (
    agents,
    aggregates,
    catalog,
    evals,
    scenarios,
    session_store,
    settings,
    suites,
    workspace,
)

ROOT = Path(__file__).resolve().parents[2] / "axmem_gui"
STORE_MODULES = (
    axmem_gui.store.entries,
    axmem_gui.store.records,
    axmem_gui.store.repositories,
    axmem_gui.store.workspace,
)
SERVICE_MODULES = (
    agents, aggregates, catalog, evals, scenarios, session_store, settings, suites, workspace,
)
SURFACE = (
    workspace.OpenWorkspace,
    catalog.CatalogService,
    catalog.CatalogTable,
    catalog.CatalogReader,
    scenarios.ScenarioService,
    suites.SuiteService,
    evals.EvalService,
    settings.SettingsService,
    session_store.SessionService,
    session_store.SessionJobs,
    agents.AgentService,
)


def _public_functions(cls: type) -> Iterator[tuple[str, Callable[..., object]]]:
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property) and value.fget is not None:
            yield name, value.fget
        elif isinstance(value, functools.cached_property):
            yield name, value.func
        elif isinstance(value, staticmethod | classmethod):
            yield name, value.__func__
        elif inspect.isfunction(value):
            yield name, value


def _namespace(fn: Callable[..., object]) -> dict[str, object]:
    """What the annotations of `fn` may name, those imported only for type checkers too."""
    ns: dict[str, object] = {}
    for module in (*STORE_MODULES, *SERVICE_MODULES):
        ns.update(vars(module))
    ns.update(vars(sys.modules[fn.__module__]))
    return ns


def _classes(hint: object) -> Iterator[type]:
    if isinstance(hint, type):
        yield hint
    for arg in typing.get_args(hint):
        yield from _classes(arg)


def _store_types_handed_out(cls: type) -> list[str]:
    leaks = []
    for name, fn in _public_functions(cls):
        returned = typing.get_type_hints(fn, globalns=_namespace(fn)).get("return")
        for found in _classes(returned):
            if found.__module__.startswith("axmem_gui.store"):
                leaks.append(f"{cls.__name__}.{name} -> {found.__module__}.{found.__name__}")
    return leaks


@pytest.mark.parametrize("cls", SURFACE, ids=lambda c: c.__name__)
def test_no_public_method_returns_a_store_type(cls: type) -> None:
    assert list(_public_functions(cls))  # the check looks at something
    assert _store_types_handed_out(cls) == []


def test_the_check_sees_a_store_type_handed_out() -> None:
    """The check itself: a service method returning a repository is caught."""

    class Leaky:
        def skills(self) -> axmem_gui.store.entries.SkillRepository:
            raise NotImplementedError

    assert _store_types_handed_out(Leaky) == [
        "Leaky.skills -> axmem_gui.store.entries.SkillRepository"
    ]


def test_no_ui_module_opens_a_workspace() -> None:
    """A job gets a reader or an address from the services, never a path to open."""
    openers = {"open_workspace", "open_at", "init_workspace", "open_default_workspace", "open"}
    found = []
    for path in sorted((ROOT / "ui").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            owner = func.value if isinstance(func, ast.Attribute) else None
            if name == "open" and not (isinstance(owner, ast.Name) and owner.id == "Workspace"):
                continue
            if name in openers:
                found.append(f"{rel}:{node.lineno}")
    assert found == []


def test_every_lazy_import_in_ui_is_also_a_real_import_the_contracts_see() -> None:
    """`lazy_module("x")` imports by name, which import-linter cannot see: each must name
    a module the same file imports for type checkers (`if TYPE_CHECKING: import x`), so
    the contracts judge it as any import."""
    missing = []
    for path in sorted((ROOT / "ui").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
                imported.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", "") == "lazy_module"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value not in imported
            ):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.args[0].value!r}")
    assert missing == []
