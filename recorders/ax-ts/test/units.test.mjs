// The recorder's parts on their own: canonical JSON and digests equal to the studio's
// Python (expected values computed with axmem_gui.core.session.digest), the camelCase <->
// neutral mapping, the stream fold, secret scrubbing, the unified diff.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { canonicalJson, requestDigest } from '../src/json.js';
import { foldChunks } from '../src/fold.js';
import { fromNeutral, toNeutral } from '../src/neutral.js';
import { redactUrl, scrubSecrets } from '../src/scrub.js';
import { unifiedDiff } from '../src/diff.js';
import { stageOf, TurnCounter } from '../src/stages.js';

test('canonical JSON is the studio canonical JSON, number by number', () => {
  const value = { b: 1, a: [1.5, 1e-5, 2.5e-7, 1e21, 10000000000000000, 0.1, -0.0001], é: 'ü\u2028\n"\\\t\u0001', '\u{1F600}': 1, '\uffff': 2 };
  // From Python: canonical_json(...) of the same value.
  assert.equal(canonicalJson(value), '{"a":[1.5,1e-05,2.5e-07,1e+21,10000000000000000,0.1,-0.0001],"b":1,"é":"ü\u2028\\n\\"\\\\\\t\\u0001","\uffff":2,"\u{1F600}":1}');
});

test('a request digest is the one the studio computes', () => {
  const request = {
    chat_prompt: [{ role: 'system', content: 'Sys', cache: false }, { role: 'user', content: 'Q: \u{1F600}' }],
    functions: [],
    response_format: { type: 'json_schema', schema: { x: 1 } },
    model_config: { temperature: 0 },
  };
  assert.equal(requestDigest(request), 'sha256:439c042d55d15e17d7663e5595240c969dcccea52fcc912bc9cd5904e50732b1');
  assert.equal(requestDigest({ ...request, model_config: { temperature: 1 } }), requestDigest(request), 'model settings are not in the digest');
});

test('Ax requests and responses map to the neutral shape and back, user data untouched', () => {
  const request = {
    chatPrompt: [{ role: 'assistant', functionCalls: [{ id: 'c1', type: 'function', function: { name: 'f', params: { someArg: 1 } } }] }, { role: 'function', functionId: 'c1', result: 'ok', isError: false }],
    functions: [{ name: 'f', description: 'd', parameters: { type: 'object', properties: { someArg: { type: 'number' } } } }],
    functionCall: 'auto',
    responseFormat: { type: 'json_schema', schema: { name: 'output', schema: { properties: { javascriptCode: { type: 'string' } } } } },
    modelConfig: { maxTokens: 10, topP: 0.5 },
  };
  const neutral = toNeutral(request);
  assert.deepEqual(Object.keys(neutral), ['chat_prompt', 'functions', 'function_call', 'response_format', 'model_config']);
  assert.deepEqual(neutral.chat_prompt[0].function_calls[0].function.params, { someArg: 1 });
  assert.equal(neutral.chat_prompt[1].function_id, 'c1');
  assert.deepEqual(neutral.functions[0].parameters, request.functions[0].parameters);
  assert.deepEqual(neutral.response_format, request.responseFormat);
  assert.deepEqual(neutral.model_config, { max_tokens: 10, top_p: 0.5 });
  assert.deepEqual(fromNeutral(neutral), request);
  const response = { results: [{ index: 0, content: 'x', finishReason: 'stop' }], modelUsage: { ai: 'a', model: 'm', tokens: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } }, remoteId: 'r' };
  assert.deepEqual(toNeutral(response), { results: [{ index: 0, content: 'x', finish_reason: 'stop' }], model_usage: { ai: 'a', model: 'm', tokens: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }, remote_id: 'r' });
});

test('streamed chunks fold like axllm folds them', () => {
  const chunks = [
    { results: [{ index: 0, content: 'Hel', function_calls: [{ id: 'c', type: 'function', function: { name: 'out', params: '{"a"' } }] }] },
    { results: [{ index: 0, content: 'lo', function_calls: [{ id: 'c', function: { params: ':1}' } }] }] },
    { results: [{ index: 0, finish_reason: 'stop' }], model_usage: { tokens: { prompt_tokens: 3 } } },
  ];
  assert.deepEqual(foldChunks(chunks), {
    results: [{ index: 0, content: 'Hello', function_calls: [{ id: 'c', type: 'function', function: { name: 'out', params: '{"a":1}' } }], finish_reason: 'stop' }],
    model_usage: { tokens: { prompt_tokens: 3 } },
  });
  assert.equal(chunks[0].results[0].function_calls[0].function.params, '{"a"', 'the chunks themselves are not changed');
});

test('secrets are scrubbed the way the studio scrubs them', () => {
  const doc = { prompt: 'key sk-abcdefgh123 here', error: { message: 'bad key: loc' }, text: 'a local word', url: redactUrl('https://u:p@host/v1?key=abc&x=1') };
  assert.deepEqual(scrubSecrets(doc, ['sk-abcdefgh123', 'loc']), {
    prompt: 'key [redacted] here',
    error: { message: 'bad key: [redacted]' },
    text: 'a local word',
    url: 'https://host/v1?key=[redacted]&x=1',
  });
});

test('stages are told apart by the system prompt, turns counted per stage', () => {
  const req = (system) => ({ chat_prompt: [{ role: 'system', content: system }] });
  assert.equal(stageOf(req('You (`executor`) are the task-execution stage')), 'actor.executor');
  assert.equal(stageOf(req('You are the context-map Cartographer')), 'context_map.cartographer');
  assert.equal(stageOf(req('plain')), 'other');
  const turns = new TurnCounter();
  assert.deepEqual(['actor.distiller', 'actor.distiller', 'llmQuery', 'responder'].map((s) => turns.next(0, s)), [0, 1, 1, 0]);
});

test('the unified diff marks what changed, with context', () => {
  assert.equal(unifiedDiff('a\nb\nc', 'a\nB\nc', 'old', 'new'), '--- old\n+++ new\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n');
  assert.equal(unifiedDiff('same', 'same', 'x', 'y'), '');
});

test('credential-named environment variables are secrets by default', async () => {
  const { environmentSecrets } = await import('../src/scrub.js');
  assert.deepEqual(environmentSecrets({ OPENAI_APIKEY: 'sk-1234567890', HOME: '/root/somewhere', SHORT_TOKEN: 'abc', GH_TOKEN: 'ghp_abcdefghij' }), ['sk-1234567890', 'ghp_abcdefghij']);
});
