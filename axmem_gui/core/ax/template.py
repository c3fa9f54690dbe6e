"""The tiny template language of Ax's prompt templates (`templateEngine.ts`).

`{{ name }}` inserts a variable; `{{ if cond }}...{{ else }}...{{ /if }}` keeps one branch,
`cond` being a variable name (truthy test) or `name === 'text'`. Tags are replaced in
place: the newlines around them stay, which is why Ax collapses 3+ newlines afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

_TAG = re.compile(r"\{\{\s*([^}]+?)\s*\}\}")
_EQUALS = re.compile(r"""^([A-Za-z_][\w.]*)\s*===\s*(?:'([^']*)'|"([^"]*)")$""")


@dataclass(frozen=True)
class _Var:
    name: str


@dataclass(frozen=True)
class _If:
    condition: str
    then: tuple[_Node, ...]
    otherwise: tuple[_Node, ...]


_Node = str | _Var | _If


class TemplateError(ValueError):
    pass


def _parse(
    tokens: list[tuple[bool, str]], at: int, stop: frozenset[str]
) -> tuple[list[_Node], int, str | None]:
    nodes: list[_Node] = []
    while at < len(tokens):
        is_tag, value = tokens[at]
        if not is_tag:
            nodes.append(value)
            at += 1
            continue
        if value in stop:
            return nodes, at, value
        if value.startswith("if "):
            then, at, ended = _parse(tokens, at + 1, frozenset({"else", "/if"}))
            otherwise: list[_Node] = []
            if ended == "else":
                otherwise, at, ended = _parse(tokens, at + 1, frozenset({"/if"}))
            if ended != "/if":
                raise TemplateError(f"unclosed {{{{ {value} }}}}")
            nodes.append(_If(value[3:].strip(), tuple(then), tuple(otherwise)))
            at += 1
            continue
        if value in ("else", "/if"):
            raise TemplateError(f"unexpected {{{{ {value} }}}}")
        nodes.append(_Var(value))
        at += 1
    return nodes, at, None


@lru_cache(maxsize=64)
def _compile(template: str) -> tuple[_Node, ...]:
    tokens: list[tuple[bool, str]] = []
    last = 0
    for match in _TAG.finditer(template):
        if match.start() > last:
            tokens.append((False, template[last : match.start()]))
        tokens.append((True, match.group(1).strip()))
        last = match.end()
    if last < len(template):
        tokens.append((False, template[last:]))
    nodes, _, ended = _parse(tokens, 0, frozenset())
    if ended is not None:
        raise TemplateError(f"unexpected {{{{ {ended} }}}}")
    return tuple(nodes)


def _truthy(condition: str, variables: Mapping[str, object]) -> bool:
    equals = _EQUALS.match(condition)
    if equals:
        expected = equals.group(2) if equals.group(2) is not None else equals.group(3)
        return variables.get(equals.group(1)) == expected
    return bool(variables.get(condition))


def _render(nodes: tuple[_Node, ...], variables: Mapping[str, object], out: list[str]) -> None:
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, _Var):
            value = variables.get(node.name)
            out.append("" if value is None else str(value))
        else:
            branch = node.then if _truthy(node.condition, variables) else node.otherwise
            _render(branch, variables, out)


def render_template(template: str, variables: Mapping[str, object]) -> str:
    out: list[str] = []
    _render(_compile(template), variables, out)
    return "".join(out)
