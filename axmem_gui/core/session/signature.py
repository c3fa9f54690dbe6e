"""Just enough of Ax's signature syntax to validate an agent config before axllm sees it.

`document:string "the text", query:string -> answer:string`. We only need the field names
(to refuse a field named `context`, check `contextFields`, and name missing inputs); axllm
stays the authority on everything else, and its own parse errors are reported as well.

An agent the studio runs (with axllm) may still be refused by @ax-llm/ax, the TypeScript
package a user moves it to: `ts_signature_refusals` names what that package refuses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.errors import InputError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class SignatureFields:
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def _split_top_level(text: str, sep: str) -> list[str]:
    """Split on `sep` outside double-quoted descriptions."""
    parts: list[str] = []
    current: list[str] = []
    in_quote = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and in_quote and i + 1 < len(text):
            current.append(text[i : i + 2])
            i += 2
            continue
        if ch == '"':
            in_quote = not in_quote
        if not in_quote and text.startswith(sep, i):
            parts.append("".join(current))
            current = []
            i += len(sep)
            continue
        current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def _strip_leading_description(text: str) -> str:
    stripped = text.lstrip()
    if not stripped.startswith('"'):
        return text
    end = stripped.find('"', 1)
    return stripped[end + 1 :] if end > 0 else text


def _field_names(side: str, where: str, which: str) -> tuple[str, ...]:
    names: list[str] = []
    for raw in _split_top_level(side, ","):
        part = raw.strip()
        if not part:
            raise InputError(f"{where}: empty {which} field in the signature")
        match = _NAME.match(part)
        if match is None:
            raise InputError(f"{where}: cannot read the {which} field name in {part!r}")
        names.append(match.group(0))
    return tuple(names)


def parse_signature_fields(signature: str, where: str = "signature") -> SignatureFields:
    """Input and output field names of an Ax signature string, or an InputError."""
    sides = _split_top_level(_strip_leading_description(signature), "->")
    if len(sides) != 2:
        raise InputError(
            f"{where}: a signature needs exactly one '->' between inputs and outputs, "
            f"e.g. 'document:string, query:string -> answer:string'"
        )
    return SignatureFields(
        inputs=_field_names(sides[0], where, "input"),
        outputs=_field_names(sides[1], where, "output"),
    )


# --------------------------------------------------------------------------- runtimes


@dataclass(frozen=True)
class SignatureRefusal:
    """One runtime refusing an agent signature, in its own words."""

    runtime: str  # "@ax-llm/ax 24.0.21", "axllm 25.4.6"
    message: str  # the runtime's error message
    hint: str = ""

    def __str__(self) -> str:
        hint = f" ({self.hint})" if self.hint else ""
        return f"{self.runtime} refuses this signature: {self.message}{hint}"

    def to_json(self) -> dict[str, str]:
        return {"runtime": self.runtime, "message": self.message, "hint": self.hint}


def ts_signature_refusals(signature: str, profile: AxProfile) -> list[SignatureRefusal]:
    """What @ax-llm/ax (the profile's release) refuses in an agent signature that axllm
    may accept: its parser's field-name checks (a generic name such as `request`, not
    camelCase or snake_case, under 2 or over 50 characters) and AxAgent's own (a
    signature-level description, a reserved field name, a name over 50 characters once
    its flow names it after a stage). In the order it checks; it throws the first. The
    rules and wording are the profile's (`signature`), taken from the package bundle by
    tools/ax_profile/build_profile.py. The signature must parse (`parse_signature_fields`);
    what both runtimes refuse alike is axllm's to say."""
    rules = profile.signature
    if rules is None:
        return []
    fields = parse_signature_fields(signature)
    m = rules.messages
    runtime = profile.runtime_label.split(" (")[0]
    out: list[SignatureRefusal] = []
    patterns = [re.compile(p) for p in rules.name_patterns]
    for side, names in (("input", fields.inputs), ("output", fields.outputs)):
        examples = ", ".join(rules.examples(side))
        for name in names:
            if name.lower() in rules.generic_names:
                text, hint = m.generic.format(name=name), m.generic_hint.format(examples=examples)
            elif not any(p.fullmatch(name) for p in patterns):
                text, hint = m.invalid.format(name=name), m.invalid_hint
            elif len(name) < rules.min_length:
                text, hint = m.short.format(name=name), m.short_hint
            elif len(name) > rules.max_length:
                text, hint = m.long.format(name=name, length=len(name)), m.long_hint
            else:
                continue
            out.append(SignatureRefusal(runtime, m.prefix + text, hint))
    if signature.lstrip().startswith('"'):
        out.append(SignatureRefusal(runtime, m.description))
    out += [
        SignatureRefusal(runtime, m.reserved_input.format(name=name))
        for name in fields.inputs
        if name in rules.reserved_inputs
    ]
    out += [
        SignatureRefusal(runtime, m.reserved_output.format(name=name))
        for name in fields.outputs
        if name in rules.reserved_outputs
    ]
    for side, names in (("input", fields.inputs), ("output", fields.outputs)):
        for name in names:
            for prefix in rules.prefixes(side):
                flow_name = prefix + _capitalized_camel(name)
                if len(flow_name) > rules.max_length:
                    text = m.flow_long.format(name=flow_name, length=len(flow_name))
                    hint = m.flow_long_hint.format(limit=rules.max_length - len(prefix))
                    out.append(SignatureRefusal(runtime, text, hint))
                    break
    return out


def _capitalized_camel(name: str) -> str:
    camel = re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name)
    return camel[:1].upper() + camel[1:]
