// A scripted OpenAI-compatible chat-completions server on 127.0.0.1 (an ephemeral port): the
// Node counterpart of tests/fakes/fake_openai_server.py. Replies come from the scripted model;
// `faults` makes chosen requests fail the way real servers do (HTTP 500); `stream: true`
// requests are answered as SSE chunks. Every TCP connection and every request is counted, so
// a test can prove that an offline replay opened none.
import http from 'node:http';

import { openaiResponse } from './scripted-model.mjs';

function sseChunks(reply) {
  const choice = reply.choices[0];
  const base = { id: reply.id, object: 'chat.completion.chunk', model: reply.model };
  const chunks = [];
  const { content, tool_calls: calls } = choice.message;
  if (calls) {
    const call = calls[0];
    const args = call.function.arguments;
    const half = Math.floor(args.length / 2);
    chunks.push({ ...base, choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: args.slice(0, half) } }] } }] });
    chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] } }] });
  } else {
    const half = Math.floor(content.length / 2);
    chunks.push({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: content.slice(0, half) } }] });
    chunks.push({ ...base, choices: [{ index: 0, delta: { content: content.slice(half) } }] });
  }
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }], usage: reply.usage });
  return chunks;
}

export class ScriptedServer {
  constructor() {
    this.requests = [];
    this.connections = 0;
    this.directoryCalls = 0;
    this.faults = new Map(); // request number (1-based) -> '500' | '401-echo'
    this.plainCode = false; // actors answer with bare code (scripted-model.mjs openaiResponse)
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.on('connection', () => {
      this.connections += 1;
    });
  }

  async start() {
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get origin() {
    const { address, port } = this.server.address();
    return `http://${address}:${port}`;
  }

  get baseURL() {
    return `${this.origin}/v1`;
  }

  get directoryURL() {
    return `${this.origin}/directory`;
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  handle(req, res) {
    const parts = [];
    req.on('data', (chunk) => parts.push(chunk));
    req.on('end', () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'request body is not JSON' } }));
        return;
      }
      const directory = /\/directory\/owners\/([^/?]+)$/.exec(req.url);
      if (req.method === 'GET' && directory) {
        // The example agent's function tool asks this "team directory".
        this.directoryCalls += 1;
        const service = decodeURIComponent(directory[1]);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ service, team: service === 'checkout' ? 'team-payments' : 'team-unknown', oncall: 'dana' }));
        return;
      }
      const number = this.requests.length + 1;
      this.requests.push({ number, path: req.url, headers: req.headers, body });
      if (!req.url.replace(/\/+$/, '').endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'only /v1/chat/completions' } }));
        return;
      }
      if (this.faults.get(number) === '401-echo') {
        // Some servers quote the credential they refused; it must not reach a session file.
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `invalid api key: ${req.headers.authorization ?? ''}` } }));
        return;
      }
      if (this.faults.get(number) === '500') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'internal error (scripted)', type: 'server_error' } }));
        return;
      }
      const reply = openaiResponse(body, number, { plainCode: this.plainCode });
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const chunk of sseChunks(reply)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  }
}
