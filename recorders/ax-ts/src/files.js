// Session files in and out. Writing: a temporary file in the same folder, fsync, rename, so
// a crash never leaves half a session; a failure is returned, never thrown (the recorder
// turns it into a warning: recording must not break the agent). Reading: a regular file of
// bounded size, parsed and checked before anything uses it.
import fs from 'node:fs';
import path from 'node:path';

/** The largest session file the replayer reads (the studio's reader has the same order). */
export const MAX_READ_BYTES = 256 * 1024 * 1024;
/** The deepest nesting of arrays and objects a session file may have (the studio's limit). */
export const MAX_DEPTH = 200;
/** How many folders up writeFileAtomic looks for one that exists before giving up. */
const MAX_PARENTS = 64;

/** Make `dir` and its missing parents; an error instead of Node's recursive mkdir, which
 * never returns under /proc or similar trees. */
function makeFolders(dir) {
  const missing = [];
  let at = dir;
  for (;;) {
    let stat;
    try {
      stat = fs.statSync(at);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    if (stat) {
      if (!stat.isDirectory()) throw new Error(`${at} is not a folder`);
      break;
    }
    const parent = path.dirname(at);
    if (parent === at || missing.length >= MAX_PARENTS) throw new Error(`no existing folder above ${dir}`);
    missing.push(at);
    at = parent;
  }
  for (const folder of missing.reverse()) fs.mkdirSync(folder);
}

export function writeFileAtomic(file, text) {
  const dir = path.dirname(path.resolve(file));
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  let fd;
  try {
    makeFolders(dir);
    fd = fs.openSync(temp, 'w', 0o666);
    fs.writeSync(fd, text, null, 'utf8');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, file);
    return null;
  } catch (error) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        // already reported through the write error
      }
    }
    try {
      fs.unlinkSync(temp);
    } catch {
      // the temporary file was never made
    }
    return error instanceof Error ? error : new Error(String(error));
  }
}

export class SessionFileError extends Error {
  constructor(message) {
    super(message);
    this.name = 'SessionFileError';
  }
}

/** Read and check a `.axsession.json` file; throws SessionFileError naming the problem. */
export function readSessionFile(file, maxBytes = MAX_READ_BYTES) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new SessionFileError(`${file}: cannot read it (${error.code ?? error.message})`);
  }
  if (!stat.isFile()) throw new SessionFileError(`${file}: not a regular file`);
  if (stat.size > maxBytes) {
    throw new SessionFileError(`${file}: ${stat.size} bytes is more than the ${maxBytes} a session file may have`);
  }
  const bytes = fs.readFileSync(file);
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new SessionFileError(`${file}: not valid UTF-8 (byte offset ${firstInvalidUtf8(bytes)})`);
  }
  if (text.startsWith('\uFEFF')) throw new SessionFileError(`${file}: starts with a byte order mark (not JSON)`);
  const depth = nestingOverLimit(text, MAX_DEPTH);
  if (depth !== null) {
    throw new SessionFileError(`${file}: nested more than ${MAX_DEPTH} levels deep (at character ${depth})`);
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new SessionFileError(`${file}: not JSON (${error.message})`);
  }
  return checkSession(doc, file);
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence. */
export function firstInvalidUtf8(bytes) {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const size = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (size === 0) return i;
    try {
      decoder.decode(bytes.subarray(i, i + size));
    } catch {
      return i;
    }
    i += size;
  }
  return bytes.length;
}

/** The character where arrays and objects nest deeper than `limit`, or null: JSON.parse
 * would throw a RangeError (or exhaust the stack) long before a clear message. */
export function nestingOverLimit(text, limit) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return i;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return null;
}

function fail(source, where, message) {
  throw new SessionFileError(`${source}: ${where ? `${where}: ` : ''}${message}`);
}

/** The structure the replayer relies on, checked before use. */
export function checkSession(doc, source = 'session') {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) fail(source, '', 'expected a JSON object');
  if (doc.format !== 'axsession') fail(source, '', `not an axsession file (field 'format' is ${JSON.stringify(doc.format)})`);
  if (!Number.isInteger(doc.version) || doc.version < 1) fail(source, '', "field 'version' must be a positive integer");
  const versions = doc.versions && typeof doc.versions === 'object' ? doc.versions : {};
  if (typeof versions.ax !== 'string' && typeof versions.axllm === 'string') {
    fail(source, '', `recorded on axllm ${versions.axllm} (the studio or axmem_gui.recorder), not on @ax-llm/ax: AxSessionReplayer replays @ax-llm/ax recordings; replay this one with \`axmem replay\` or the axsession_replay pytest fixture`);
  }
  if (doc.version > 2) fail(source, '', `written by a newer recorder (axsession version ${doc.version}); this one reads versions 1 and 2`);
  if (doc.version === 2) fail(source, '', 'axsession version 2 from @ax-llm/ax is not written by this recorder yet (it writes version 1); this replayer reads version 1');
  if (!Array.isArray(doc.exchanges)) fail(source, '', "field 'exchanges' must be a list");
  if (!Array.isArray(doc.forwards)) fail(source, '', "field 'forwards' must be a list");
  doc.exchanges.forEach((ex, i) => {
    const where = `exchanges[${i}]`;
    if (!ex || typeof ex !== 'object') fail(source, where, 'must be an object');
    if (ex.index !== i) fail(source, where, `field 'index' is ${JSON.stringify(ex.index)}, expected ${i}`);
    if (typeof ex.digest !== 'string' || !ex.digest.startsWith('sha256:')) fail(source, where, "field 'digest' must be a 'sha256:' string");
    if (!ex.request || typeof ex.request !== 'object' || !Array.isArray(ex.request.chat_prompt)) {
      fail(source, where, "field 'request' must be an object with a 'chat_prompt' list");
    }
    if (ex.response == null && (ex.error == null || typeof ex.error !== 'object')) fail(source, where, "needs a 'response' or an 'error'");
    if (ex.response != null && (typeof ex.response !== 'object' || Array.isArray(ex.response) || !Array.isArray(ex.response.results))) {
      fail(source, where, "field 'response' must be an object with a 'results' list");
    }
    if (ex.error != null && (typeof ex.error !== 'object' || Array.isArray(ex.error))) fail(source, where, "field 'error' must be an object");
    if (ex.chunks != null && !Array.isArray(ex.chunks)) fail(source, where, "field 'chunks' must be a list");
  });
  doc.forwards.forEach((fw, i) => {
    const where = `forwards[${i}]`;
    if (!fw || typeof fw !== 'object') fail(source, where, 'must be an object');
    for (const key of ['function_calls', 'searches', 'callbacks']) {
      if (fw[key] != null && !Array.isArray(fw[key])) fail(source, where, `field '${key}' must be a list`);
    }
  });
  return doc;
}
