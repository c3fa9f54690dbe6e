// Ax TypeScript's AxChatRequest / AxChatResponse (camelCase) <-> the studio's provider-
// neutral shape (axllm's, snake_case). axllm is the Python port of the same code, and its
// request and response dicts are the TypeScript objects with every structural key written
// in snake_case (chatPrompt -> chat_prompt, functionCalls -> function_calls, finishReason ->
// finish_reason, modelUsage.tokens.promptTokens -> model_usage.tokens.prompt_tokens...).
// User data is never renamed: JSON schemas (`parameters`, `response_format`, `returns`),
// function-call arguments (`params`) and provider metadata are copied as they are.

const OPAQUE = new Set(['parameters', 'params', 'response_format', 'provider_metadata', 'protocol_result', 'returns']);
const CAMEL = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/;
const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z][a-z0-9]*)+$/;

export const snakeKey = (key) => (CAMEL.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : key);
export const camelKey = (key) => (SNAKE.test(key) ? key.replace(/_([a-z])/g, (_, c) => c.toUpperCase()) : key);

function convert(value, rename, opaqueName) {
  if (Array.isArray(value)) return value.map((item) => convert(item, rename, opaqueName));
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [key, item] of Object.entries(value)) {
    const renamed = rename(key);
    out[renamed] = OPAQUE.has(opaqueName(key, renamed)) ? item : convert(item, rename, opaqueName);
  }
  return out;
}

/** Neutral (snake_case) form of plain-JSON Ax TypeScript data. */
export function toNeutral(value) {
  return convert(value, snakeKey, (_key, renamed) => renamed);
}

/** Ax TypeScript (camelCase) form of neutral data. */
export function fromNeutral(value) {
  return convert(value, camelKey, (key) => key);
}
