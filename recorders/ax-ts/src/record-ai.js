// The recording AI service: wraps the app's AxAIService at Ax's provider-neutral level.
// Every chat() call becomes an exchange (request, response or error, timing, usage, the
// effective request parameters); a streamed reply is passed through chunk by chunk and
// recorded as its chunks plus their fold. Recording problems are warnings: the agent gets
// exactly what the wrapped service returned, or exactly its error.
import { performance } from 'node:perf_hooks';

import { describeError } from './errors.js';
import { foldChunks } from './fold.js';
import { jsonable, requestDigest, sameJson } from './json.js';
import { fromNeutral, toNeutral } from './neutral.js';
import { stageOf } from './stages.js';

const isStream = (value) => typeof ReadableStream !== 'undefined' && value instanceof ReadableStream;

/** The delegating part of AxAIService, shared by the recording and the replaying service. */
export const DELEGATED = [
  'getId', 'getName', 'getFeatures', 'getModelList', 'getMetrics', 'getLogger',
  'getLastUsedChatModel', 'getLastUsedEmbedModel', 'getLastUsedModelConfig',
  'embed', 'transcribe', 'speak', 'getEstimatedCost', 'setOptions', 'getOptions',
];

export function tokenUsage(neutralResponse) {
  const tokens = neutralResponse?.model_usage?.tokens;
  if (!tokens || typeof tokens !== 'object') return null;
  const out = {};
  for (const key of ['prompt_tokens', 'completion_tokens', 'total_tokens']) {
    if (Number.isInteger(tokens[key])) out[key] = tokens[key];
  }
  return out;
}

/** Neutral form of an Ax value, with the verbatim Ax form kept beside it when the key
 * mapping would not give it back exactly (so a replay serves what Ax returned). */
function neutralWithOriginal(value) {
  const plain = jsonable(value);
  const neutral = toNeutral(plain);
  return { neutral, original: sameJson(fromNeutral(neutral), plain) ? undefined : plain };
}

/** The request parameters that decide how the model answers, provider-neutral. */
function effectiveParams(inner, request, options, streamed) {
  const safe = (fn) => {
    try {
      return fn();
    } catch {
      return undefined;
    }
  };
  const config = toNeutral(jsonable({ ...(safe(() => inner.getLastUsedModelConfig?.()) ?? {}), ...(request.modelConfig ?? {}) }));
  const model = request.model ?? safe(() => inner.getLastUsedChatModel?.()) ?? null;
  return {
    model: model == null ? null : String(model),
    temperature: typeof config.temperature === 'number' ? config.temperature : null,
    max_tokens: Number.isInteger(config.max_tokens) ? config.max_tokens : null,
    stream: streamed,
    tool_choice: jsonable(request.functionCall ?? null),
    model_config: config,
    ...(options?.functionCallMode ? { function_call_mode: String(options.functionCallMode) } : {}),
  };
}

export class RecordingAIService {
  constructor(recorder, inner) {
    this.recorder = recorder;
    this.inner = inner;
    for (const name of DELEGATED) {
      if (typeof inner[name] === 'function') this[name] = (...args) => inner[name](...args);
    }
    if (typeof inner.validateChatRequest === 'function') {
      this.validateChatRequest = (req, opts) => inner.validateChatRequest(req, opts);
    }
    // openChatSession / resolveChatService are not offered: a chat session would bypass
    // chat(), and Ax falls back to chat() when a service has neither.
  }

  async chat(request, options) {
    const rec = this.recorder;
    const started = performance.now();
    const ex = rec.guard(() => this.begin(request, options), null);
    let result;
    try {
      result = await this.inner.chat(request, options);
    } catch (error) {
      if (ex) rec.guard(() => this.fail(ex, error, started));
      throw error;
    }
    if (!ex) return result;
    // Read now: a later call changes what the service reports as last used.
    rec.guard(() => {
      ex.params = effectiveParams(this.inner, request, options, isStream(result));
    });
    if (isStream(result)) return this.tee(ex, result, started);
    rec.guard(() => this.finish(ex, result, started));
    return result;
  }

  begin(request, options) {
    const t0 = performance.now();
    const rec = this.recorder;
    const neutral = toNeutral(jsonable(request));
    const where = rec.place();
    const stage = stageOf(neutral);
    const ex = rec.addExchange({
      index: -1,
      forward: where.forward,
      stage,
      turn: rec.turns.next(where.forward, stage),
      digest: requestDigest(neutral),
      request: neutral,
      response: null,
      error: null,
      started_at: new Date().toISOString(),
    });
    if (ex) rec.noteCall(ex);
    rec.overhead(t0);
    return ex;
  }

  finish(ex, response, started) {
    const t0 = performance.now();
    const { neutral, original } = neutralWithOriginal(response);
    ex.response = neutral;
    if (original) ex.response_ax = original;
    ex.usage = tokenUsage(neutral);
    ex.duration_ms = Math.round((performance.now() - started) * 1000) / 1000;
    this.recorder.exchangeDone(ex);
    this.recorder.overhead(t0);
  }

  fail(ex, error, started, chunks) {
    ex.error = describeError(error);
    if (chunks) {
      ex.stream = true;
      ex.chunks = chunks.map((c) => c.neutral);
    }
    ex.duration_ms = Math.round((performance.now() - started) * 1000) / 1000;
    this.recorder.exchangeDone(ex);
  }

  finishStream(ex, chunks, started) {
    const t0 = performance.now();
    ex.stream = true;
    ex.chunks = chunks.map((c) => c.neutral);
    if (chunks.some((c) => c.original)) ex.chunks_ax = chunks.map((c) => c.original ?? fromNeutral(c.neutral));
    ex.response = foldChunks(ex.chunks);
    ex.usage = tokenUsage(ex.response);
    ex.duration_ms = Math.round((performance.now() - started) * 1000) / 1000;
    this.recorder.exchangeDone(ex);
    this.recorder.overhead(t0);
  }

  tee(ex, stream, started) {
    const rec = this.recorder;
    const reader = stream.getReader();
    const chunks = [];
    let settled = false;
    const settle = (fn) => {
      if (!settled) {
        settled = true;
        rec.guard(fn);
      }
    };
    ex.pending = () => settle(() => this.finishStream(ex, chunks, started));
    return new ReadableStream({
      pull: async (controller) => {
        let step;
        try {
          step = await reader.read();
        } catch (error) {
          settle(() => this.fail(ex, error, started, chunks));
          controller.error(error);
          return;
        }
        if (step.done) {
          settle(() => this.finishStream(ex, chunks, started));
          controller.close();
          return;
        }
        // Copied before Ax sees it: Ax merges later deltas into the first chunk's objects.
        rec.guard(() => {
          const t0 = performance.now();
          chunks.push(neutralWithOriginal(step.value));
          rec.overhead(t0);
        });
        controller.enqueue(step.value);
      },
      cancel: (reason) => {
        settle(() => this.finishStream(ex, chunks, started));
        return reader.cancel(reason);
      },
    });
  }
}
