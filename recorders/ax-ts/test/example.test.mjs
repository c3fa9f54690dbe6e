// The example agent (one function tool, a skills catalog, a memories catalog, a context map)
// on the real @ax-llm/ax 24.0.21 against the scripted OpenAI-compatible server: recorded,
// replayed offline with no network at all and the same outputs, and a changed instruction
// caught at the first call it changes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, describe, test } from 'node:test';

import * as ax from '@ax-llm/ax';

import { AxSessionMismatchError, AxSessionReplayer } from '../index.js';
import { API_KEY, NetworkGuard, QUESTIONS, SIGNATURE, agent, freshMap, recordExample, tempFile, triageOptions } from './helpers.mjs';

const OFFLINE = 'http://127.0.0.1:9/directory'; // nothing listens there, and the guard blocks it anyway

describe('the example agent, recorded', () => {
  let recording;
  let file;
  let doc;
  let text;

  before(async () => {
    file = tempFile('triage.axsession.json');
    recording = await recordExample({ file });
    text = fs.readFileSync(file, 'utf8');
    doc = JSON.parse(text);
  });

  test('every model call is an exchange, in order, with its stage and digest', () => {
    assert.equal(doc.exchanges.length, recording.chatRequests, 'one exchange per request the server answered');
    assert.deepEqual(
      doc.exchanges.slice(0, 9).map((e) => e.stage),
      ['actor.distiller', 'actor.distiller', 'actor.distiller', 'actor.executor', 'actor.executor', 'actor.executor', 'responder', 'context_map.distiller', 'context_map.cartographer'],
    );
    doc.exchanges.forEach((ex, i) => {
      assert.equal(ex.index, i);
      assert.match(ex.digest, /^sha256:[0-9a-f]{64}$/);
      assert.ok(Array.isArray(ex.request.chat_prompt), 'the neutral request keeps chat_prompt');
      assert.equal(ex.stream, true, 'the OpenAI service streams by default: chunks are kept');
      assert.ok(ex.chunks.length >= 2);
      assert.ok(ex.usage.prompt_tokens > 0);
      assert.equal(ex.params.model, 'scripted-a');
      assert.equal(ex.params.temperature, 0);
      assert.equal(ex.params.stream, true);
    });
    assert.deepEqual(doc.forwards.map((f) => f.exchange_range), [[0, 9], [9, doc.exchanges.length]]);
  });

  test('the function tool, the searches, the hooks and the map are recorded', () => {
    const [first, second] = doc.forwards;
    assert.deepEqual(first.function_calls.map((c) => [c.qualified_name, c.args, c.result, c.stage, c.call_index]), [
      ['utils.lookupOwner', { service: 'checkout' }, { service: 'checkout', team: 'team-payments', oncall: 'dana' }, 'actor.executor', 3],
    ]);
    assert.deepEqual(first.searches.map((s) => [s.kind, s.source, s.stage, s.results.map((r) => r.id)]), [
      ['discover', 'catalog', 'actor.distiller', ['incident-triage']],
      ['recall', 'catalog', 'actor.distiller', ['mem-checkout-owner']],
    ]);
    assert.deepEqual(first.callbacks.map((c) => c.kind), ['loaded_skills', 'loaded_memories', 'used_memories']);
    assert.deepEqual(first.turns.map((t) => [t.stage, t.call_index]), [
      ['actor.distiller', 0], ['actor.distiller', 1], ['actor.distiller', 2],
      ['actor.executor', 3], ['actor.executor', 4], ['actor.executor', 5],
    ]);
    assert.equal(first.context_map_before.steps, 0);
    assert.equal(first.context_map_after.steps, 1);
    assert.deepEqual(second.context_map_before, first.context_map_after, 'the map carries over');
    assert.equal(first.context_map_update_ax.status, 'updated');
    assert.deepEqual(doc.catalog.skills.map((s) => s.id), ['incident-triage', 'release-guide']);
    assert.equal(doc.agent.functions[0].name, 'lookupOwner');
    assert.equal(doc.versions.ax, '24.0.21');
    assert.equal(doc.versions.axllm, undefined, 'a TypeScript session names the Ax package, not axllm');
    assert.equal(doc.origin.kind, 'app');
    assert.deepEqual(doc.recorder.warnings, []);
  });

  test('the API key is nowhere in the file', () => {
    assert.ok(!text.includes(API_KEY));
  });

  test('replayed offline: no connection, no fetch, the same outputs, every call used', async () => {
    const guard = new NetworkGuard();
    try {
      guard.block();
      const player = AxSessionReplayer.load(file, { functions: ['lookupOwner'] });
      const triage = player.agent(agent, SIGNATURE, triageOptions({ directoryURL: OFFLINE, map: freshMap() }));
      const outputs = [];
      for (let i = 0; i < QUESTIONS.length; i += 1) outputs.push(await triage.forward(player.ai(), player.inputs(i)));
      player.assertComplete();
      assert.deepEqual(outputs, recording.outputs);
      assert.equal(guard.connections, 0, 'no TCP connection was opened');
      assert.equal(guard.fetches, 0, 'fetch was never called');
    } finally {
      guard.restore();
    }
  });

  test('without the recorded function result, the tool would have needed the network', async () => {
    const guard = new NetworkGuard();
    try {
      guard.block();
      const player = AxSessionReplayer.load(file);
      const triage = player.agent(agent, SIGNATURE, triageOptions({ directoryURL: OFFLINE, map: freshMap() }));
      await assert.rejects(() => triage.forward(player.ai(), player.inputs(0)), AxSessionMismatchError);
      assert.equal(guard.fetches, 1, 'the real lookupOwner tried to fetch');
      assert.equal(player.mismatch.call, 4, 'its error went into the next executor prompt: call #4 differs');
    } finally {
      guard.restore();
    }
  });

  test('a changed instruction fails at the first call it changes, with a readable diff', async () => {
    const player = AxSessionReplayer.load(file, { functions: ['lookupOwner'] });
    const triage = player.agent(agent, SIGNATURE, triageOptions({ directoryURL: OFFLINE, map: freshMap(), instruction: 'Answer in French.' }));
    const error = await triage.forward(player.ai(), player.inputs(0)).then(() => null, (e) => e);
    assert.ok(error instanceof AxSessionMismatchError, `expected a mismatch, got ${error}`);
    assert.equal(error.kind, 'prompt');
    assert.equal(error.call, 3);
    assert.equal(error.stage, 'actor.executor');
    assert.match(error.message, /^replay: call #3 \(actor\.executor, forward 0, turn 0\) differs from the recording/);
    assert.match(error.diff, /^-Look owners up with the directory tool before answering; name the on-call person\.$/m);
    assert.match(error.diff, /^\+Answer in French\.$/m);
    assert.equal(player.position, 3, 'calls #0-#2 (the distiller) matched');
  });

  test('a tool called with other arguments is named', async () => {
    const player = AxSessionReplayer.load(file, { functions: ['lookupOwner'] });
    const served = player.agentOptions(triageOptions({ directoryURL: OFFLINE, map: freshMap() })).functions[0];
    player.forwardIndex = 0;
    await assert.rejects(() => served.func({ service: 'search' }), (e) => {
      assert.equal(e.kind, 'function');
      assert.match(e.message, /utils\.lookupOwner call #0 \(made after call #3\) has other arguments/);
      assert.match(e.diff, /^-\s+"service": "checkout"$/m);
      return true;
    });
  });

  test('a recording with calls the replay never makes is reported', async () => {
    const player = AxSessionReplayer.load(file, { functions: ['lookupOwner'] });
    const triage = player.agent(agent, SIGNATURE, triageOptions({ directoryURL: OFFLINE, map: freshMap() }));
    await triage.forward(player.ai(), player.inputs(0));
    assert.throws(() => player.assertComplete(), /the agent made 9 model call\(s\) but the recording has 14; call #9 \(actor\.distiller, forward 1, turn 0\) never happened/);
  });

  test('one more call than recorded is reported', async () => {
    const player = new AxSessionReplayer({ ...doc, exchanges: doc.exchanges.slice(0, 2), forwards: doc.forwards.slice(0, 1) }, { functions: ['lookupOwner'] });
    const triage = player.agent(agent, SIGNATURE, triageOptions({ directoryURL: OFFLINE, map: freshMap() }));
    await assert.rejects(() => triage.forward(player.ai(), player.inputs(0)), /call #2 \(actor\.distiller\) is not in the recording, which has 2 call\(s\)/);
  });

  test('a forward that answers differently is reported with the outputs diff', async () => {
    const changed = structuredClone(doc);
    changed.forwards[0].output = { answer: 'something else' };
    const player = new AxSessionReplayer(changed, { functions: ['lookupOwner'] });
    const triage = player.agent(agent, SIGNATURE, triageOptions({ directoryURL: OFFLINE, map: freshMap() }));
    await assert.rejects(() => triage.forward(player.ai(), player.inputs(0)), (e) => {
      assert.equal(e.kind, 'output');
      assert.match(e.diff, /^-\s+"answer": "something else"$/m);
      return true;
    });
  });

  test('recorded model errors come back as the same Ax error class', async () => {
    const failing = structuredClone(doc);
    failing.exchanges[0] = { ...failing.exchanges[0], response: null, chunks: undefined, stream: undefined, error: { kind: 'http_status', type: 'AxAIServiceStatusError', message: 'HTTP 500', status: 500, retryable: true } };
    const player = new AxSessionReplayer(failing, { ax });
    const error = await player.ai().chat(fromRecorded(doc.exchanges[0])).then(() => null, (e) => e);
    assert.ok(error instanceof ax.AxAIServiceStatusError, `got ${error}`);
    assert.equal(error.status, 500);
  });
});

/** The Ax request of a recorded exchange (as the agent would send it again). */
function fromRecorded(ex) {
  const { chat_prompt: chatPrompt, functions, response_format: responseFormat, ...rest } = ex.request;
  return { ...rest, chatPrompt, functions, responseFormat };
}
