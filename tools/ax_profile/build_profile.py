#!/usr/bin/env python3
"""Build `axmem_gui/core/ax/profiles/ax-<version>.json` from the published Ax package.

The profile is the Ax-specific data our pure-Python renderer and search need: the
stopword list, the ranker's default guards, the tokenizer's punctuation and diacritic
classes, the per-domain search constants, the skills/memories/relevance sections of the
executor and distiller prompt templates, the entry/block formats and the field lists of
each stage (used by AxGen's field-reference rewrite).

Everything is read from the package's own minified bundle (`index.js`): the script
downloads `@ax-llm/ax@<version>` with `npm pack` into a temporary directory (or reads a
tarball given with `--tarball`), locates each piece by code pattern, and fails loudly when
a pattern is not found, so a new Ax release cannot silently produce a wrong profile.

Usage:
    python tools/ax_profile/build_profile.py [--version 24.0.21] [--tarball FILE.tgz]
        [--out PATH] [--golden EXPECTED.json]

Data in the profile comes from ax-llm/ax (Apache-2.0); see NOTICE at the repo root.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
PROFILES_DIR = REPO_ROOT / "axmem_gui" / "core" / "ax" / "profiles"
PACKAGE = "@ax-llm/ax"

ID = r"[\w$]+"  # a minified JavaScript identifier


class ExtractionError(RuntimeError):
    pass


# --------------------------------------------------------------------------- JS literals


def parse_js_string(src: str, start: int) -> tuple[str, int]:
    """Parse the JS string or template literal starting at `src[start]`.

    Returns the decoded value and the index just past the closing quote. Template literals
    must not contain `${...}` substitutions (prompt templates never do).
    """
    quote = src[start]
    if quote not in "'\"`":
        raise ExtractionError(f"no string literal at offset {start}: {src[start:start + 40]!r}")
    out: list[str] = []
    i = start + 1
    simple = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
    while True:
        ch = src[i]
        if ch == quote:
            return "".join(out), i + 1
        if quote == "`" and src.startswith("${", i):
            raise ExtractionError(f"template literal with substitution at offset {i}")
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        esc = src[i + 1]
        if esc in simple:
            out.append(simple[esc])
            i += 2
        elif esc == "x":
            out.append(chr(int(src[i + 2 : i + 4], 16)))
            i += 4
        elif esc == "u" and src[i + 2] == "{":
            end = src.index("}", i)
            out.append(chr(int(src[i + 3 : end], 16)))
            i = end + 1
        elif esc == "u":
            out.append(chr(int(src[i + 2 : i + 6], 16)))
            i += 6
        elif esc == "\n":
            i += 2  # line continuation
        else:
            out.append(esc)
            i += 2


def parse_js_string_array(src: str, start: int) -> tuple[list[str], int]:
    """Parse `[ "a", 'b', ... ]` starting at the `[`."""
    if src[start] != "[":
        raise ExtractionError(f"no array literal at offset {start}")
    items: list[str] = []
    i = start + 1
    while True:
        while src[i] in " \n\t,":
            i += 1
        if src[i] == "]":
            return items, i + 1
        value, i = parse_js_string(src, i)
        items.append(value)


def parse_regex_class(body: str) -> list[str]:
    """Expand a JS regex character class body (between `[` and `]`) to its characters."""
    chars: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            ch = body[i + 1]
            i += 2
        else:
            i += 1
        if i + 1 < len(body) and body[i] == "-":
            hi = body[i + 1]
            if hi == "\\":
                hi = body[i + 2]
                i += 3
            else:
                i += 2
            chars.extend(chr(c) for c in range(ord(ch), ord(hi) + 1))
        else:
            chars.append(ch)
    return chars


def find_one(pattern: str, src: str, what: str) -> re.Match[str]:
    matches = list(re.finditer(pattern, src))
    if not matches:
        raise ExtractionError(f"{what}: code pattern not found in the bundle")
    return matches[0]


def var_value_offset(src: str, name: str) -> int:
    """Offset of the value assigned to top-level variable `name` (`name=<value>`)."""
    match = find_one(rf"(?<![\w$.]){re.escape(name)}=(?!=)", src, f"variable {name}")
    return match.end()


def var_number(src: str, name: str) -> float:
    start = var_value_offset(src, name)
    match = re.match(r"[0-9]*\.?[0-9]+(?:e[+-]?\d+)?", src[start:])
    if not match:
        raise ExtractionError(f"variable {name} is not a number literal")
    number = float(match.group(0))
    return int(number) if number.is_integer() else number


def var_regex_class(src: str, name: str) -> list[str]:
    start = var_value_offset(src, name)
    match = re.match(r"/\[((?:\\.|[^\]\\])*)\]/g", src[start:])
    if not match:
        raise ExtractionError(f"variable {name} is not a /[...]/g regex literal")
    return parse_regex_class(match.group(1))


# --------------------------------------------------------------------------- extraction


def extract_ranker(src: str) -> dict[str, Any]:
    prose = find_one(
        rf"function {ID}\(({ID})\)\{{return \1\.normalize\(\"NFKD\"\)\.replace\(({ID}),\"\"\)"
        rf"\.toLowerCase\(\)\.replace\(({ID}),\" \"\)\.split\(/\\s\+/\)\.filter\(({ID})=>"
        rf"\4\.length>1&&!/\^\\d\+\$/\.test\(\4\)&&!({ID})\.has\(\4\)\)\}}",
        src,
        "prose tokenizer (NFKD, diacritics, lower-case, punctuation, \\s+ split, filters)",
    )
    diacritic_var, punct_var, stop_var = prose.group(2), prose.group(3), prose.group(5)
    set_start = var_value_offset(src, stop_var)
    if not src.startswith("new Set([", set_start):
        raise ExtractionError(f"stopword variable {stop_var} is not `new Set([...])`")
    listed, _ = parse_js_string_array(src, set_start + len("new Set("))
    stopwords = list(dict.fromkeys(listed))  # a JS Set: the list repeats 'll' and 've'

    find_one(
        rf"function {ID}\(({ID})\)\{{return \1\.split\(/\[\^A-Za-z0-9\]\+/\)\.flatMap\(({ID})=>"
        rf"\2\.replace\(/\(\[A-Z\]\+\)\(\[A-Z\]\[a-z\]\)/g,\"\$1 \$2\"\)"
        rf"\.replace\(/\(\[a-z0-9\]\)\(\[A-Z\]\)/g,\"\$1 \$2\"\)\.split\(/\\s\+/\)\)"
        rf"\.map\(({ID})=>\3\.toLowerCase\(\)\)\.filter\(({ID})=>\4\.length>1&&!/\^\\d\+\$/"
        rf"\.test\(\4\)\)\}}",
        src,
        "identifier tokenizer (camelCase/acronym split)",
    )
    defaults = find_one(
        rf"let {ID}=({ID})\?\.topK\?\?({ID}),{ID}=\1\?\.minScore\?\?({ID}),"
        rf"{ID}=\1\?\.marginRatio\?\?({ID}),{ID}=\1\?\.minDocs\?\?({ID});",
        src,
        "rankDocuments default options",
    )
    diacritics = var_regex_class(src, diacritic_var)
    return {
        "stopwords": stopwords,
        "punctuation": "".join(var_regex_class(src, punct_var)),
        "diacriticRange": [ord(diacritics[0]), ord(diacritics[-1])],
        "defaults": {
            "topK": var_number(src, defaults.group(2)),
            "minScore": var_number(src, defaults.group(3)),
            "marginRatio": var_number(src, defaults.group(4)),
            "minDocs": var_number(src, defaults.group(5)),
        },
    }


def extract_skills(src: str) -> dict[str, Any]:
    docs = find_one(
        rf"\{{id:({ID})\.id,fields:\[\{{text:\1\.id,identifier:!0\}},\{{text:\1\.name,"
        rf"weight:(\d+)\}},\.\.\.\1\.description\?\[\{{text:\1\.description,weight:(\d+)\}}\]"
        rf":\[\],\{{text:\1\.content\.slice\(0,({ID})\)\}}\]\}}",
        src,
        "skill search document (id, name, description, content cut)",
    )
    search = find_one(
        rf"\{{topK:({ID}),minScore:0,marginRatio:0,minDocs:1\}}\)\)({ID})\.includes\(",
        src[docs.end() :],
        "built-in skills search options",
    )
    line = find_one(
        rf"\.map\(({ID})=>`- \\`\$\{{\1\.id\}}\\`(.*?)\$\{{\1\.name\}}\$\{{\1\.description\?`"
        rf"(.*?)\$\{{\1\.description\}}`:\"\"\}}`\)\.join\(`\n`\)",
        src,
        "Available Skills entry line",
    )
    block = find_one(
        rf"\.map\(\(\{{id:({ID}),name:({ID}),content:({ID})\}}\)=>`### \$\{{\2\}}\n\nID: "
        rf"\\`\$\{{\1\}}\\`\n\n\$\{{\3\}}`\)\.join\(`\n\n`\)",
        src,
        "Loaded Skills block",
    )
    del block
    separator = _unescape(line.group(2))
    if separator != _unescape(line.group(3)):
        raise ExtractionError("entry line: name and description separators differ")
    return {
        "nameWeight": int(docs.group(2)),
        "descriptionWeight": int(docs.group(3)),
        "contentChars": var_number(src, docs.group(4)),
        "searchTopK": var_number(src, search.group(1)),
        "indexLine": "- `{id}`" + separator + "{name}",
        "indexDescription": separator + "{description}",
        "loadedBlock": "### {name}\n\nID: `{id}`\n\n{content}",
        "blockSeparator": "\n\n",
    }


def extract_memories(src: str) -> dict[str, Any]:
    doc = find_one(
        rf"function ({ID})\(({ID})\)\{{return\{{id:\2\.id,fields:\[\{{text:\2\.id,"
        rf"identifier:!0\}},\{{text:\2\.content\.slice\(0,({ID})\)\}}\]\}}\}}",
        src,
        "memory search document (id, content cut)",
    )
    after = src[doc.end() :]
    search = find_one(
        rf"\{{topK:({ID}),minScore:0,marginRatio:0,minDocs:1\}}\)\)({ID})\.includes\(",
        after,
        "built-in recall options",
    )
    snippet = find_one(
        rf"\.replace\(/\\s\+/g,\" \"\)\.trim\(\)\.slice\(0,({ID})\)",
        after,
        "memory hint snippet",
    )
    find_one(
        rf"`### Memory\n\nID: \\`\$\{{({ID})\}}\\`\n\n\$\{{({ID})\}}`\)\.join\(`\n\n`\)",
        src,
        "Memories block",
    )
    return {
        "contentChars": var_number(src, doc.group(3)),
        "searchTopK": var_number(src, search.group(1)),
        "hintSnippetChars": var_number(src, snippet.group(1)),
        "block": "### Memory\n\nID: `{id}`\n\n{content}",
        "blockSeparator": "\n\n",
    }


def extract_hints(src: str) -> dict[str, Any]:
    match = find_one(
        r"`Skills:\n\$\{" + ID + r"\.skills\.map\(" + ID + r"=>`- \\`\$\{" + ID
        + r"\.id\}\\`(.*?)\$\{" + ID + r"\.name\}`\)\.join\(`\n`\)\}`\)",
        src,
        "relevance hints skills section",
    )
    separator = _unescape(match.group(1))
    find_one(r"`Memories:\n\$\{", src, "relevance hints memories section")
    find_one(r"`Modules:\n\$\{", src, "relevance hints modules section")
    return {
        "moduleLine": "- `{namespace}`",
        "skillLine": "- `{id}`" + separator + "{name}",
        "memoryLine": "- `{id}`",
        "memorySnippet": separator + "{snippet}",
        "sectionOrder": ["Modules", "Skills", "Memories"],
        "sectionSeparator": "\n",
    }


def _unescape(js_fragment: str) -> str:
    return parse_js_string("`" + js_fragment + "`", 0)[0]


def template_literal(src: str, template_id: str) -> str:
    key = f'"{template_id}":'
    at = src.find(key)
    if at < 0:
        raise ExtractionError(f"prompt template {template_id} not found in the bundle")
    value, _ = parse_js_string(src, at + len(key))
    return value


def if_block(template: str, condition: str) -> str:
    """The `{{ if condition }}...{{ /if }}` block (tags included), nesting respected."""
    opening = "{{ if " + condition + " }}"
    start = template.find(opening)
    if start < 0:
        raise ExtractionError(f"template block {opening!r} not found")
    depth = 0
    for tag in re.finditer(r"\{\{\s*(if [^}]+?|/if)\s*\}\}", template[start:]):
        depth += 1 if tag.group(1).startswith("if ") else -1
        if depth == 0:
            return template[start : start + tag.end()]
    raise ExtractionError(f"template block {opening!r} is not closed")


def extract_templates(src: str) -> dict[str, dict[str, str]]:
    return template_sections(
        {stage: template_literal(src, f"rlm/{stage}.md") for stage in ("executor", "distiller")}
    )


def template_sections(stage_templates: dict[str, str]) -> dict[str, dict[str, str]]:
    """The skills, memories (and the executor's relevance) blocks of each stage template."""
    out: dict[str, dict[str, str]] = {}
    for stage, text in stage_templates.items():
        sections = {
            "skills": if_block(text, "hasSkills"),
            "memories": if_block(text, "memoriesMode"),
        }
        if stage == "executor":
            sections["relevance"] = if_block(text, "hasRelevanceHints")
        out[stage] = sections
    return out


def extract_runtime(src: str) -> dict[str, Any]:
    aliases_at = find_one(
        r'new Set\(\["javascript",', src, "JavaScript runtime language aliases"
    )
    aliases, _ = parse_js_string_array(src, aliases_at.start() + len("new Set("))
    find_one(r'return"javascriptCode"', src, "JavaScript runtime code field")
    find_one(r'`\$\{' + ID + r'\}Code`:"runtimeCode"', src, "runtime code field suffix")
    return {
        "defaultLanguage": "JavaScript",
        "javascriptAliases": aliases,
        "javascriptCodeField": "javascriptCode",
        "codeFieldSuffix": "Code",
        "fallbackCodeField": "runtimeCode",
    }


# Field lists per stage, in signature order. They are assembled in code (coordinator.ts,
# signatureBuilders.ts), so they are written out here and checked against the bundle's
# reserved stage-field set; `when` names the mode that adds the field.
STAGE_FIELDS: dict[str, list[dict[str, Any]]] = {
    "executor": [
        {"agentInputs": True},
        {"name": "executorRequest"},
        {"name": "distilledContextSummary"},
        {"name": "contextMetadata"},
        {"name": "memories", "when": "memoriesMode"},
        {"name": "loadedSkills"},
        {"name": "summarizedActorLog"},
        {"name": "guidanceLog"},
        {"name": "actionLog"},
        {"name": "relevanceHints", "when": "relevanceHints"},
        {"name": "liveRuntimeState"},
        {"name": "contextPressure"},
    ],
    "distiller": [
        {"agentInputs": True},
        {"name": "memories", "when": "memoriesMode"},
        {"name": "contextMetadata"},
        {"name": "loadedSkills"},
        {"name": "summarizedActorLog"},
        {"name": "guidanceLog"},
        {"name": "actionLog"},
        {"name": "liveRuntimeState"},
        {"name": "contextPressure"},
    ],
}


def extract_policy(src: str) -> dict[str, Any]:
    """The `[POLICY] ...` errors of `discover({ skills })` and `recall(...)`, and the
    required-input error an empty task raises, worded exactly as the bundle throws them."""
    call = find_one(
        rf"\(({ID})\.skills,\"(skills)\",\"(discover)\"\)", src, "discover skills normalizer call"
    )
    field, primitive = call.group(2), call.group(3)
    discover: dict[str, str] = {}
    for key, suffix in (
        ("notStringOrArray", "must be a string or string[]."),
        ("emptyArray", "requires at least one entry."),
        ("notString", "entries must be strings."),
        ("blankEntry", "entries must be non-empty strings."),
    ):
        find_one(
            rf"new Error\(`\[POLICY\] \$\{{{ID}\}}\(\.\.\.\) \$\{{{ID}\}} "
            + re.escape(suffix) + "`",
            src,
            f"discover policy error '{suffix}'",
        )
        discover[key] = f"[POLICY] {primitive}(...) {field} {suffix}"
    recall: dict[str, str] = {}
    expects = "[POLICY] recall(...) expects a string or string[] of search queries."
    for key, text in (
        ("notStringOrArray", expects),
        ("emptyArray", "[POLICY] recall(...) requires at least one search query."),
        ("notString", expects),
        ("blankEntry", "[POLICY] recall(...) entries must be non-empty strings."),
    ):
        find_one(re.escape(f'new Error("{text}")'), src, f"recall policy error '{text}'")
        recall[key] = text
    find_one(
        rf"`Value for \$\{{{ID}\}} field '\$\{{{ID}\.name\}}' is required\.`",
        src,
        "required input field error",
    )
    return {
        "discover": discover,
        "recall": recall,
        "requiredInput": "Value for input field '{field}' is required.",
    }


def extract_signature_rules(src: str) -> dict[str, Any]:
    """What `agent(signature, ...)` refuses in a signature, worded as the bundle throws it:
    the parser's field-name checks (in the order it makes them; it stops at the first
    failure) and AxAgent's own (a signature-level description, reserved field names)."""
    check = find_one(
        r"validateFieldName\(e,t\)\{if\(" + ID + r"\.signatureStrict&&(\[)", src,
        "the parser's field-name check",
    )
    generic, end = parse_js_string_array(src, check.start(1))
    tail = src[end : end + 1600]
    inputs_at = find_one(r'let s=t==="input"\?(\[)', tail, "generic-name examples")
    input_examples, after = parse_js_string_array(tail, inputs_at.start(1))
    output_examples, _ = parse_js_string_array(tail, after + 1)
    for what, pattern in (
        ("too generic", r"is too generic`"),
        ("camelCase", re.escape(r"let n=/^[a-z][a-zA-Z0-9]*$/,o=/^[a-z]+(_[a-z0-9]+)*$/")),
        ("too short", r"e\.length<2\)throw new " + ID + r'\(`Field name "\$\{e\}" is too short`'),
        ("too long", r"e\.length>50\)throw new " + ID + r'\(`Field name "\$\{e\}" is too long'),
    ):
        find_one(pattern, tail, f"field name check: {what}")
    reserved_at = find_one(
        r'(new Set\(\["contextMetadata","contextMap",)', src, "AxAgent's reserved inputs"
    )
    reserved, _ = parse_js_string_array(src, reserved_at.start(1) + len("new Set("))
    find_one(r'new Set\(\["javascriptCode",', src, "AxAgent's reserved outputs")
    find_one(r"AxAgent does not support signature-level descriptions; use", src, "descriptions")
    find_one(
        r"Field name '\$\{r\.name\}' is too long \(\$\{r\.name\.length\} characters\)",
        src,
        "the flow's field-name length check",
    )
    return {
        "genericNames": generic,
        "genericExamples": {"input": input_examples, "output": output_examples},
        "namePatterns": ["^[a-z][a-zA-Z0-9]*$", "^[a-z]+(_[a-z0-9]+)*$"],
        "minLength": 2,
        "maxLength": 50,
        "reservedInputs": reserved,
        "reservedOutputs": ["javascriptCode"],
        # AxAgent runs as an AxFlow whose nodes see each agent field as `<node><Name>`
        # (snake_case turned camelCase), checked against the same 50-character limit:
        # inputs as the distiller's, outputs as the executor's, then the responder's.
        "flowPrefixes": {"input": ["distiller"], "output": ["executor", "responder"]},
        "messages": {
            "prefix": "Invalid Signature: ",
            "generic": 'Field name "{name}" is too generic',
            "genericHint": "Use a more descriptive name. Examples: {examples}",
            "invalid": 'Invalid field name "{name}"',
            "invalidHint": 'Field names must be in camelCase (e.g., "userInput") or '
            'snake_case (e.g., "user_input")',
            "short": 'Field name "{name}" is too short',
            "shortHint": "Field names must be at least 2 characters long",
            "long": 'Field name "{name}" is too long ({length} characters)',
            "longHint": "Field names should be 50 characters or less",
            "reservedInput": 'AxAgent reserves input field name "{name}" for internal '
            "actor/responder wiring",
            "reservedOutput": 'AxAgent reserves output field name "{name}" for internal '
            "actor wiring",
            "description": "AxAgent does not support signature-level descriptions; use "
            "contextOptions.description, executorOptions.description, or "
            "responderOptions.description instead",
            "flowLong": "Field name '{name}' is too long ({length} characters)",
            "flowLongHint": "AxAgent names each field after its stage too "
            "(distiller, executor, responder): keep names {limit} characters or less",
        },
    }


#: The Node runtime the golden data and the differential runs use: its ICU decides
#: `localeCompare`, `toLowerCase` and `normalize` (see axmem_gui/core/ax/icutext.py).
REFERENCE_TEXT = {
    "collationLocale": "en-US",
    "referenceRuntime": "Node 20.20.2",
    "referenceIcu": "78.2",
    "referenceUnicode": "17.0",
}


def check_stage_fields(src: str) -> None:
    reserved_at = find_one(r'new Set\(\["executorRequest",', src, "reserved stage field names")
    reserved, _ = parse_js_string_array(src, reserved_at.start() + len("new Set("))
    for stage, fields in STAGE_FIELDS.items():
        for field in fields:
            name = field.get("name")
            if name is not None and name not in reserved:
                raise ExtractionError(f"{stage} field {name!r} is not a reserved stage field")
    find_one(
        r'toTitle=(' + ID + r')=>\{let (' + ID + r')=\1\.replace\(/_/g," "\);return \2=\2'
        r'\.replace\(/\(\[A-Z\]\|\[0-9\]\+\)/g," \$1"\)\.trim\(\),\2\.charAt\(0\)'
        r'\.toUpperCase\(\)\+\2\.slice\(1\)',
        src,
        "field title function (toTitle)",
    )
    find_one(r'\.replace\(/\\n\{3,\}/g,`\n\n`\)\.trim\(\)', src, "3+ newline collapse")


# --------------------------------------------------------------------------- driver


def npm_pack(version: str, dest: Path) -> tuple[Path, dict[str, Any]]:
    proc = subprocess.run(
        ["npm", "pack", f"{PACKAGE}@{version}", "--json", "--pack-destination", str(dest)],
        check=True,
        capture_output=True,
        text=True,
    )
    info = json.loads(proc.stdout)[0]
    return dest / info["filename"], info


def read_bundle(tarball: Path) -> tuple[str, dict[str, Any]]:
    with tarfile.open(tarball, "r:gz") as tar:
        bundle = tar.extractfile("package/index.js")
        manifest = tar.extractfile("package/package.json")
        if bundle is None or manifest is None:
            raise ExtractionError(f"{tarball}: package/index.js or package.json missing")
        return bundle.read().decode("utf-8"), json.loads(manifest.read())


def build(version: str, tarball: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ax-profile-") as tmp:
        if tarball is None:
            tarball, info = npm_pack(version, Path(tmp))
            integrity = info.get("integrity")
        else:
            integrity = None
        digest = hashlib.sha512(tarball.read_bytes()).hexdigest()
        src, manifest = read_bundle(tarball)
    if manifest.get("version") != version:
        raise ExtractionError(f"tarball is version {manifest.get('version')}, not {version}")
    check_stage_fields(src)
    ranker = extract_ranker(src)
    stopwords = ranker.pop("stopwords")
    return {
        "profile": f"ax-{version}",
        "package": f"{PACKAGE}@{version}",
        "source": {
            "bundle": "package/index.js",
            "tarballSha512": digest,
            **({"npmIntegrity": integrity} if integrity else {}),
            "license": "Apache-2.0 (ax-llm/ax); see NOTICE",
            "generatedBy": "tools/ax_profile/build_profile.py",
        },
        "ranker": ranker,
        "skills": extract_skills(src),
        "memories": extract_memories(src),
        "hints": extract_hints(src),
        "templates": extract_templates(src),
        "stageFields": STAGE_FIELDS,
        "runtime": extract_runtime(src),
        "policy": extract_policy(src),
        "signature": extract_signature_rules(src),
        "text": REFERENCE_TEXT,
        "stopwords": stopwords,
    }


def cross_check_golden(profile: dict[str, Any], golden: Path) -> None:
    expected = json.loads(golden.read_text(encoding="utf-8"))
    want = expected.get("stopwords")
    if want is None:
        return
    got = profile["stopwords"]
    if sorted(set(got)) != sorted(set(want)) or len(got) != len(want):
        raise ExtractionError(
            f"stopwords differ from {golden}: {len(got)} extracted vs {len(want)} expected"
        )
    print(f"stopwords match {golden} ({len(got)} words)", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", default="24.0.21")
    parser.add_argument("--tarball", type=Path, help="use this npm tarball instead of npm pack")
    parser.add_argument("--out", type=Path, help="output path (default: the package profile)")
    parser.add_argument(
        "--golden",
        type=Path,
        help="expected.json to cross-check stopwords against "
        "(default: tests/golden/ax-<version>/expected.json when present)",
    )
    args = parser.parse_args(argv)
    try:
        profile = build(args.version, args.tarball)
        golden = args.golden or (
            REPO_ROOT / "tests" / "golden" / f"ax-{args.version}" / "expected.json"
        )
        if golden.is_file():
            cross_check_golden(profile, golden)
    except (ExtractionError, subprocess.CalledProcessError) as exc:
        print(f"build_profile: error: {exc}", file=sys.stderr)
        return 1
    out = args.out or PROFILES_DIR / f"ax-{args.version}.json"
    out.write_text(json.dumps(profile, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
