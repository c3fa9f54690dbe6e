// Plain JSON data from whatever the agent hands over, and the canonical JSON text the
// session digests are computed on: byte for byte what the studio's Python side computes
// (`axmem_gui.core.session.digest`: sorted keys, no spaces, UTF-8, non-ASCII kept,
// lone surrogates escaped as JSON.stringify does), so a digest written here verifies there.
import { createHash } from 'node:crypto';

/**
 * A deep copy of `value` as plain JSON data. Functions and odd objects become short
 * strings (`<function lookupOwner>`, `<AxAgentContextMap>`), cycles `<cycle>`, undefined
 * object members are dropped (as JSON.stringify does), bigints become strings.
 */
export function jsonable(value) {
  const seen = new Set();
  const walk = (v) => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? v : null;
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'undefined') return undefined;
    if (typeof v === 'function') return `<function ${v.name || 'anonymous'}>`;
    if (typeof v === 'symbol') return `<${String(v)}>`;
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
    if (v instanceof Error) return { name: v.name, message: v.message };
    if (typeof v.toJSON === 'function' && !Array.isArray(v)) {
      try {
        return walk(v.toJSON());
      } catch {
        return `<${v.constructor?.name ?? 'object'}>`;
      }
    }
    if (seen.has(v)) return '<cycle>';
    seen.add(v);
    try {
      if (Array.isArray(v)) return v.map((item) => walk(item) ?? null);
      if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) return `<${v.constructor.name}>`;
      if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), walk(x)]));
      if (v instanceof Set) return [...v].map((item) => walk(item) ?? null);
      const proto = Object.getPrototypeOf(v);
      if (proto !== null && proto !== Object.prototype) return `<${v.constructor?.name ?? 'object'}>`;
      const out = {};
      for (const [k, x] of Object.entries(v)) {
        const copied = walk(x);
        if (copied !== undefined) out[k] = copied;
      }
      return out;
    } finally {
      seen.delete(v);
    }
  };
  return walk(value);
}

/** Python's `repr(float)` for a finite non-integer JavaScript number. */
function pythonFloat(x) {
  const abs = Math.abs(x);
  if (abs >= 1e-4 && abs < 1e16) return String(x);
  // Python writes these in scientific notation with a two-digit exponent at least.
  const [mantissa, exponent] = x.toExponential().split('e');
  const sign = exponent.startsWith('-') ? '-' : '+';
  const digits = exponent.replace(/^[+-]/, '').padStart(2, '0');
  return `${mantissa}e${sign}${digits}`;
}

function numberText(x) {
  if (!Number.isFinite(x)) return 'null';
  if (Number.isInteger(x)) {
    // JSON.stringify writes integers below 1e21 as digits (Python reads them as ints and
    // writes them back the same); from 1e21 on it writes 1e+21, which Python reads as a float.
    return Math.abs(x) < 1e21 ? JSON.stringify(x) : pythonFloat(x);
  }
  return pythonFloat(x);
}

function byCodePoint(a, b) {
  // Python sorts keys by code point; JavaScript's default sort by UTF-16 code unit
  // disagrees for characters above U+FFFF against U+E000..U+FFFF.
  const ia = [...a];
  const ib = [...b];
  for (let i = 0; i < Math.min(ia.length, ib.length); i += 1) {
    const d = ia[i].codePointAt(0) - ib[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return ia.length - ib.length;
}

/** Canonical JSON text of plain JSON data (see the module comment). */
export function canonicalJson(value) {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return numberText(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort(byCodePoint);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
}

/** The request parts that decide what the model sees (the studio's DIGEST_KEYS). */
export const DIGEST_KEYS = ['chat_prompt', 'functions', 'response_format'];

/** `sha256:` + hex of the canonical JSON of the digest parts of a neutral request. */
export function requestDigest(neutralRequest) {
  const basis = {};
  for (const key of DIGEST_KEYS) basis[key] = neutralRequest?.[key] ?? null;
  return `sha256:${createHash('sha256').update(canonicalJson(basis), 'utf8').digest('hex')}`;
}

/** Pretty JSON with sorted keys, the text the diffs of mismatches are made of. */
export function prettyJson(value) {
  const sortDeep = (v) => {
    if (Array.isArray(v)) return v.map(sortDeep);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.keys(v).sort(byCodePoint).map((k) => [k, sortDeep(v[k])]));
    }
    return v;
  };
  return `${JSON.stringify(sortDeep(value), null, 2)}\n`;
}

/** Deep equality of plain JSON data. */
export function sameJson(a, b) {
  return canonicalJson(a) === canonicalJson(b);
}
