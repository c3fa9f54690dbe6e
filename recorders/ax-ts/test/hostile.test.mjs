// A session file is data from elsewhere: the replayer reads a regular file of bounded size,
// checks the structure it relies on and names the first problem; nothing in it is run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { AxSessionReplayer, readSessionFile, SessionFileError } from '../index.js';
import { tempFile } from './helpers.mjs';

const write = (name, content) => {
  const file = tempFile(name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};
const minimal = () => ({ format: 'axsession', version: 1, forwards: [], exchanges: [] });

test('malformed files are refused with the file and the place named', () => {
  const cases = [
    [write('a.json', 'not json {'), /a\.json: not JSON/],
    [write('b.json', [1, 2]), /b\.json: expected a JSON object/],
    [write('c.json', { ...minimal(), format: 'other' }), /c\.json: not an axsession file \(field 'format' is "other"\)/],
    [write('d.json', { ...minimal(), version: 7 }), /d\.json: written by a newer recorder \(axsession version 7\)/],
    [write('e.json', { ...minimal(), exchanges: [{ index: 0, digest: 'md5:x', request: { chat_prompt: [] }, response: {} }] }), /e\.json: exchanges\[0\]: field 'digest' must be a 'sha256:' string/],
    [write('f.json', { ...minimal(), exchanges: [{ index: 3, digest: 'sha256:x', request: { chat_prompt: [] }, response: {} }] }), /exchanges\[0\]: field 'index' is 3, expected 0/],
    [write('g.json', { ...minimal(), exchanges: [{ index: 0, digest: 'sha256:x', request: {} }] }), /exchanges\[0\]: field 'request' must be an object with a 'chat_prompt' list/],
    [write('h.json', { ...minimal(), forwards: [{ function_calls: 'rm -rf /' }] }), /forwards\[0\]: field 'function_calls' must be a list/],
  ];
  for (const [file, pattern] of cases) assert.throws(() => readSessionFile(file), (e) => e instanceof SessionFileError && pattern.test(e.message), file);
});

test('a file over the size limit is refused before it is read', () => {
  const file = write('big.json', `${JSON.stringify(minimal())}${' '.repeat(2048)}`);
  assert.throws(() => readSessionFile(file, 1024), /big\.json: \d+ bytes is more than the 1024 a session file may have/);
});

test('a folder or a missing file is refused', () => {
  const dir = path.dirname(tempFile('x'));
  assert.throws(() => readSessionFile(dir), /not a regular file/);
  assert.throws(() => readSessionFile(path.join(dir, 'missing.json')), /cannot read it \(ENOENT\)/);
});

test("recorded code is never run: a 'function result' is served as data", async () => {
  const doc = {
    ...minimal(),
    forwards: [{ index: 0, function_calls: [{ name: 'f', qualified_name: 'utils.f', args: {}, result: { toString: 'process.exit(3)' }, error: null }] }],
  };
  const player = new AxSessionReplayer(doc, { functions: ['f'] });
  const served = player.agentOptions({ functions: [{ name: 'f', description: 'd', func: () => 'live' }] }).functions[0];
  assert.deepEqual(await served.func({}), { toString: 'process.exit(3)' });
});

test('bytes that are not UTF-8 are refused with their offset, as the studio refuses them', () => {
  const file = tempFile('bad-utf8.json');
  const text = Buffer.from(JSON.stringify({ ...minimal(), name: 'café' }), 'utf8');
  const at = text.indexOf(0xc3);
  text[at] = 0xff;
  fs.writeFileSync(file, text);
  assert.throws(() => readSessionFile(file), (e) => e instanceof SessionFileError && e.message.endsWith(`not valid UTF-8 (byte offset ${at})`));
});

test('deep nesting is refused before JSON.parse (no RangeError)', () => {
  const file = write('deep.json', `{"format":"axsession","version":1,"forwards":[],"exchanges":[],"x":${'['.repeat(100000)}${']'.repeat(100000)}}`);
  assert.throws(() => readSessionFile(file), (e) => e instanceof SessionFileError && /nested more than 200 levels deep/.test(e.message));
});

test('a response or an error of the wrong type is refused', () => {
  const ex = (extra) => ({ ...minimal(), exchanges: [{ index: 0, digest: 'sha256:x', request: { chat_prompt: [] }, ...extra }] });
  assert.throws(() => readSessionFile(write('r.json', ex({ response: 42 }))), /exchanges\[0\]: field 'response' must be an object with a 'results' list/);
  assert.throws(() => readSessionFile(write('s.json', ex({ response: { results: 'x' } }))), /field 'response' must be an object with a 'results' list/);
  assert.throws(() => readSessionFile(write('t.json', ex({ response: null, error: 'boom' }))), /needs a 'response' or an 'error'|field 'error' must be an object/);
});

test("a studio (axllm) session is named as one, not as a newer recorder's", () => {
  const file = write('studio.json', { ...minimal(), version: 2, versions: { axllm: '25.4.6' } });
  assert.throws(() => readSessionFile(file), (e) => e instanceof SessionFileError && /recorded on axllm 25\.4\.6 .*not on @ax-llm\/ax/.test(e.message) && !/newer/.test(e.message));
});
