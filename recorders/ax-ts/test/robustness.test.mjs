// Recording never breaks the agent: a file that cannot be written, a recording that hits
// its limits and the recorder's own failures are warnings; the agent's answers are the
// same. API keys never reach the file. Non-streamed services and failed runs record and
// replay too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import * as ax from '@ax-llm/ax';

import { AxSessionRecorder, AxSessionReplayer } from '../index.js';
import { API_KEY, NetworkGuard, QUESTIONS, SIGNATURE, agent, freshMap, recordExample, tempFile, triageOptions } from './helpers.mjs';
import { ScriptedServer } from './scripted-server.mjs';

const OFFLINE = 'http://127.0.0.1:9/directory';

describe('recording never breaks the agent', () => {
  test('a folder under /proc that does not exist is a warning, not a hang', { skip: !fs.existsSync('/proc/self') && 'no /proc here' }, async () => {
    // Node's recursive mkdirSync never returns for such a path (it loops on ENOENT).
    const warnings = [];
    const { outputs } = await recordExample({ file: '/proc/nonexistent/x.axsession.json', questions: QUESTIONS.slice(0, 1), recorderOptions: { onWarning: (m) => warnings.push(m) } });
    assert.equal(outputs.length, 1);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /could not write \/proc\/nonexistent\/x\.axsession\.json: .*ENOENT/);
  });

  test('a file that cannot be written is a warning; the answers are unchanged', async () => {
    const blocker = tempFile('not-a-folder');
    fs.writeFileSync(blocker, 'a file where the session folder should be');
    const warnings = [];
    const { outputs, rec } = await recordExample({ file: path.join(blocker, 'session.axsession.json'), recorderOptions: { onWarning: (m) => warnings.push(m) } });
    assert.deepEqual(outputs.map((o) => o.answer), QUESTIONS.map((q) => `Short answer to: ${q}`));
    assert.equal(warnings.length, 1, 'one warning, not one per forward');
    assert.match(warnings[0], /^axsession recorder: could not write .*session\.axsession\.json: /);
    assert.equal(rec.save().ok, false);
  });

  test('past its limit the recording stops, the agent goes on, and the file says it cannot be replayed', async () => {
    const file = tempFile('limited.axsession.json');
    const warnings = [];
    const { outputs } = await recordExample({ file, recorderOptions: { limits: { maxExchanges: 3 }, onWarning: (m) => warnings.push(m) } });
    assert.equal(outputs.length, 2);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(doc.exchanges.length, 3);
    assert.match(doc.recorder.truncated.reason, /more than 3 model calls/);
    assert.match(warnings[0], /recording stopped: more than 3 model calls \(limits\.maxExchanges\)/);
    assert.throws(() => AxSessionReplayer.load(file), /cannot be replayed: its recording stopped early/);
  });

  test("the recorder's own failures are warnings", async () => {
    const warnings = [];
    const rec = new AxSessionRecorder({ onWarning: (m) => warnings.push(m) });
    rec.addExchange = () => {
      throw new Error('boom');
    };
    const server = await new ScriptedServer().start();
    try {
      const llm = rec.wrapAI(ax.ai({ name: 'openai', apiKey: API_KEY, apiURL: server.baseURL, config: { model: 'scripted-a' } }));
      const triage = rec.agent(agent, SIGNATURE, triageOptions({ directoryURL: server.directoryURL, map: freshMap() }));
      const out = await triage.forward(llm, { question: QUESTIONS[0] });
      assert.equal(out.answer, `Short answer to: ${QUESTIONS[0]}`);
      assert.deepEqual(warnings, ['axsession recorder: recording failed (boom); the agent was not affected']);
    } finally {
      await server.stop();
    }
  });
});

describe('no secrets', () => {
  test('an API key a server quotes back in an error never reaches the file', async () => {
    const file = tempFile('refused.axsession.json');
    await assert.rejects(() => recordExample({ file, faults: { 1: '401-echo' } }));
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(!text.includes(API_KEY));
    const doc = JSON.parse(text);
    assert.equal(doc.status, 'incomplete');
    assert.equal(doc.forwards[0].status, 'failed');
    assert.equal(doc.exchanges[0].error.kind, 'auth');
    assert.equal(doc.exchanges[0].error.type, 'AxAIServiceAuthenticationError');
    assert.equal(doc.exchanges[0].error.detail, 'invalid api key: Bearer [redacted]', 'what the server said, without the key');
  });
});

describe('a service that does not stream', () => {
  test('is recorded without chunks and replays offline to the same answers', async () => {
    const file = tempFile('plain.axsession.json');
    const guard = new NetworkGuard();
    try {
      const { outputs } = await recordExample({ file, stream: false });
      assert.ok(guard.connections > 0 && guard.fetches > 0, 'the guard sees the live run connect');
      const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.ok(doc.exchanges.every((e) => e.stream === undefined && e.chunks === undefined && e.params.stream === false));
      guard.block();
      const player = AxSessionReplayer.load(file, { functions: ['lookupOwner'] });
      const triage = player.agent(agent, SIGNATURE, triageOptions({ directoryURL: OFFLINE, map: freshMap() }));
      const replayed = [];
      for (let i = 0; i < doc.forwards.length; i += 1) replayed.push(await triage.forward(player.ai(), player.inputs(i)));
      player.assertComplete();
      assert.deepEqual(replayed, outputs);
      assert.equal(guard.connections + guard.fetches, 0);
    } finally {
      guard.restore();
    }
  });
});
