"""A small reader for the literal parts of a TypeScript/JavaScript module.

It tokenizes the whole module (strings, template literals, comments, numbers,
identifiers, punctuation) and parses literal values: objects, arrays, strings, numbers,
`true`/`false`/`null`/`undefined`, with trailing commas and `as const` / `satisfies T`.
Anything else inside a value (a variable, a call, a spread, `${...}`) is an error naming
the line and column: a catalog module must be data, and we never run code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from axmem_gui.core.formats.values import KeyedDict

#: ASCII digits only: str.isdigit() also accepts "²", "٣" and other Unicode digits.
_DIGITS = "0123456789"
_DIGIT_SET = frozenset(_DIGITS)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v"}
#: The body of a '...' or "..." literal, up to (not including) its closing quote.
_STRING_BODY = {
    q: re.compile(rf"(?:[^{q}\\\n\r]+|\\\r\n|\\[\s\S])*") for q in ("'", '"')
}
_LINE_TERMINATORS = "\n\r\u2028\u2029"
_NUMBER = re.compile(
    r"(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+"
    r"|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?)n?"
)
_PUNCT3 = ("...", "===", "!==")
_PUNCT2 = ("=>", "==", "!=")
# Tokens that start a new statement: skipping a type stops there (a module may omit `;`).
_STATEMENT_WORDS = frozenset({"export", "const", "let", "var", "import", "function", "class"})
_OPENERS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_CLOSERS = frozenset(_OPENERS.values())


class TsSyntaxError(Exception):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


def line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


@dataclass(frozen=True)
class Token:
    kind: str  # ident | string | template | number | punct | eof
    text: str
    pos: int
    value: Any = None
    has_substitution: bool = False


def _combine_surrogates(chars: list[str], pos: int) -> str:
    text = "".join(chars)
    try:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        raise TsSyntaxError(
            "string has an unpaired UTF-16 surrogate escape (not a character)", pos
        ) from None


def _hex(raw: str, start: int, count: int, pos: int) -> int:
    digits = raw[start : start + count]
    if len(digits) != count or not all(c in "0123456789abcdefABCDEF" for c in digits):
        raise TsSyntaxError("malformed hexadecimal escape in string", pos)
    return int(digits, 16)


def decode_escapes(raw: str, pos: int) -> str:
    """Cooked value of a string literal body (JS rules, strict mode as in modules)."""
    if "\\" not in raw:
        return raw  # (text decoded from UTF-8 holds no lone surrogate to combine)
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        # The run up to the next backslash in one piece: a 10 MB skill is not a loop of
        # ten million steps.
        k = raw.find("\\", i)
        if k < 0:
            out.append(raw[i:])
            break
        if k > i:
            out.append(raw[i:k])
        i = k + 1
        e = raw[i] if i < n else ""
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
            i += 1
        elif e == "0" and not (i + 1 < n and raw[i + 1] in _DIGITS):
            out.append("\0")
            i += 1
        elif e and e in _DIGITS:
            raise TsSyntaxError("octal escapes are not allowed in a module", pos)
        elif e == "x":
            out.append(chr(_hex(raw, i + 1, 2, pos)))
            i += 3
        elif e == "u" and raw[i + 1 : i + 2] == "{":
            end = raw.find("}", i + 2)
            digits = raw[i + 2 : end] if end > 0 else ""
            if not digits or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise TsSyntaxError("malformed \\u{...} escape in string", pos)
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise TsSyntaxError("\\u{...} escape beyond U+10FFFF", pos)
            out.append(chr(code))
            i = end + 1
        elif e == "u":
            out.append(chr(_hex(raw, i + 1, 4, pos)))
            i += 5
        elif e == "\r":
            i += 2 if raw[i + 1 : i + 2] == "\n" else 1  # line continuation
        elif e in "\n\u2028\u2029":
            i += 1
        elif e == "":
            raise TsSyntaxError("string ends with a lone backslash", pos)
        else:
            out.append(e)  # identity escape: \' \" \\ \/ and any other character
            i += 1
    return _combine_surrogates(out, pos)


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.tokens: list[Token] = []

    def run(self) -> list[Token]:
        text = self.text
        if text.startswith("#!"):
            self.i = text.find("\n") if "\n" in text else len(text)
        while True:
            self._skip_space_and_comments()
            if self.i >= len(text):
                self.tokens.append(Token("eof", "", self.i))
                return self.tokens
            self.tokens.append(self._token())

    def _skip_space_and_comments(self) -> None:
        text, n = self.text, len(self.text)
        while self.i < n:
            ch = text[self.i]
            if ch.isspace() or ch == "\ufeff":
                self.i += 1
            elif text.startswith("//", self.i):
                ends = [p for p in (text.find(t, self.i) for t in _LINE_TERMINATORS) if p >= 0]
                self.i = min(ends) if ends else n
            elif text.startswith("/*", self.i):
                end = text.find("*/", self.i + 2)
                if end < 0:
                    raise TsSyntaxError("unterminated /* comment", self.i)
                self.i = end + 2
            else:
                return

    def _token(self) -> Token:
        text, start = self.text, self.i
        ch = text[start]
        if ch in "'\"":
            return self._string(ch)
        if ch == "`":
            return self._template()
        if ch in _DIGITS or (ch == "." and text[start + 1 : start + 2] in _DIGIT_SET):
            m = _NUMBER.match(text, start)
            assert m is not None
            self.i = m.end()
            return Token("number", m.group(), start, _number_value(m.group()))
        if ch.isalpha() or ch in "_$" or (ord(ch) > 127 and ch.isidentifier()):
            j = start + 1
            while j < len(text) and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            self.i = j
            return Token("ident", text[start:j], start)
        for group in (_PUNCT3, _PUNCT2):
            for p in group:
                if text.startswith(p, start):
                    self.i = start + len(p)
                    return Token("punct", p, start)
        self.i = start + 1
        return Token("punct", ch, start)

    def _string(self, quote: str) -> Token:
        text, start = self.text, self.i
        # One regex over the body: an escape takes the next character (CRLF as one), a
        # bare line break ends the search (unterminated).
        found = _STRING_BODY[quote].match(text, start + 1)
        j = found.end() if found else start + 1
        if j < len(text) and text[j] == quote:
            self.i = j + 1
            value = decode_escapes(text[start + 1 : j], start)
            return Token("string", text[start : j + 1], start, value)
        raise TsSyntaxError("unterminated string literal", start)

    def _template(self) -> Token:
        text, start = self.text, self.i
        j = start + 1
        substitution = False
        while j < len(text):
            ch = text[j]
            if ch == "\\":
                j += 2
                continue
            if ch == "`":
                self.i = j + 1
                body = text[start + 1 : j]
                value = None
                if not substitution:
                    # Template literals read CRLF and CR as LF (ECMAScript TRV rules).
                    value = decode_escapes(body.replace("\r\n", "\n").replace("\r", "\n"), start)
                return Token("template", text[start : j + 1], start, value, substitution)
            if text.startswith("${", j):
                substitution = True
                j = self._skip_braces(j + 1)
                continue
            j += 1
        raise TsSyntaxError("unterminated template literal", start)

    def _skip_braces(self, j: int) -> int:
        depth = 0
        while j < len(self.text):
            ch = self.text[j]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        raise TsSyntaxError("unterminated ${...} in template literal", j)


def _number_value(text: str) -> int | float:
    clean = text.replace("_", "").removesuffix("n")
    try:
        if clean[:2].lower() in ("0x", "0o", "0b"):
            return int(clean, 0)
        as_float = float(clean)
    except ValueError:
        return 0
    is_int_literal = as_float.is_integer() and not any(c in clean for c in ".eE")
    return int(as_float) if is_int_literal else as_float


def tokenize(text: str) -> list[Token]:
    return _Lexer(text).run()


class ValueParser:
    """Literal values from a token list, starting at a given index."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens

    def _describe(self, t: Token) -> str:
        if t.kind == "eof":
            return "the end of the file"
        if t.kind == "ident":
            return f"identifier '{t.text}'"
        if t.kind == "template":
            return "a template literal with ${...}"
        return f"'{t.text}'"

    def expect(self, i: int, text: str) -> int:
        t = self.tokens[i]
        if t.kind != "punct" or t.text != text:
            raise TsSyntaxError(f"expected '{text}', found {self._describe(t)}", t.pos)
        return i + 1

    def value(self, i: int) -> tuple[Any, int]:
        """Parse one value starting at token i; returns (value, index after it)."""
        val, i = self._primary(i)
        while self.tokens[i].kind == "ident" and self.tokens[i].text in ("as", "satisfies"):
            i = skip_type(self.tokens, i + 1)
        return val, i

    def _primary(self, i: int) -> tuple[Any, int]:
        t = self.tokens[i]
        if t.kind == "string" or (t.kind == "template" and not t.has_substitution):
            return t.value, i + 1
        if t.kind == "number":
            return t.value, i + 1
        if t.kind == "punct":
            if t.text == "[":
                return self._array(i + 1)
            if t.text == "{":
                return self._object(i + 1)
            if t.text == "(":
                val, j = self.value(i + 1)
                return val, self.expect(j, ")")
            if t.text in ("-", "+") and self.tokens[i + 1].kind == "number":
                num = self.tokens[i + 1].value
                return (-num if t.text == "-" else num), i + 2
        if t.kind == "ident":
            literal = {"true": True, "false": False, "null": None, "undefined": None}
            if t.text in literal:
                return literal[t.text], i + 1
        raise TsSyntaxError(
            f"expected a literal value (string, number, object or array), found "
            f"{self._describe(t)}; a catalog module must contain data only",
            t.pos,
        )

    def _array(self, i: int) -> tuple[list[Any], int]:
        items: list[Any] = []
        while True:
            t = self.tokens[i]
            if t.kind == "punct" and t.text == "]":
                return items, i + 1
            if t.kind == "punct" and t.text == "...":
                raise TsSyntaxError("spread ('...') is not supported in a catalog module", t.pos)
            if t.kind == "punct" and t.text == ",":
                raise TsSyntaxError("empty array slot (two commas in a row)", t.pos)
            val, i = self.value(i)
            items.append(val)
            t = self.tokens[i]
            if t.kind == "punct" and t.text == ",":
                i += 1
            elif not (t.kind == "punct" and t.text == "]"):
                raise TsSyntaxError(f"expected ',' or ']', found {self._describe(t)}", t.pos)

    def _key(self, i: int) -> tuple[str, int]:
        t = self.tokens[i]
        if t.kind in ("ident", "string"):
            return (t.text if t.kind == "ident" else t.value), i + 1
        if t.kind == "number":
            return str(t.value), i + 1
        if t.kind == "template" and not t.has_substitution:
            raise TsSyntaxError("template literals cannot be object keys", t.pos)
        if t.kind == "punct" and t.text == "...":
            raise TsSyntaxError("spread ('...') is not supported in a catalog module", t.pos)
        if t.kind == "punct" and t.text == "[":
            raise TsSyntaxError("computed keys are not supported in a catalog module", t.pos)
        raise TsSyntaxError(f"expected a property name, found {self._describe(t)}", t.pos)

    def _object(self, i: int) -> tuple[dict[str, Any], int]:
        out = KeyedDict()
        dups: list[str] = []
        while True:
            t = self.tokens[i]
            if t.kind == "punct" and t.text == "}":
                if dups:
                    out.duplicates = tuple(dups)
                return out, i + 1
            key, i = self._key(i)
            t = self.tokens[i]
            if t.kind == "punct" and t.text in (",", "}"):
                raise TsSyntaxError(
                    f"shorthand property '{key}' refers to a variable; write {key}: <value>",
                    t.pos,
                )
            i = self.expect(i, ":")
            val, i = self.value(i)
            if key in out and key not in dups:
                dups.append(key)
            out[key] = val
            t = self.tokens[i]
            if t.kind == "punct" and t.text == ",":
                i += 1
            elif not (t.kind == "punct" and t.text == "}"):
                raise TsSyntaxError(f"expected ',' or '}}', found {self._describe(t)}", t.pos)


def skip_type(tokens: list[Token], i: int, stop: frozenset[str] = frozenset()) -> int:
    """Skip a type expression; stops at a depth-0 `,` `;` `)` `]` `}`, a statement keyword
    or any token text in `stop` (e.g. `=` after a declaration's type annotation)."""
    depth = 0
    while True:
        t = tokens[i]
        if t.kind == "eof":
            return i
        if depth == 0:
            if t.kind == "punct" and (t.text in (",", ";") or t.text in _CLOSERS - {">"}):
                return i
            if t.text in stop and t.kind == "punct":
                return i
            if t.kind == "ident" and t.text in _STATEMENT_WORDS:
                return i
        if t.kind == "punct" and t.text in _OPENERS:
            depth += 1
        elif t.kind == "punct" and t.text in _CLOSERS:
            depth = max(0, depth - 1)
        i += 1
