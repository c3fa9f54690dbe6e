// How long an offline replay of the example session takes in Node: the first (with the
// agent's QuickJS/worker start-up) and the later ones in the same process. Prints JSON.
//   node test/replay-time.mjs [runs]
import { agent } from '@ax-llm/ax';

import { AxSessionReplayer } from '../index.js';
import { freshMap, triageOptions } from './helpers.mjs';

const FILE = new URL('../example/sessions/triage.axsession.json', import.meta.url).pathname;
const runs = Number(process.argv[2] ?? 5);
const times = [];
for (let n = 0; n < runs; n += 1) {
  const t0 = performance.now();
  const player = AxSessionReplayer.load(FILE, { functions: ['lookupOwner'] });
  const triage = player.agent(agent, 'question:string -> answer:string', triageOptions({ directoryURL: 'http://127.0.0.1:9/directory', map: freshMap() }));
  for (let i = 0; i < player.forwards.length; i += 1) await triage.forward(player.ai(), player.inputs(i));
  player.assertComplete();
  times.push(Math.round(performance.now() - t0));
}
console.log(JSON.stringify({ session: 'example/sessions/triage.axsession.json', forwards: 2, model_calls: 14, replay_ms: times }));
