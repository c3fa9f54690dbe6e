// example/sessions/triage.axsession.json is the session the studio's own tests import
// (`make recorder-fixture` writes it). It must be what the example records today on the
// real @ax-llm/ax 24.0.21: everything but times, ids of the run and the Node version.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

import { AxSessionReplayer } from '../index.js';
import { agent, freshMap, recordExample, tempFile, triageOptions, SIGNATURE } from './helpers.mjs';

const FIXTURE = new URL('../example/sessions/triage.axsession.json', import.meta.url);

function stable(doc) {
  const copy = structuredClone(doc);
  for (const key of ['created_at', 'id', 'name']) delete copy[key];
  delete copy.provider.id;
  delete copy.versions.node;
  delete copy.recorder.overhead_ms;
  for (const fw of copy.forwards) {
    delete fw.started_at;
    for (const call of fw.function_calls) delete call.duration_ms;
  }
  for (const ex of copy.exchanges) {
    delete ex.started_at;
    delete ex.duration_ms;
  }
  return copy;
}

test('the committed example session is what the example records today', async () => {
  const file = tempFile('fresh.axsession.json');
  await recordExample({ file });
  const fresh = JSON.parse(fs.readFileSync(file, 'utf8'));
  const committed = JSON.parse(fs.readFileSync(FIXTURE, 'utf8'));
  assert.deepEqual(stable(fresh), stable(committed), 'run `make recorder-fixture` after a change that alters what is recorded');
});

test('the committed example session replays offline', async () => {
  const player = AxSessionReplayer.load(FIXTURE.pathname, { functions: ['lookupOwner'] });
  const triage = player.agent(agent, SIGNATURE, triageOptions({ directoryURL: 'http://127.0.0.1:9/directory', map: freshMap() }));
  for (let i = 0; i < player.forwards.length; i += 1) assert.deepEqual(await triage.forward(player.ai(), player.inputs(i)), player.output(i));
  player.assertComplete();
});
