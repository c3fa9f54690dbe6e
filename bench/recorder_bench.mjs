#!/usr/bin/env node
// Cost of the TypeScript recorder (recorders/ax-ts) on its example agent (two forwards,
// 14 model calls, streamed) on the real @ax-llm/ax against the scripted server on 127.0.0.1:
// - the wall time per model call without and with the recorder (autosave after each
//   forward included), and the recorder's own time per call (what it measures itself);
// - the offline replay time of the recorded example (both forwards, every digest checked).
// Target: recording adds < 5 ms per model call; replay of the example < 1 s.
//
//   make recorder-test   (installs recorders/ax-ts/node_modules once), then
//   node bench/recorder_bench.mjs [--runs 5] [--json]
//
// The machine running this may be shared (2 CPUs): run it more than once and read the
// medians.
import fs from 'node:fs';
import { parseArgs } from 'node:util';

import { AxSessionReplayer } from '../recorders/ax-ts/index.js';
import { QUESTIONS, SIGNATURE, agent, ai, freshMap, recordExample, tempFile, triageOptions } from '../recorders/ax-ts/test/helpers.mjs';
import { ScriptedServer } from '../recorders/ax-ts/test/scripted-server.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, json: { type: 'boolean', default: false } } });
const runs = Number(values.runs);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function plainRun() {
  const server = await new ScriptedServer().start();
  try {
    const llm = ai({ name: 'openai', apiKey: 'sk-scripted-test-key-0001', apiURL: server.baseURL, config: { model: 'scripted-a' } });
    const triage = agent(SIGNATURE, triageOptions({ directoryURL: server.directoryURL, map: freshMap() }));
    const t0 = performance.now();
    for (const question of QUESTIONS) await triage.forward(llm, { question });
    return { ms: performance.now() - t0, calls: server.requests.length };
  } finally {
    await server.stop();
  }
}

async function recordedRun(file) {
  const t0 = performance.now();
  const { rec } = await recordExample({ file });
  const ms = performance.now() - t0;
  const s0 = performance.now();
  rec.save(file);
  return { ms, calls: rec.exchanges.length, own: rec.overheadMs, save: performance.now() - s0 };
}

async function replayRun(file) {
  const t0 = performance.now();
  const player = AxSessionReplayer.load(file, { functions: ['lookupOwner'] });
  const triage = player.agent(agent, SIGNATURE, triageOptions({ directoryURL: 'http://127.0.0.1:9/directory', map: freshMap() }));
  for (let i = 0; i < player.forwards.length; i += 1) await triage.forward(player.ai(), player.inputs(i));
  player.assertComplete();
  return performance.now() - t0;
}

await plainRun(); // warm-up: module loading and the first runtime worker
const file = tempFile('bench.axsession.json');
const plain = [];
const recorded = [];
const own = [];
const replay = [];
const saves = [];
let calls = 0;
for (let i = 0; i < runs; i += 1) {
  const p = await plainRun();
  const r = await recordedRun(file);
  calls = r.calls;
  plain.push(p.ms / p.calls);
  recorded.push(r.ms / r.calls);
  own.push(r.own / r.calls);
  saves.push(r.save);
  replay.push(await replayRun(file));
}
const result = {
  calls_per_run: calls,
  runs,
  plain_ms_per_call: median(plain),
  recorded_ms_per_call: median(recorded),
  added_ms_per_call: median(recorded) - median(plain),
  recorder_own_ms_per_call: median(own),
  save_ms_whole_session: median(saves),
  replay_ms_example: median(replay),
  session_bytes: fs.statSync(file).size,
};
if (values.json) console.log(JSON.stringify(result, null, 2));
else {
  const f = (x) => x.toFixed(2);
  console.log(`example: ${calls} model calls per run, median of ${runs} runs`);
  console.log(`  per model call: ${f(result.plain_ms_per_call)} ms plain, ${f(result.recorded_ms_per_call)} ms recorded (+${f(result.added_ms_per_call)} ms wall; the recorder's own time ${f(result.recorder_own_ms_per_call)} ms)`);
  console.log(`  writing the whole session (done after every forward): ${f(result.save_ms_whole_session)} ms`);
  console.log(`  offline replay of the example: ${f(result.replay_ms_example)} ms; session file ${result.session_bytes} bytes`);
}
