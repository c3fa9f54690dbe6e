// Session files in and out. Writing: a temporary file in the same folder, fsync, rename, so
// a crash never leaves half a session; a failure is returned, never thrown (the recorder
// turns it into a warning: recording must not break the agent). Reading: a regular file of
// bounded size, parsed and checked before anything uses it.
import fs from 'node:fs';
import path from 'node:path';

/** The largest session file the replayer reads (the studio's reader has the same order). */
export const MAX_READ_BYTES = 256 * 1024 * 1024;

export function writeFileAtomic(file, text) {
  const dir = path.dirname(path.resolve(file));
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  let fd;
  try {
    fs.mkdirSync(dir, { recursive: true });
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
  let doc;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SessionFileError(`${file}: not JSON (${error.message})`);
  }
  return checkSession(doc, file);
}

function fail(source, where, message) {
  throw new SessionFileError(`${source}: ${where ? `${where}: ` : ''}${message}`);
}

/** The structure the replayer relies on, checked before use. */
export function checkSession(doc, source = 'session') {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) fail(source, '', 'expected a JSON object');
  if (doc.format !== 'axsession') fail(source, '', `not an axsession file (field 'format' is ${JSON.stringify(doc.format)})`);
  if (!Number.isInteger(doc.version) || doc.version < 1) fail(source, '', "field 'version' must be a positive integer");
  if (doc.version > 1) fail(source, '', `written by a newer recorder (axsession version ${doc.version}); this one reads version 1`);
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
