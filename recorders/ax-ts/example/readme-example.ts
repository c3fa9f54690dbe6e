// The README's TypeScript example, type-checked by `make recorder-test` (tsc --noEmit).
import { agent, ai, type AxAgentConfig } from '@ax-llm/ax';
import { AxSessionRecorder, AxSessionReplayer } from '@axmem/ax-recorder';

declare const options: AxAgentConfig<any, any>;

export async function inTheApp(): Promise<void> {
  const rec = new AxSessionRecorder({ file: 'sessions/support.axsession.json' });
  const llm = rec.wrapAI(ai({ name: 'openai', apiKey: process.env.OPENAI_APIKEY! }));
  await rec.agent(agent, 'question:string -> answer:string', options).forward(llm, { question: 'Where is my order?' });
}

export async function inATest(): Promise<void> {
  const player = AxSessionReplayer.load('sessions/support.axsession.json', { functions: ['lookupOrder'] });
  const out = await player.agent(agent, 'question:string -> answer:string', options).forward(player.ai(), player.inputs(0));
  player.assertComplete(); // and `out` is what was recorded, or forward() threw naming the first differing call
  void out;
}
