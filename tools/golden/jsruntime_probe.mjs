// Runs the turn-rule cases through a real agent with Ax's OWN code runtime (AxJSRuntime), so
// the model's code `await discover({ skills }); await recall(...)` executes as JavaScript:
// the evidence that a throw (a [POLICY] error, or a primitive the agent does not define)
// ends the turn's code, the rule oracle.mjs and the engine follow.
//
//   LC_ALL=C.UTF-8 node tools/golden/jsruntime_probe.mjs --ax build/ax-npm \
//        --cases tests/fixtures/ax_turns/cases.json --out tests/fixtures/ax_turns/jsruntime.json
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
for (const key of ['ax', 'cases', 'out']) if (!args[key]) throw new Error(`missing --${key}`);
const pkgDir = path.resolve(args.ax, 'node_modules', '@ax-llm', 'ax');
const version = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
const { agent, AxMockAIService, AxJSRuntime } = await import(pathToFileURL(path.join(pkgDir, 'index.js')).href);

async function run(c) {
  const discoverCalls = c.discoverCalls ?? [];
  const recallCalls = c.recallCalls ?? [];
  const codes = [];
  for (let t = 0; t < Math.max(discoverCalls.length, recallCalls.length); t++) {
    const lines = [];
    if (t < discoverCalls.length) lines.push(`await discover({ skills: ${JSON.stringify(discoverCalls[t])} });`);
    if (t < recallCalls.length) lines.push(`await recall(${JSON.stringify(recallCalls[t])});`);
    codes.push(lines.join('\n'));
  }
  let turn = 0;
  const llm = new AxMockAIService({
    features: { functions: false, streaming: false },
    chatResponse: async (req) => {
      const system = String(req.chatPrompt.find((m) => m.role === 'system')?.content ?? '');
      const stage = system.includes('You (`distiller`)') ? 'distiller' : system.includes('You (`executor`)') ? 'executor' : 'responder';
      let content = 'Answer: done';
      if (stage === 'distiller') content = JSON.stringify({ javascriptCode: "final('-', {})" });
      if (stage === 'executor') content = JSON.stringify({ javascriptCode: turn < codes.length ? codes[turn++] : "final('done', {})" });
      return { results: [{ index: 0, content, finishReason: 'stop' }], modelUsage: { ai: 'mock', model: 'mock', tokens: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } } };
    },
  });
  const onLoadedSkills = [];
  const onLoadedMemories = [];
  const config = {
    ai: llm, runtime: new AxJSRuntime(), maxTurns: codes.length + 2,
    onLoadedSkills: (r) => { onLoadedSkills.push(structuredClone(r)); },
    onLoadedMemories: (r) => { onLoadedMemories.push(structuredClone(r)); },
  };
  if (c.skills !== undefined) config.skillsCatalog = c.skills;
  if (c.memories !== undefined) config.memoriesCatalog = c.memories;
  if (c.presetSkills !== undefined) config.skills = c.presetSkills;
  const errors = [];
  try {
    const values = { query: c.task ?? 'task' };
    if (c.preloadedMemories !== undefined) values.memories = c.preloadedMemories;
    await agent('query:string -> answer:string', config).forward(llm, values);
  } catch (e) {
    errors.push(String(e?.message ?? e));
  }
  return { id: c.id, code: codes, onLoadedSkills, onLoadedMemories, errors };
}

const cases = JSON.parse(fs.readFileSync(args.cases, 'utf8')).cases;
const out = { provenance: `@ax-llm/ax@${version} on Node ${process.version} (ICU ${process.versions.icu}): agent('query:string -> answer:string') with AxJSRuntime running each turn's code`, cases: [] };
for (const c of cases) out.cases.push(await run(c));
fs.writeFileSync(args.out, `${JSON.stringify(out, null, 1)}\n`);
process.stderr.write(`${out.cases.length} cases -> ${args.out}\n`);
