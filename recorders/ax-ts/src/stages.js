// Which Ax stage sent a model request, told apart by its system prompt: the same markers as
// the studio's axmem_gui/core/session/stages.py (Ax TypeScript 24.0.21 and axllm render the
// same stage prompts), and the same turn numbering as its recording client.

export const ACTOR_STAGES = ['actor.distiller', 'actor.executor'];
export const LLM_QUERY = 'llmQuery';

const MARKERS = [
  ['context-map Distiller', 'context_map.distiller'],
  ['context-map Cartographer', 'context_map.cartographer'],
  ['You (`distiller`)', 'actor.distiller'],
  ['You (`executor`)', 'actor.executor'],
  ['## Distiller', 'actor.distiller'],
  ['## Executor', 'actor.executor'],
  ['Answer Synthesis Agent', 'responder'],
];
const LLM_QUERY_IDENTITY = '`Task`, `Context`. Your task is to generate new fields: `Answer`';

export function messageText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('');
  }
  return content == null ? '' : String(content);
}

/** The stage of a neutral request (`chat_prompt`). */
export function stageOf(neutralRequest) {
  const prompt = Array.isArray(neutralRequest?.chat_prompt) ? neutralRequest.chat_prompt : [];
  const system = prompt.find((m) => m && m.role === 'system');
  const text = system ? messageText(system.content) : '';
  for (const [marker, stage] of MARKERS) if (text.includes(marker)) return stage;
  if (text.includes(LLM_QUERY_IDENTITY) || text.includes('You answer ONE focused question')) return LLM_QUERY;
  return 'other';
}

/** Turn numbers per forward: actor stages count their own calls; an llmQuery belongs to the
 * actor turn that issued it; other stages count attempts. */
export class TurnCounter {
  constructor() {
    this.counts = new Map();
    this.lastActorTurn = 0;
  }

  next(forward, stage) {
    if (stage === LLM_QUERY) return this.lastActorTurn;
    const key = `${forward}\u0000${stage}`;
    const turn = this.counts.get(key) ?? 0;
    this.counts.set(key, turn + 1);
    if (ACTOR_STAGES.includes(stage)) this.lastActorTurn = turn;
    return turn;
  }
}
