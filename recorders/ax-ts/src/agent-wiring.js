// What the recorder and the replayer both do to an Ax agent: describe its configuration as
// data, read its context map, and wrap the app's function tools and the agent's search
// functions. Only hooks that do not change what Ax sends are ever added (onLoadedSkills,
// onLoadedMemories, actorTurnCallback, contextMap.onUpdate); onUsedSkills/onUsedMemories
// switch usage tracking on (and change the prompts), so they are wrapped only when the app
// set them.
import { jsonable } from './json.js';

const CALLABLE_KEYS = new Set([
  'functions', 'skillsCatalog', 'memoriesCatalog', 'contextMap', 'runtime', 'ai', 'judgeAI',
  'onSkillsSearch', 'onMemoriesSearch', 'onLoadedSkills', 'onLoadedMemories', 'onUsedSkills',
  'onUsedMemories', 'actorTurnCallback', 'onContextEvent', 'agentStatusCallback',
  'inputUpdateCallback', 'onFunctionCall', 'bubbleErrors', 'mem', 'logger', 'tracer', 'meter',
]);

function describeFunction(fn, namespace) {
  return jsonable({
    name: fn.name,
    namespace: fn.namespace ?? namespace ?? 'utils',
    description: fn.description ?? null,
    parameters: fn.parameters ?? null,
    returns: fn.returns ?? null,
  });
}

/** The functions of an agent's `functions` option, described (child agents by name). */
export function describeFunctions(functions) {
  const out = [];
  for (const item of Array.isArray(functions) ? functions : []) {
    if (item && Array.isArray(item.functions) && typeof item.namespace === 'string') {
      for (const fn of item.functions) if (fn && typeof fn.func === 'function') out.push(describeFunction(fn, item.namespace));
    } else if (item && typeof item.func === 'function') {
      out.push(describeFunction(item));
    } else if (item && typeof item.getFunction === 'function') {
      out.push({ name: String(item.getFunction?.().name ?? 'agent'), namespace: 'agent', description: 'a child agent', parameters: null, returns: null });
    }
  }
  return out;
}

/** The context-map state the studio stores (axllm's keys) from an Ax map snapshot. */
export function mapState(agent) {
  let snapshot;
  try {
    snapshot = agent?.getContextMap?.()?.snapshot?.();
  } catch {
    return null;
  }
  if (!snapshot || typeof snapshot.text !== 'string') return null;
  const state = {
    text: snapshot.text,
    steps: snapshot.steps ?? 0,
    scores: jsonable(snapshot.scores ?? {}),
    maxChars: snapshot.maxChars ?? 4000,
    infiniteEvolve: snapshot.infiniteEvolve ?? true,
  };
  if (snapshot.evolveSteps !== undefined) state.evolveSteps = snapshot.evolveSteps;
  return state;
}

/** The agent configuration as data (callables, catalogs and the map live elsewhere). */
export function describeAgent(name, signature, options, map) {
  const rest = {};
  for (const [key, value] of Object.entries(options ?? {})) {
    if (!CALLABLE_KEYS.has(key) && typeof value !== 'function') rest[key] = jsonable(value);
  }
  return {
    name,
    signature: String(signature),
    instruction: typeof options?.executorOptions?.description === 'string' ? options.executorOptions.description : null,
    contextFields: jsonable(options?.contextFields ?? []),
    catalog: { skills: 'all', memories: 'all' },
    contextMap: map ? { maxChars: map.maxChars, infiniteEvolve: map.infiniteEvolve, ...(map.evolveSteps !== undefined ? { evolveSteps: map.evolveSteps } : {}) } : null,
    relevanceRanking: jsonable(options?.relevanceRanking ?? true),
    maxActorSteps: options?.maxTurns ?? null,
    runtime: options?.runtime ? `<${options.runtime.constructor?.name ?? 'runtime'}>` : 'AxJSRuntime',
    directResponse: options?.directResponse ?? 'auto',
    functions: describeFunctions(options?.functions),
    host_search: { skills: typeof options?.onSkillsSearch === 'function', memories: typeof options?.onMemoriesSearch === 'function' },
    options: rest,
  };
}

/** The skills and memories the agent was given, in the studio's catalog shape. */
export function catalogOf(options) {
  const skills = (Array.isArray(options?.skillsCatalog) ? options.skillsCatalog : []).map((s) =>
    jsonable({ id: s.id, name: s.name, ...(s.description !== undefined ? { description: s.description } : {}), content: s.content, tags: [] }),
  );
  const memories = (Array.isArray(options?.memoriesCatalog) ? options.memoriesCatalog : []).map((m) =>
    jsonable({ id: m.id, content: m.content, tags: [] }),
  );
  return { skills, memories };
}

/** `functions` with each plain function tool's `func` replaced by `wrap(fn, namespace)`. */
export function wrapFunctions(functions, wrap) {
  if (!Array.isArray(functions)) return functions;
  return functions.map((item) => {
    if (item && Array.isArray(item.functions) && typeof item.namespace === 'string') {
      return { ...item, functions: item.functions.map((fn) => (fn && typeof fn.func === 'function' ? { ...fn, func: wrap(fn, item.namespace) } : fn)) };
    }
    if (item && typeof item.func === 'function' && typeof item.getFunction !== 'function') {
      return { ...item, func: wrap(item, item.namespace ?? 'utils') };
    }
    return item;
  });
}

/** Replace the search functions Ax resolved at construction (the app's host callbacks or
 * its built-in catalog search) on both actor stages with `wrap(kind, fn, stage)`. */
export function wrapSearches(agent, wrap) {
  let wrapped = 0;
  for (const [stage, rlm] of [['actor.distiller', agent?.distiller], ['actor.executor', agent?.executor]]) {
    if (!rlm) continue;
    for (const [key, kind] of [['onSkillsSearch', 'discover'], ['onMemoriesSearch', 'recall']]) {
      if (typeof rlm[key] === 'function') {
        rlm[key] = wrap(kind, rlm[key], stage);
        wrapped += 1;
      }
    }
  }
  return wrapped;
}

/** The ids of a list of memories (recall's `alreadyLoaded`). */
export const idsOf = (items) => (Array.isArray(items) ? items.map((m) => String(m?.id)) : []);
