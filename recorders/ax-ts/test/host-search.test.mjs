// An agent whose app answers discover/recall itself (onSkillsSearch / onMemoriesSearch, e.g.
// a vector store): the searches are recorded as host searches with what the app returned,
// and a replay can serve them instead of calling the app's store.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

import { ai } from '@ax-llm/ax';

import { AxSessionRecorder, AxSessionReplayer } from '../index.js';
import { NetworkGuard, QUESTIONS, SIGNATURE, agent, freshMap, tempFile, triageOptions } from './helpers.mjs';
import { ScriptedServer } from './scripted-server.mjs';

const storeSkill = { id: 'kb-oncall', name: 'On-call handbook', content: '# On-call\nPage the owner through the directory.' };
const storeMemory = { id: 'kb-mem-1', content: 'Dana is on call for checkout this week.' };

function hostOptions(directoryURL, store) {
  const { skillsCatalog: _s, memoriesCatalog: _m, ...rest } = triageOptions({ directoryURL, map: freshMap() });
  return { ...rest, onSkillsSearch: async (searches) => store.skills(searches), onMemoriesSearch: async (searches, loaded) => store.memories(searches, loaded) };
}

test('host searches are recorded as such and can be served from the recording', async () => {
  const file = tempFile('host.axsession.json');
  const server = await new ScriptedServer().start();
  let live;
  try {
    const rec = new AxSessionRecorder({ file });
    const llm = rec.wrapAI(ai({ name: 'openai', apiKey: 'sk-scripted-test-key-0001', apiURL: server.baseURL, config: { model: 'scripted-a' } }));
    const store = { skills: () => [storeSkill], memories: (_s, loaded) => (loaded.some((m) => m.id === storeMemory.id) ? [] : [storeMemory]) };
    live = await rec.agent(agent, SIGNATURE, hostOptions(server.directoryURL, store)).forward(llm, { question: QUESTIONS[0] });
  } finally {
    await server.stop();
  }
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.deepEqual(doc.forwards[0].searches.map((s) => [s.kind, s.source, s.results.map((r) => r.id)]), [
    ['discover', 'host', ['kb-oncall']],
    ['recall', 'host', ['kb-mem-1']],
  ]);
  assert.equal(doc.search.host, true);
  assert.deepEqual(doc.agent.host_search, { skills: true, memories: true });
  assert.deepEqual(doc.catalog, { skills: [], memories: [] }, 'the app kept its store: no catalog was given');

  const guard = new NetworkGuard();
  try {
    guard.block();
    const unreachable = { skills: () => assert.fail('the store was asked'), memories: () => assert.fail('the store was asked') };
    const player = AxSessionReplayer.load(file, { functions: ['lookupOwner'], hostSearches: 'recorded' });
    const replayed = await player.agent(agent, SIGNATURE, hostOptions('http://127.0.0.1:9/directory', unreachable)).forward(player.ai(), player.inputs(0));
    player.assertComplete();
    assert.deepEqual(replayed, live);
    assert.equal(guard.connections + guard.fetches, 0);
  } finally {
    guard.restore();
  }
});
