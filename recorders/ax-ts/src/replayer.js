// AxSessionReplayer: serves a recorded session back to the app's own agent in its tests,
// offline. The replaying AI service hands out the recorded responses in order and checks
// every request against its recorded digest; recorded function results (opt-in per
// function) and host search results (opt-in) are served instead of calling the app's code.
// The first difference stops the run with an AxSessionMismatchError that names the call
// (number, stage, forward, turn) and shows a unified diff of what was recorded and what
// the agent asks now.
import { catalogOf, idsOf, mapState, wrapFunctions, wrapSearches } from './agent-wiring.js';
import { rebuildError } from './errors.js';
import { readSessionFile, checkSession } from './files.js';
import { jsonable, prettyJson, requestDigest, sameJson } from './json.js';
import { fromNeutral, toNeutral } from './neutral.js';
import { DELEGATED } from './record-ai.js';
import { unifiedDiff } from './diff.js';
import { messageText, stageOf } from './stages.js';

export class AxSessionMismatchError extends Error {
  constructor(kind, message, details = {}) {
    super(details.diff ? `${message}\n\n${details.diff}` : message);
    this.name = 'AxSessionMismatchError';
    this.kind = kind; // prompt | extra_call | missing_calls | function | search | output | context_map
    this.summary = message;
    Object.assign(this, details);
  }
}

/** A request as text for reading and diffing (the studio's request_as_text). */
export function requestAsText(request) {
  const lines = [];
  (Array.isArray(request?.chat_prompt) ? request.chat_prompt : []).forEach((message, i) => {
    if (!message || typeof message !== 'object') return;
    lines.push(`=== message ${i}: ${message.role} ===`);
    lines.push(...messageText(message.content).split('\n'));
  });
  for (const key of ['functions', 'response_format']) {
    const value = request?.[key];
    if (value && !(Array.isArray(value) && value.length === 0)) {
      lines.push(`=== ${key} ===`);
      lines.push(...prettyJson(value).trimEnd().split('\n'));
    }
  }
  return `${lines.join('\n')}\n`;
}

const label = (ex) => `call #${ex.index} (${ex.stage}, forward ${ex.forward}, turn ${ex.turn})`;

function streamOf(chunks) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(structuredClone(chunks[i++]));
      else controller.close();
    },
  });
}

class ReplayAIService {
  constructor(player) {
    this.player = player;
    const doc = player.doc;
    const provider = doc.provider ?? {};
    const features = doc.client_features ?? {};
    const fixed = {
      getId: () => String(provider.id ?? 'replay'),
      getName: () => String(provider.name ?? 'replay'),
      getFeatures: () => structuredClone(features),
      getModelList: () => undefined,
      getMetrics: () => ({ latency: { chat: { mean: 0, p95: 0, p99: 0, samples: [] }, embed: { mean: 0, p95: 0, p99: 0, samples: [] } }, errors: { chat: { count: 0, rate: 0, total: 0 }, embed: { count: 0, rate: 0, total: 0 } } }),
      getLogger: () => () => {},
      getLastUsedChatModel: () => this.lastParams?.model ?? provider.model ?? undefined,
      getLastUsedEmbedModel: () => undefined,
      getLastUsedModelConfig: () => fromNeutral(this.lastParams?.model_config ?? {}),
      getEstimatedCost: () => 0,
      setOptions: () => {},
      getOptions: () => ({}),
    };
    for (const name of DELEGATED) {
      this[name] = fixed[name] ?? (() => {
        throw new Error(`the replaying AI service has no recorded ${name}()`);
      });
    }
    this.lastParams = null;
  }

