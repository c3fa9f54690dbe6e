// The one response a streamed reply's chunks add up to: a port of axllm 25.4.6's
// `fold_chat_response_stream` over neutral (snake_case) chunks, so that the studio's
// `verify` (which folds the stored chunks with axllm) finds the stored response equal.

function appendThoughtBlocks(existing, incoming) {
  for (const block of incoming) {
    const copy = { ...block };
    const encrypted = block.encrypted ?? false;
    const signature = block.signature ?? '';
    if (encrypted && !signature) {
      existing.push(copy);
      continue;
    }
    const last = existing.length ? existing[existing.length - 1] : {};
    const merge =
      existing.length > 0 &&
      !last.signature &&
      (last.encrypted ?? false) === encrypted &&
      Object.hasOwn(block, 'encrypted') &&
      !(block.id || block.phase);
    if (merge) {
      last.data = (last.data ?? '') + (block.data ?? '');
      if (signature) last.signature = signature;
    } else {
      existing.push(copy);
    }
  }
}

function foldChunk(target, chunk) {
  if (chunk.decisionContext != null) target.decisionContext = chunk.decisionContext;
  if (typeof chunk.content === 'string') target.content = (target.content ?? '') + chunk.content;
  if (typeof chunk.thought === 'string') target.thought = (target.thought ?? '') + chunk.thought;
  const blocks = chunk.thoughtBlocks ?? chunk.thought_blocks;
  if (Array.isArray(blocks)) {
    const targetBlocks = target.thought_blocks ?? [];
    appendThoughtBlocks(targetBlocks, blocks);
    target.thought_blocks = targetBlocks;
    if (typeof target.thought === 'string') {
      target.thought = targetBlocks.filter((b) => !(b.encrypted ?? false)).map((b) => b.data ?? '').join('');
    }
  }
  const deltas = chunk.functionCalls ?? chunk.function_calls ?? [];
  const calls = target.function_calls ?? [];
  for (const delta of deltas) {
    const existing = calls.findLast((c) => (c.id ?? null) === (delta.id ?? null));
    if (!existing) {
      calls.push(delta);
      continue;
    }
    const fn = existing.function ?? {};
    const deltaFn = delta.function ?? {};
    if (typeof deltaFn.name === 'string' && deltaFn.name) fn.name = (fn.name ?? '') + deltaFn.name;
    const params = deltaFn.params;
    if (typeof params === 'string' && params) fn.params = (fn.params ?? '') + params;
    if (params !== null && typeof params === 'object') fn.params = params;
    existing.function = fn;
  }
  target.function_calls = calls;
  const finish = chunk.finishReason ?? chunk.finish_reason;
  if (typeof finish === 'string' && finish) target.finish_reason = finish;
}

/** The fold of neutral chunks (deep-copied first: the fold mutates what it appends). */
export function foldChunks(chunks) {
  const results = [];
  let usage = null;
  for (const raw of structuredClone(chunks)) {
    const event = raw && Object.hasOwn(raw, 'routing') && Object.hasOwn(raw, 'response') ? raw.response : raw;
    for (const chunk of event?.results ?? []) {
      const index = chunk.index ?? 0;
      let target = results.findLast((r) => r.index === index);
      if (!target) {
        target = { index, content: '', function_calls: [] };
        results.push(target);
      }
      foldChunk(target, chunk);
    }
    const eventUsage = event?.modelUsage ?? event?.model_usage;
    if (eventUsage != null) usage = eventUsage;
  }
  const response = { results };
  if (usage != null) response.model_usage = usage;
  return response;
}
