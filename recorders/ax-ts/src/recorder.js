// AxSessionRecorder: records an Ax agent run by the app's own code into a `.axsession.json`
// file the studio reads. See README.md for the use; docs/axsession-format.md in the studio
// for every field.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import { catalogOf, describeAgent, idsOf, mapState, wrapFunctions, wrapSearches } from './agent-wiring.js';
import { describeError } from './errors.js';
import { writeFileAtomic } from './files.js';
import { jsonable } from './json.js';
import { RecordingAIService } from './record-ai.js';
import { environmentSecrets, scrubSecrets } from './scrub.js';
import { TurnCounter } from './stages.js';
import { RECORDER_NAME, RECORDER_VERSION, installedAxVersion } from './versions.js';

export const DEFAULT_LIMITS = Object.freeze({
  /** Model calls recorded per session; later calls still run, unrecorded (a warning says so). */
  maxExchanges: 5000,
  /** Approximate size of the session's JSON; recording stops adding calls beyond it. */
  maxBytes: 64 * 1024 * 1024,
  /** A function result, callback payload or search result larger than this (as JSON) is
   * stored as a preview only. */
  maxValueChars: 256 * 1024,
});

function newSessionId() {
  const now = new Date();
  const pad = (n) => String(n).padStart(2, '0');
  const stamp = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}-${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export class AxSessionRecorder {
  /**
   * @param {object} [options]
   * @param {string} [options.file] where the session is written (after every forward and on save())
   * @param {string} [options.name] the label the studio shows
   * @param {string[]} [options.secrets] strings that must never be written (API keys...)
   * @param {boolean} [options.scrubEnvironment] also scrub the values of environment variables
   *   named like credentials (default true)
   * @param {boolean} [options.autosave] write after every forward (default true when `file` is set)
   * @param {object} [options.limits] see DEFAULT_LIMITS
   * @param {(message: string) => void} [options.onWarning] default: process.emitWarning
   * @param {string} [options.axVersion] the @ax-llm/ax version, when it cannot be found
   */
  constructor(options = {}) {
    this.file = options.file ?? null;
    this.name = options.name ?? '';
    this.id = options.id ?? newSessionId();
    this.secrets = [...(options.secrets ?? [])];
    this.scrubEnvironment = options.scrubEnvironment ?? true;
    this.autosave = options.autosave ?? Boolean(this.file);
    this.limits = { ...DEFAULT_LIMITS, ...(options.limits ?? {}) };
    this.onWarning = options.onWarning ?? ((message) => process.emitWarning(message, 'AxSessionRecorderWarning'));
    this.axVersion = options.axVersion ?? installedAxVersion();
    this.createdAt = new Date().toISOString();
    this.exchanges = [];
    this.forwards = [];
    this.warnings = [];
    this.truncated = null;
    this.bytes = 0;
    this.overheadMs = 0;
    this.turns = new TurnCounter();
    this.context = new AsyncLocalStorage();
    this.active = [];
    this.ai = null;
    this.agentInfo = null;
    this.catalog = { skills: [], memories: [] };
    if (!this.axVersion) this.warn('the installed @ax-llm/ax version was not found: pass axVersion to the recorder');
  }

  // ------------------------------------------------------------ plumbing ---

  warn(message) {
    if (this.warnings.includes(message)) return;
    this.warnings.push(message);
    try {
      this.onWarning(`axsession recorder: ${message}`);
    } catch {
      // a warning handler that throws must not break the agent either
    }
  }

  /** Run recorder work; a failure becomes a warning and `fallback` is returned. */
  guard(fn, fallback = undefined) {
    try {
      return fn();
    } catch (error) {
      this.warn(`recording failed (${error instanceof Error ? error.message : String(error)}); the agent was not affected`);
      return fallback;
    }
  }

  overhead(t0) {
    this.overheadMs += performance.now() - t0;
  }

  /** The forward the current async context belongs to, and the call that led here. */
  current() {
    return this.context.getStore() ?? this.active[this.active.length - 1] ?? null;
  }

  place() {
    const store = this.current();
    if (store) return { forward: store.forward.index, call: store.lastCall };
    return { forward: Math.max(0, this.forwards.length - 1), call: null };
  }

  /** Where a callback, search or function call happened: the last model call before it. */
  location() {
    const { forward, call } = this.place();
    return { forward, stage: call?.stage ?? null, turn: call?.turn ?? null, call_index: call?.index ?? null };
  }

  bounded(value) {
    const plain = jsonable(value);
    const text = JSON.stringify(plain) ?? 'null';
    if (text.length <= this.limits.maxValueChars) return plain;
    this.warn(`a value of ${text.length} characters was stored as a preview (limits.maxValueChars is ${this.limits.maxValueChars})`);
    return { truncated: true, chars: text.length, preview: text.slice(0, 2000) };
  }

  addExchange(record) {
    if (this.truncated) return null;
    if (this.exchanges.length >= this.limits.maxExchanges) {
      this.truncate(`more than ${this.limits.maxExchanges} model calls (limits.maxExchanges)`);
      return null;
    }
    record.index = this.exchanges.length;
    this.exchanges.push(record);
    return record;
  }

  noteCall(ex) {
    const store = this.current();
    if (store) store.lastCall = ex;
  }

  exchangeDone(ex) {
    delete ex.pending;
    this.bytes += (JSON.stringify(ex) ?? '').length;
    if (this.bytes > this.limits.maxBytes) this.truncate(`more than ${this.limits.maxBytes} bytes of recording (limits.maxBytes)`);
  }

  truncate(reason) {
    if (this.truncated) return;
    this.truncated = { reason, after_exchange: this.exchanges.length };
    this.warn(`recording stopped: ${reason}; the agent runs on, later calls are not recorded and the session cannot be replayed`);
  }

  // ------------------------------------------------------------ wiring ---

  /** The app's AI service, recorded. Pass the result to `forward()`. */
  wrapAI(ai) {
    if (ai instanceof RecordingAIService) return ai;
    this.ai = ai;
    return new RecordingAIService(this, ai);
  }

  /** The agent options with the recorder's hooks and recorded function tools. */
  agentOptions(options = {}) {
    const rec = this;
    const out = { ...options };
    const callback = (kind, userFn) =>
      function recordedCallback(payload, ...rest) {
        rec.guard(() => rec.current()?.forward.callbacks.push({ kind, payload: rec.bounded(payload), ...rec.location() }));
        return userFn ? userFn.call(this, payload, ...rest) : undefined;
      };
    out.onLoadedSkills = callback('loaded_skills', options.onLoadedSkills);
    out.onLoadedMemories = callback('loaded_memories', options.onLoadedMemories);
    if (typeof options.onUsedSkills === 'function') out.onUsedSkills = callback('used_skills', options.onUsedSkills);
    if (typeof options.onUsedMemories === 'function') out.onUsedMemories = callback('used_memories', options.onUsedMemories);
    const turnHook = (userTurn) =>
      function recordedTurn(args, ...rest) {
        rec.guard(() => rec.recordTurn(args));
        return userTurn ? userTurn.call(this, args, ...rest) : undefined;
      };
    // The executor stage gets the agent's own options, the distiller only `contextOptions`.
    out.actorTurnCallback = turnHook(options.actorTurnCallback);
    out.contextOptions = { ...(options.contextOptions ?? {}), actorTurnCallback: turnHook(options.contextOptions?.actorTurnCallback) };
    if (options.contextMap && typeof options.contextMap === 'object') {
      const userUpdate = options.contextMap.onUpdate;
      out.contextMap = {
        ...options.contextMap,
        onUpdate(result, ...rest) {
          rec.guard(() => {
            const fw = rec.current()?.forward;
            if (fw) {
              const { map: _map, mapText: _text, ...update } = result ?? {};
              fw.context_map_update_ax = jsonable(update);
            }
          });
          return userUpdate ? userUpdate.call(this, result, ...rest) : undefined;
        },
      };
    }
    out.functions = wrapFunctions(options.functions, (fn, namespace) => this.recordedFunction(fn, namespace));
    return out;
  }

  recordedFunction(fn, namespace) {
    const rec = this;
    const inner = fn.func;
    return async function recordedFunction(args, extra) {
      const t0 = performance.now();
      const entry = rec.guard(() => ({ name: fn.name, qualified_name: `${namespace}.${fn.name}`, args: rec.bounded(args), ...rec.location() }), null);
      try {
        const result = await inner.call(this, args, extra);
        rec.guard(() => {
          if (entry) rec.current()?.forward.function_calls.push({ ...entry, result: rec.bounded(result), error: null, duration_ms: Math.round((performance.now() - t0) * 1000) / 1000 });
        });
        return result;
      } catch (error) {
        rec.guard(() => {
          if (entry) rec.current()?.forward.function_calls.push({ ...entry, result: null, error: describeError(error), duration_ms: Math.round((performance.now() - t0) * 1000) / 1000 });
        });
        throw error;
      }
    };
  }

  recordTurn(args) {
    const store = this.current();
    if (!store) return;
    const stage = `actor.${args?.stage ?? 'unknown'}`;
    const call = [...this.exchanges].reverse().find((e) => e.forward === store.forward.index && e.stage === stage);
    store.forward.turns.push({
      stage,
      turn: call?.turn ?? null,
      call_index: call?.index ?? null,
      runtime_turn: args?.turn ?? null,
      kind: null,
      code: typeof args?.code === 'string' ? args.code : '',
      output: typeof args?.output === 'string' ? args.output : this.bounded(args?.output ?? null),
      result: this.bounded(args?.result ?? null),
      is_error: Boolean(args?.isError),
      error: null,
    });
  }

  /** Record forwards of `agent` (built with `agentOptions(options)`). Returns the agent. */
  wrapAgent(agent, { signature, options = {}, name } = {}) {
    if (this.agentInfo) this.warn('a second agent was given to one recorder: a session records one agent; its calls are recorded under the first');
    const sig = signature ?? this.guard(() => agent.getSignature?.()?.toString?.(), '') ?? '';
    this.agentInfo = describeAgent(name ?? this.name ?? 'agent', sig, options, mapState(agent));
    this.catalog = catalogOf(options);
    const hostKinds = { discover: typeof options.onSkillsSearch === 'function', recall: typeof options.onMemoriesSearch === 'function' };
    const wrapped = wrapSearches(agent, (kind, search, stage) => this.recordedSearch(kind, search, stage, hostKinds[kind] ? 'host' : 'catalog'));
    if (!wrapped && (this.catalog.skills.length || this.catalog.memories.length || hostKinds.discover || hostKinds.recall)) {
      this.warn("this agent's search functions were not found (another @ax-llm/ax version?): searches are not recorded");
    }
    const original = agent.forward.bind(agent);
    agent.forward = (ai, values, forwardOptions) => this.runForward(agent, original, ai, values, forwardOptions);
    return agent;
  }

  /** Build the agent with `factory(signature, options)` (Ax's `agent`), recorded. */
  agent(factory, signature, options = {}, name = undefined) {
    return this.wrapAgent(factory(signature, this.agentOptions(options)), { signature, options, name });
  }

  recordedSearch(kind, search, stage, source) {
    const rec = this;
    return async function recordedSearch(searches, alreadyLoaded) {
      const results = await search.call(this, searches, alreadyLoaded);
      rec.guard(() => {
        const fw = rec.current()?.forward;
        if (!fw) return;
        fw.searches.push({
          kind,
          ...rec.location(),
          stage,
          searches: jsonable([...(searches ?? [])].map(String)),
          ...(kind === 'recall' ? { already_loaded: idsOf(alreadyLoaded) } : {}),
          results: rec.bounded(Array.isArray(results) ? results : []),
          source,
        });
      });
      return results;
    };
  }

  async runForward(agent, original, ai, values, forwardOptions) {
    const fw = {
      index: this.forwards.length,
      inputs: this.guard(() => this.bounded(values), {}),
      forward_options: this.guard(() => describeForwardOptions(forwardOptions), {}),
      started_at: new Date().toISOString(),
      status: 'running',
      output: null,
      error: null,
      context_map_before: this.guard(() => mapState(agent), null),
      context_map_after: null,
      exchange_range: null,
      turns: [],
      searches: [],
      callbacks: [],
      function_calls: [],
    };
    this.forwards.push(fw);
    const store = { forward: fw, lastCall: null };
    this.active.push(store);
    try {
      const output = await this.context.run(store, () => original(ai, values, forwardOptions));
      fw.status = 'complete';
      fw.output = this.guard(() => this.bounded(output), null);
      return output;
    } catch (error) {
      this.guard(() => {
        const info = describeError(error);
        fw.status = info.kind === 'cancelled' ? 'cancelled' : 'failed';
        const failed = [...this.exchanges].reverse().find((e) => e.forward === fw.index && e.error);
        fw.error = { ...info, forward: fw.index, call_index: failed?.index ?? null };
      });
      throw error;
    } finally {
      this.active.splice(this.active.indexOf(store), 1);
      this.guard(() => {
        fw.context_map_after = mapState(agent);
        const mine = this.exchanges.filter((e) => e.forward === fw.index);
        fw.exchange_range = mine.length ? [mine[0].index, mine[mine.length - 1].index + 1] : [this.exchanges.length, this.exchanges.length];
        fw.usage = jsonable(agent.getUsage?.() ?? null);
      });
      if (this.autosave) this.save();
    }
  }

  // ------------------------------------------------------------ output ---

  /** The session document (secrets scrubbed). */
  document() {
    for (const ex of this.exchanges) if (typeof ex.pending === 'function') ex.pending();
    const failed = this.forwards.find((f) => f.status === 'failed' || f.status === 'cancelled');
    const features = this.guard(() => jsonable(this.ai?.getFeatures?.() ?? {}), {});
    const axVersion = this.axVersion ?? 'unknown';
    const provider = {
      name: this.guard(() => String(this.ai?.getName?.() ?? 'unknown'), 'unknown'),
      id: this.guard(() => String(this.ai?.getId?.() ?? ''), ''),
      model: this.exchanges.find((e) => e.params?.model)?.params.model ?? null,
      stream: this.exchanges.some((e) => e.stream === true),
      api_key_source: { kind: 'app' },
    };
    const doc = {
      format: 'axsession',
      version: 1,
      id: this.id,
      name: this.name || `${this.agentInfo?.name ?? 'agent'} · ${provider.model ?? '?'}`,
      created_at: this.createdAt,
      status: failed ? 'incomplete' : 'complete',
      error: failed ? failed.error : null,
      origin: { kind: 'app', language: 'typescript', recorder: RECORDER_NAME },
      versions: { ax: axVersion, node: process.version, recorder: RECORDER_VERSION, ax_profile: `ax-${axVersion}` },
      agent: this.agentInfo ?? describeAgent(this.name || 'agent', '', {}, null),
      catalog: this.catalog,
      provider,
      client_features: features,
      search: {
        backend: 'axmem-ax',
        profile: `ax-${axVersion}`,
        host: Boolean(this.agentInfo?.host_search?.skills || this.agentInfo?.host_search?.memories),
      },
      forwards: this.forwards.map((f) => (f.status === 'running' ? { ...f, status: 'failed', error: { kind: 'agent', type: 'Unfinished', message: 'the forward had not finished when the session was saved' } } : f)),
      exchanges: this.exchanges,
      recorder: { name: RECORDER_NAME, version: RECORDER_VERSION, warnings: [...this.warnings], truncated: this.truncated, limits: this.limits, overhead_ms: Math.round(this.overheadMs * 1000) / 1000 },
    };
    const secrets = [...this.secrets, ...(this.scrubEnvironment ? environmentSecrets() : [])];
    return scrubSecrets(jsonable(doc), secrets);
  }

  /** Write the session to `file` (default: the constructor's). Never throws: a failure is a
   * warning, and the result says what happened. */
  save(file = this.file) {
    if (!file) return { ok: false, file: null, error: 'no file given' };
    const text = this.guard(() => `${JSON.stringify(this.document(), null, 1)}\n`, null);
    if (text === null) return { ok: false, file, error: 'the session could not be serialised' };
    const error = writeFileAtomic(file, text);
    if (error) {
      this.warn(`could not write ${file}: ${error.message}`);
      return { ok: false, file, error: error.message };
    }
    return { ok: true, file, bytes: Buffer.byteLength(text) };
  }
}

function describeForwardOptions(options) {
  const out = {};
  for (const [key, value] of Object.entries(options ?? {})) {
    if (typeof value === 'function' || key === 'abortSignal' || key === 'ai' || key === 'mem' || key === 'functions') continue;
    if (key.startsWith('on')) continue;
    out[key] = jsonable(value);
  }
  return out;
}
