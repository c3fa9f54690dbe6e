// Shared by the recorder's tests: a guard that counts (and refuses) every outgoing TCP
// connection and fetch while it is on, and a recording of the example agent against the
// scripted server.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { AxAgentContextMap, agent, ai } from '@ax-llm/ax';

import { AxSessionRecorder } from '../index.js';
import { QUESTIONS, SIGNATURE, triageOptions } from '../example/triage-agent.mjs';
import { ScriptedServer } from './scripted-server.mjs';

export const API_KEY = 'sk-scripted-test-key-0001';

/** Counts TCP connections and fetch calls; `block()` makes both fail while on. */
export class NetworkGuard {
  constructor() {
    this.connections = 0;
    this.fetches = 0;
    this.blocking = false;
    const guard = this;
    this.originalConnect = net.Socket.prototype.connect;
    this.originalFetch = globalThis.fetch;
    net.Socket.prototype.connect = function guardedConnect(...args) {
      guard.connections += 1;
      if (guard.blocking) throw new Error('network blocked by the test (NetworkGuard)');
      return guard.originalConnect.apply(this, args);
    };
    globalThis.fetch = async (...args) => {
      guard.fetches += 1;
      if (guard.blocking) throw new Error('network blocked by the test (NetworkGuard)');
      return guard.originalFetch(...args);
    };
  }

  block() {
    this.blocking = true;
    this.connections = 0;
    this.fetches = 0;
  }

  restore() {
    net.Socket.prototype.connect = this.originalConnect;
    globalThis.fetch = this.originalFetch;
  }
}

export function tempFile(name) {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'axrec-')), name);
}

export const freshMap = () => new AxAgentContextMap(undefined, { maxChars: 1600 });

/** Record the example agent answering QUESTIONS; returns the recorder and what happened. */
export async function recordExample({ file, stream = true, id, recorderOptions = {}, faults = {}, questions = QUESTIONS, plainCode = false } = {}) {
  const server = await new ScriptedServer().start();
  server.plainCode = plainCode;
  for (const [n, fault] of Object.entries(faults)) server.faults.set(Number(n), fault);
  try {
    const rec = new AxSessionRecorder({ file, name: 'triage example', id, ...recorderOptions });
    const llm = rec.wrapAI(ai({ name: 'openai', apiKey: API_KEY, apiURL: server.baseURL, config: { model: 'scripted-a', stream } }));
    const triage = rec.agent(agent, SIGNATURE, triageOptions({ directoryURL: server.directoryURL, map: freshMap() }), 'triage');
    const outputs = [];
    const callTimes = [];
    for (const question of questions) {
      const t0 = performance.now();
      outputs.push(await triage.forward(llm, { question }));
      callTimes.push(performance.now() - t0);
    }
    return { rec, outputs, server, callTimes, chatRequests: server.requests.length, directoryCalls: server.directoryCalls };
  } finally {
    await server.stop();
  }
}

export { AxAgentContextMap, agent, ai, QUESTIONS, SIGNATURE, triageOptions };