  async chat(request) {
    const player = this.player;
    if (player.mismatch) throw player.mismatch;
    const position = player.position;
    const neutral = toNeutral(jsonable(request));
    const exchanges = player.doc.exchanges;
    if (position >= exchanges.length) {
      throw player.diverge(
        new AxSessionMismatchError('extra_call', `replay: call #${position} (${stageOf(neutral)}) is not in the recording, which has ${exchanges.length} call(s)`, {
          call: position,
          diff: unifiedDiff('', requestAsText(neutral), 'recorded (nothing)', `replayed call #${position}`),
        }),
      );
    }
    const ex = exchanges[position];
    const digest = requestDigest(neutral);
    if (digest !== ex.digest) {
      const storedMatches = requestDigest(ex.request) === ex.digest;
      const message = storedMatches
        ? `replay: ${label(ex)} differs from the recording: the agent now asks something else (recorded digest ${ex.digest.slice(7, 19)}, now ${digest.slice(7, 19)})`
        : `replay: ${label(ex)}: the recording is inconsistent: its stored request does not match its stored digest (the file was edited)`;
      throw player.diverge(
        new AxSessionMismatchError('prompt', message, {
          call: position,
          stage: ex.stage,
          forward: ex.forward,
          turn: ex.turn,
          diff: unifiedDiff(requestAsText(ex.request), requestAsText(neutral), `recorded ${label(ex)}`, `replayed call #${position} (${stageOf(neutral)})`),
        }),
      );
    }
    player.position += 1;
    this.lastParams = ex.params ?? null;
    if (ex.response == null && ex.error) throw rebuildError(ex.error, player.ax);
    if (Array.isArray(ex.chunks)) return streamOf(ex.chunks_ax ?? fromNeutral(ex.chunks));
    return structuredClone(ex.response_ax ?? fromNeutral(ex.response));
  }
}

export class AxSessionReplayer {
  /** Read a session file (bounded size, checked structure) and replay it. */
  static load(file, options = {}) {
    return new AxSessionReplayer(readSessionFile(file), options);
  }

  /**
   * @param {object} doc a session document
   * @param {object} [options]
   * @param {string[]} [options.functions] function tools whose recorded results are served
   *   instead of calling them (by name or `namespace.name`)
   * @param {'live'|'recorded'} [options.hostSearches] serve the recorded results of the app's
   *   onSkillsSearch/onMemoriesSearch instead of calling them (default 'live')
   * @param {object} [options.ax] the @ax-llm/ax module: recorded model errors are rethrown
   *   as its classes
   */
  constructor(doc, options = {}) {
    this.doc = checkSession(doc);
    if (this.doc.recorder?.truncated) {
      throw new Error(`this session cannot be replayed: its recording stopped early (${this.doc.recorder.truncated.reason})`);
    }
    this.served = new Set(options.functions ?? []);
    this.hostSearches = options.hostSearches ?? 'live';
    this.ax = options.ax;
    this.position = 0;
    this.mismatch = null;
    this.forwardIndex = 0;
    this.functionCursor = new Map();
    this.searchCursor = 0;
  }

  diverge(error) {
    if (!this.mismatch) this.mismatch = error;
    return this.mismatch;
  }

  /** The AI service to pass to forward(): no network, no key. */
  ai() {
    return new ReplayAIService(this);
  }

  get forwards() {
    return this.doc.forwards;
  }

  /** The inputs the recorded forward `i` was called with. */
  inputs(i = 0) {
    return structuredClone(this.doc.forwards[i]?.inputs ?? {});
  }

  /** The output recorded for forward `i`. */
  output(i = 0) {
    return structuredClone(this.doc.forwards[i]?.output ?? null);
  }

  /** The catalog the recorded agent had (skillsCatalog / memoriesCatalog shape). */
  catalog() {
    const { skills = [], memories = [] } = this.doc.catalog ?? {};
    return {
      skillsCatalog: skills.map(({ tags: _t, ...s }) => s),
      memoriesCatalog: memories.map(({ tags: _t, ...m }) => m),
    };
  }

  agentOptions(options = {}) {
    return { ...options, functions: wrapFunctions(options.functions, (fn, namespace) => this.servedFunction(fn, namespace)) };
  }

