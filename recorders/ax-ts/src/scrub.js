// Keep API keys out of session files: the studio's rules (axmem_gui/core/session/redact.py)
// in JavaScript. Credential headers and URL parameters are redacted, and every occurrence
// of a known secret string is replaced anywhere in the document before it is written.

export const REDACTED = '[redacted]';
const SECRET_HEADER = /(authorization|api[-_]?key|token|secret|cookie|password|credential)/i;
const SECRET_PARAM = /^(key|api[-_]?key|token|access[-_]?token|secret)$/i;
/** Secrets at least this long are replaced wherever they occur; shorter ones only where
 * they stand as a whole token in an error message, so ordinary words survive. */
export const MIN_SECRET_LENGTH = 8;
const MESSAGE_KEYS = new Set(['error', 'errors', 'message', 'warnings', 'detail', 'details']);
/** Environment variables whose values are treated as secrets by default. */
const SECRET_ENV = /(api[-_]?key|apikey|token|secret|password|credential)/i;

export function redactHeaders(headers) {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k, SECRET_HEADER.test(k) ? REDACTED : String(v)]));
}

export function redactUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!parsed.search && !parsed.username && !parsed.password) return url;
  parsed.username = '';
  parsed.password = '';
  // Written as the studio writes it (`key=[redacted]`, brackets kept).
  const query = [...parsed.searchParams]
    .map(([k, v]) => `${encodeURIComponent(k)}=${SECRET_PARAM.test(k) ? REDACTED : encodeURIComponent(v)}`)
    .join('&');
  parsed.search = '';
  const base = parsed.toString();
  return query ? `${base}?${query}` : base;
}

const CREDENTIAL_TOKEN = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi;

/** Text with `Bearer <token>`-style credentials replaced (servers quote them back). */
export function scrubCredentials(text) {
  return text.replace(CREDENTIAL_TOKEN, `$1 ${REDACTED}`);
}

/** Values of environment variables named like credentials (8 characters or more). */
export function environmentSecrets(env = process.env) {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_ENV.test(name) && typeof value === 'string' && value.length >= MIN_SECRET_LENGTH)
    .map(([, value]) => value);
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A copy of JSON data with every occurrence of each secret replaced (see above). */
export function scrubSecrets(value, secrets) {
  const wanted = [...new Set([...secrets].filter((s) => typeof s === 'string' && s))].sort((a, b) => b.length - a.length);
  if (!wanted.length) return value;
  const long = wanted.filter((s) => s.length >= MIN_SECRET_LENGTH).map((s) => new RegExp(escapeRegExp(s), 'g'));
  const short = wanted
    .filter((s) => s.length < MIN_SECRET_LENGTH)
    .map((s) => new RegExp(`(?<![A-Za-z0-9_\\-])${escapeRegExp(s)}(?![A-Za-z0-9_\\-])`, 'g'));
  const walk = (v, inMessage) => {
    if (typeof v === 'string') {
      let text = v;
      for (const pattern of inMessage ? [...long, ...short] : long) text = text.replace(pattern, REDACTED);
      return text;
    }
    if (Array.isArray(v)) return v.map((item) => walk(item, inMessage));
    if (v && typeof v === 'object') {
      const out = {};
      for (const [k, item] of Object.entries(v)) out[walk(k, false)] = walk(item, inMessage || MESSAGE_KEYS.has(k.toLowerCase()));
      return out;
    }
    return v;
  };
  return walk(value, typeof value === 'string');
}
