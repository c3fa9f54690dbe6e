// Run from a scratch project where the recorder was installed with `npm install <path>`
// (tools/recorder/check_ts_recorder.sh): the package resolves by its name, records a small
// agent run on the project's own @ax-llm/ax (a scripted AxMockAIService) and replays it.
import assert from 'node:assert/strict';
import fs from 'node:fs';

import { AxMockAIService, agent } from '@ax-llm/ax';
import { AxSessionRecorder, AxSessionReplayer, RECORDER_NAME } from '@axmem/ax-recorder';

const reply = (text) => ({ results: [{ index: 0, content: text, finishReason: 'stop' }], modelUsage: { ai: 'mock', model: 'mock', tokens: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } } });
const scripted = new AxMockAIService({
  features: { functions: false, streaming: false },
  chatResponse: async (req) => {
    const system = req.chatPrompt.find((m) => m.role === 'system')?.content ?? '';
    if (system.includes('Answer Synthesis Agent')) return reply('Answer: team-payments owns checkout.');
    return reply(JSON.stringify({ javascriptCode: "await respond('Answer from the memories', {});" }));
  },
});
const options = { memoriesCatalog: [{ id: 'm1', content: 'The checkout service owner is team-payments.' }] };
const file = 'install-check.axsession.json';
const rec = new AxSessionRecorder({ file });
const live = await rec.agent(agent, 'question:string -> answer:string', options).forward(rec.wrapAI(scripted), { question: 'Who owns checkout?' });
const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
assert.equal(doc.origin.recorder, RECORDER_NAME);
assert.equal(doc.versions.ax, '24.0.21', "the project's own @ax-llm/ax version is found");
const player = AxSessionReplayer.load(file);
const replayed = await player.agent(agent, 'question:string -> answer:string', options).forward(player.ai(), player.inputs(0));
player.assertComplete();
assert.deepEqual(replayed, live);
console.log(`installed ${RECORDER_NAME}: recorded ${doc.exchanges.length} calls and replayed them: ${JSON.stringify(replayed)}`);
