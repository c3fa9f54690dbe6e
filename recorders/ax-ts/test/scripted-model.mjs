// A deterministic stand-in for an LLM, driven only by the prompt it receives: the Node port
// of axmem_gui/engine/scripted_model.py (the studio's scripted model), plus one thing the
// studio's agents never do: an executor that calls the first function tool it is offered.
// The distiller discovers skills with the request as the search, recalls memories, then
// hands over with final(); the executor calls a tool, declares the first memory used, and
// finishes; the responder answers every output field; the context-map Distiller and
// Cartographer propose small edits.
import { messageText, stageOf as stageOfRequest } from '../src/stages.js';

export { messageText };

/** The stage of a chat-completions message list (the recorder's own stage rules). */
export const stageOf = (messages) => stageOfRequest({ chat_prompt: messages });

const FIELD_LINE = /^([A-Z][A-Za-z0-9 ]*): ?(.*)$/;

function userFields(user) {
  const fields = {};
  let current = null;
  let previous = '';
  for (const line of user.split('\n')) {
    const match = FIELD_LINE.exec(line);
    const starts = match !== null && (current === null || previous.trim() === '');
    if (match && starts && match[1] !== 'ID' && match[1] !== 'Result') {
      current = match[1];
      fields[current] = [match[2]];
    } else if (current !== null) {
      fields[current].push(line);
    }
    previous = line;
  }
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.join('\n').trim()]));
}

const js = (text) => JSON.stringify(text);

function firstValue(fields) {
  for (const value of Object.values(fields)) if (value) return value.split('\n', 1)[0].slice(0, 160);
  return 'the request';
}

function distiller(system, user) {
  const fields = userFields(user);
  const request = firstValue(fields);
  const actions = fields['Action Log'] ?? '';
  const canDiscover = system.includes('### Available Skills') || system.includes('`await discover(request: { skills');
  if (canDiscover && !('Loaded Skills' in fields) && !actions.includes('discover')) {
    return { javascriptCode: `await discover({ skills: [${js(request)}] });` };
  }
  if (system.includes('`recall`') && !('Memories' in fields) && !actions.includes('recall(')) {
    return { javascriptCode: `await recall([${js(request)}]);` };
  }
  const evidence = { request, skills_loaded: 'Loaded Skills' in fields };
  return { javascriptCode: `await final(${js(`Answer: ${request}`)}, ${JSON.stringify(evidence)});` };
}