  servedFunction(fn, namespace) {
    const qualified = `${namespace}.${fn.name}`;
    if (!this.served.has(fn.name) && !this.served.has(qualified)) return fn.func;
    const player = this;
    return async function servedFunction(args) {
      if (player.mismatch) throw player.mismatch;
      const calls = (player.doc.forwards[player.forwardIndex]?.function_calls ?? []).filter((c) => c.qualified_name === qualified || c.name === fn.name);
      const n = player.functionCursor.get(qualified) ?? 0;
      const recorded = calls[n];
      const where = `forward ${player.forwardIndex}, ${qualified} call #${n}`;
      if (!recorded) {
        throw player.diverge(new AxSessionMismatchError('function', `replay: ${where} is not in the recording (it has ${calls.length} call(s) of ${qualified} in this forward)`, { function: qualified }));
      }
      if (!sameJson(jsonable(args), recorded.args)) {
        throw player.diverge(
          new AxSessionMismatchError('function', `replay: ${where} (made after call #${recorded.call_index}) has other arguments than recorded`, {
            function: qualified,
            diff: unifiedDiff(prettyJson(recorded.args), prettyJson(jsonable(args)), `recorded ${qualified} arguments`, `replayed ${qualified} arguments`),
          }),
        );
      }
      player.functionCursor.set(qualified, n + 1);
      if (recorded.result?.truncated === true) {
        throw player.diverge(new AxSessionMismatchError('function', `replay: ${where}: its result was too large to record, so it cannot be served`, { function: qualified }));
      }
      if (recorded.error) throw rebuildError(recorded.error, player.ax);
      return structuredClone(recorded.result);
    };
  }

  servedSearch(kind, search, stage, host) {
    if (!host || this.hostSearches !== 'recorded') return search;
    const player = this;
    return async function servedSearch(searches, alreadyLoaded) {
      if (player.mismatch) throw player.mismatch;
      const recorded = (player.doc.forwards[player.forwardIndex]?.searches ?? []).filter((s) => s.source === 'host');
      const got = recorded[player.searchCursor];
      const wanted = `${kind}(${JSON.stringify([...searches])})`;
      if (!got || got.kind !== kind || !sameJson(got.searches, [...searches].map(String))) {
        const was = got ? `${got.kind}(${JSON.stringify(got.searches)})` : 'nothing';
        throw player.diverge(new AxSessionMismatchError('search', `replay: host search #${player.searchCursor} of forward ${player.forwardIndex}: recorded ${was}, now ${wanted}`, { stage }));
      }
      player.searchCursor += 1;
      void alreadyLoaded;
      return structuredClone(got.results);
    };
  }

  wrapAgent(agent, { options = {} } = {}) {
    const host = { discover: typeof options.onSkillsSearch === 'function', recall: typeof options.onMemoriesSearch === 'function' };
    wrapSearches(agent, (kind, search, stage) => this.servedSearch(kind, search, stage, host[kind]));
    const original = agent.forward.bind(agent);
    agent.forward = async (ai, values, forwardOptions) => {
      const i = this.forwardIndex;
      this.functionCursor = new Map();
      this.searchCursor = 0;
      let output;
      try {
        output = await original(ai, values, forwardOptions);
      } catch (error) {
        // Ax wraps errors from the AI service; the test should see the mismatch itself.
        if (this.mismatch) throw this.mismatch;
        throw error;
      } finally {
        this.forwardIndex += 1;
      }
      if (this.mismatch) throw this.mismatch;
      const recorded = this.doc.forwards[i];
      if (recorded && recorded.status === 'complete' && !sameJson(jsonable(output), recorded.output)) {
        throw this.diverge(
          new AxSessionMismatchError('output', `replay: forward ${i} answered differently from the recording`, {
            forward: i,
            diff: unifiedDiff(prettyJson(recorded.output), prettyJson(jsonable(output)), `recorded forwards[${i}].output`, `replayed output`),
          }),
        );
      }
      const mapAfter = mapState(agent);
      if (recorded?.context_map_after && mapAfter && !sameJson(mapAfter, recorded.context_map_after)) {
        throw this.diverge(
          new AxSessionMismatchError('context_map', `replay: forward ${i} left another context map than recorded`, {
            forward: i,
            diff: unifiedDiff(prettyJson(recorded.context_map_after), prettyJson(mapAfter), `recorded forwards[${i}].context_map_after`, 'replayed map'),
          }),
        );
      }
      return output;
    };
    return agent;
  }

  agent(factory, signature, options = {}) {
    return this.wrapAgent(factory(signature, this.agentOptions(options)), { options });
  }

  /** Throws unless the replay used every recorded model call and never diverged. */
  assertComplete() {
    if (this.mismatch) throw this.mismatch;
    const total = this.doc.exchanges.length;
    if (this.position < total) {
      const next = this.doc.exchanges[this.position];
      throw this.diverge(
        new AxSessionMismatchError('missing_calls', `replay: the agent made ${this.position} model call(s) but the recording has ${total}; ${label(next)} never happened`, { call: this.position }),
      );
    }
  }
}

export { catalogOf, idsOf };
