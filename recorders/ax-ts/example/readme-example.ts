// The TypeScript example of the README, type-checked by `make recorder-test` (tsc --noEmit):
// record a run of your agent, then replay it in a test.
import { agent, ai } from '@ax-llm/ax';
import { AxSessionRecorder, AxSessionReplayer } from '@axmem/ax-recorder';

export async function recordThenReplay(): Promise<void> {
  const rec = new AxSessionRecorder({ file: 'sessions/support.axsession.json' });
  const llm = rec.wrapAI(ai({ name: 'openai', apiKey: process.env.OPENAI_APIKEY! }));
  const support = rec.agent(agent, 'question:string -> answer:string', { skillsCatalog: [], maxTurns: 4 });
  await support.forward(llm, { question: 'How do I reset my password?' });

  const player = AxSessionReplayer.load('sessions/support.axsession.json');
  const replayed = player.agent(agent, 'question:string -> answer:string', { skillsCatalog: [], maxTurns: 4 });
  await replayed.forward(player.ai(), player.inputs(0)); // no network, fails on the first changed call
  player.assertComplete();
}
