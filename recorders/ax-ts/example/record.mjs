#!/usr/bin/env node
// Record the example agent answering its two questions.
//
//   node example/record.mjs --out sessions/triage.axsession.json            (scripted model)
//   node example/record.mjs --out my.axsession.json --base-url URL --model M --api-key-env VAR
//
// The team directory the function tool asks is the scripted server's (it also plays the
// model unless --base-url names a real OpenAI-compatible one). `make recorder-fixture`
// regenerates example/sessions/triage.axsession.json, the session the studio's tests import,
// and, with --plain-code, triage-plain-code.axsession.json (actors answer with bare code).
import { parseArgs } from 'node:util';

import { AxAgentContextMap, agent, ai } from '@ax-llm/ax';

import { AxSessionRecorder } from '../index.js';
import { ScriptedServer } from '../test/scripted-server.mjs';
import { QUESTIONS, SIGNATURE, triageOptions } from './triage-agent.mjs';

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    id: { type: 'string' },
    'base-url': { type: 'string' },
    model: { type: 'string', default: 'scripted-a' },
    'api-key-env': { type: 'string' },
    'plain-code': { type: 'boolean', default: false },
  },
});
if (!values.out) {
  console.error('usage: node example/record.mjs --out FILE [--id ID] [--base-url URL --model M --api-key-env VAR]');
  process.exit(2);
}

const server = await new ScriptedServer().start();
// --plain-code: the scripted actors answer with bare code, no label and no JSON (Ax runs it).
server.plainCode = values['plain-code'];
try {
  const apiKey = values['api-key-env'] ? process.env[values['api-key-env']] : 'scripted-placeholder-key';
  if (!apiKey) throw new Error(`environment variable ${values['api-key-env']} is not set`);
  const rec = new AxSessionRecorder({ file: values.out, id: values.id, name: 'triage example' });
  const llm = rec.wrapAI(ai({ name: 'openai', apiKey, apiURL: values['base-url'] ?? server.baseURL, config: { model: values.model } }));
  const triage = rec.agent(agent, SIGNATURE, triageOptions({ directoryURL: server.directoryURL, map: new AxAgentContextMap(undefined, { maxChars: 1600 }) }), 'triage');
  for (const question of QUESTIONS) {
    const { answer } = await triage.forward(llm, { question });
    console.log(`${question}\n  -> ${answer}`);
  }
  const saved = rec.save();
  if (!saved.ok) throw new Error(saved.error);
  console.log(`recorded ${rec.exchanges.length} model calls in ${values.out}`);
} finally {
  await server.stop();
}
