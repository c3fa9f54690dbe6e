// What the real @ax-llm/ax does with agent signatures (`make golden`): for each signature
// of a JSON list, null when `agent(signature, ...)` builds, else the error it throws.
// tests/core/session/test_signature_runtimes.py compares the studio's check with it.
//
//   node tools/golden/signatures.mjs --ax build/ax-npm --cases CASES.json --out OUT.json
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, v, i, all) => (i % 2 ? acc : [...acc, [v.slice(2), all[i + 1]]]), []));
const pkgDir = path.resolve(args.ax, 'node_modules', '@ax-llm', 'ax');
const version = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
const { agent, AxMockAIService } = await import(pathToFileURL(path.join(pkgDir, 'index.js')).href);
const runtime = { language: 'JavaScript', getUsageInstructions: () => '', createSession() { return {}; } };
const signatures = JSON.parse(fs.readFileSync(args.cases, 'utf8'));
const verdicts = {};
for (const signature of signatures) {
  try {
    agent(signature, { ai: new AxMockAIService({}), runtime });
    verdicts[signature] = null;
  } catch (e) {
    verdicts[signature] = String(e?.message ?? e);
  }
}
fs.writeFileSync(args.out, `${JSON.stringify({ package: `@ax-llm/ax@${version}`, node: process.version, verdicts }, null, 1)}\n`);