// The first user function the executor prompt lists, as `namespace.name`.
const TOOL = /^`([a-z][A-Za-z0-9_]*\.[A-Za-z][A-Za-z0-9_]*)\(args/m;
const MEMORY_ID = /^ID: `([^`]+)`/gm;

function executor(system, user) {
  const fields = userFields(user);
  const actions = fields['Action Log'] ?? '';
  const tool = TOOL.exec(system)?.[1];
  if (tool && !actions.includes(`${tool}(`)) {
    return { javascriptCode: `const found = await ${tool}({ service: 'checkout' });\nconsole.log(JSON.stringify(found));` };
  }
  const memoryIds = [...(fields.Memories ?? '').matchAll(MEMORY_ID)].map((m) => m[1]);
  if (memoryIds.length && system.includes('used(') && !actions.includes('used(')) {
    return { javascriptCode: `await used(${js(memoryIds[0])}, 'it answered part of the request');\nconsole.log('noted');` };
  }
  const task = fields['Executor Request'] ?? 'Answer the request';
  return { javascriptCode: `await final(${js(task)}, { memories: ${JSON.stringify(memoryIds)} });` };
}

function responder(system, user) {
  const request = firstValue(userFields(user));
  const keys = [...system.matchAll(/\(wire key: `([A-Za-z0-9_]+)`\)/g)].map((m) => m[1]);
  return Object.fromEntries((keys.length ? keys : ['answer']).map((k) => [k, `Short answer to: ${request}`]));
}

const MAP_ITEM = /\[([a-z]{2}-\d{5})\]/g;

function mapItems(user) {
  const items = [...new Set([...(userFields(user)['Context Map'] ?? '').matchAll(MAP_ITEM)].map((m) => m[1]))].sort();
  return items.sort((a, b) => Number(!a.startsWith('cu-')) - Number(!b.startsWith('cu-')) || (a < b ? -1 : a > b ? 1 : 0));
}

function mapDistiller(user) {
  const items = mapItems(user);
  if (!items.length) {
    return {
      diagnosis: 'Orientation: requests are operational questions answered from skill guides and team memories.',
      itemTags: {},
      cacheCandidates: [{ section: 'context_understanding', value: 'Requests concern releases, deploys and incidents', transferability: 'high', rationale: 'Every later request is about the same platform' }],
    };
  }
  return {
    diagnosis: `Reused ${items[0]}; the other items were not needed this time.`,
    itemTags: Object.fromEntries(items.map((item, i) => [item, i === 0 ? 'helpful' : 'neutral'])),
    cacheCandidates: [{ section: 'reusable_results', value: 'Owners are looked up with the directory tool', transferability: 'medium', rationale: 'The same lookup recurs for every incident' }],
  };
}

function mapCartographer(user) {
  const items = mapItems(user);
  if (!items.length) {
    return {
      operations: [
        { type: 'ADD', section: 'context_understanding', content: 'Requests concern releases, deploys and incidents' },
        { type: 'ADD', section: 'context_roadmap', content: 'Skill guides hold procedures; memories hold team facts' },
      ],
    };
  }
  return {
    operations: [
      { type: 'REPLACE', item_id: items[0], content: 'Requests concern releases, deploys, incidents and their owners' },
      { type: 'ADD', section: 'reusable_results', content: 'Look owners up with the directory tool before answering' },
    ],
  };
}

export function scriptedFields(messages) {
  const stage = stageOf(messages);
  const system = messages.filter((m) => m.role === 'system').map((m) => messageText(m.content)).join('\n');
  const user = messages.filter((m) => m.role === 'user').map((m) => messageText(m.content)).join('\n');
  switch (stage) {
    case 'actor.distiller': return distiller(system, user);
    case 'actor.executor': return executor(system, user);
    case 'responder': return responder(system, user);
    case 'context_map.distiller': return mapDistiller(user);
    case 'context_map.cartographer': return mapCartographer(user);
    case 'llmQuery': return { answer: 'scripted sub-answer' };
    default: return { answer: '(unrecognised prompt)' };
  }
}

const fieldLines = (fields) =>
  Object.entries(fields).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join('\n');

/** An OpenAI chat-completions response body for an OpenAI wire request body. `plainCode`:
 * an actor answers with its code alone (no label, no JSON), as many models do and Ax accepts;
 * every other actor turn puts it in a ```javascript fence. */
export function openaiResponse(body, counter, { plainCode = false } = {}) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const fields = scriptedFields(messages);
  const forced = body.tool_choice && typeof body.tool_choice === 'object' ? body.tool_choice.function?.name : undefined;
  let message;
  let finish;
  let text;
  if (forced) {
    text = JSON.stringify(fields);
    message = { role: 'assistant', content: null, tool_calls: [{ id: `call_${counter}`, type: 'function', function: { name: forced, arguments: text } }] };
    finish = 'tool_calls';
  } else if (plainCode && typeof fields.javascriptCode === 'string' && Object.keys(fields).length === 1) {
    text = counter % 2 ? fields.javascriptCode : `\`\`\`javascript\n${fields.javascriptCode}\n\`\`\``;
    message = { role: 'assistant', content: text };
    finish = 'stop';
  } else {
    text = body.response_format ? JSON.stringify(fields) : fieldLines(fields);
    message = { role: 'assistant', content: text };
    finish = 'stop';
  }
  const promptChars = messages.reduce((n, m) => n + messageText(m.content).length, 0);
  const completion = Math.max(1, Math.floor(text.length / 4));
  return {
    id: `chatcmpl-scripted-${counter}`,
    object: 'chat.completion',
    model: body.model ?? 'scripted-a',
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: { prompt_tokens: Math.floor(promptChars / 4), completion_tokens: completion, total_tokens: Math.floor(promptChars / 4) + completion },
  };
}
