// Ax's own TypeScript catalog search, timed on the same data as bench/search_bench.py.
//
//   cd bench && npm install --ignore-scripts --no-package-lock
//   python bench/search_bench.py --dump bench/out/data        # synthetic data, seeded
//   node bench/ts_search_bench.mjs --data bench/out/data [--json] [--max-discover 100]
//        [--max-recall 10]
//   python bench/search_bench.py --skills bench/out/data/skills.json \
//        --memories bench/out/data/memories.json --queries bench/out/data/queries.json \
//        --compare ts.json
//
// The package does not export its ranker, so (as the golden-data oracle did) this script
// locates the built-in search factories in the minified bundle by code pattern, appends an
// `export { ... }` line to a COPY of the unmodified bundle inside node_modules, and imports
// that copy. The Available Skills render is timed through the public
// `axBuildExecutorDefinition`. Ax's built-in search re-tokenizes every catalog document on
// every search string (it has no index), so recall over 100,000 memories is timed on the
// first --max-recall calls only.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, arg, i, all) => {
    if (arg.startsWith('--')) acc.push([arg.slice(2), all[i + 1]?.startsWith('--') || all[i + 1] === undefined ? true : all[i + 1]]);
    return acc;
  }, [])
);
const dataDir = args.data ?? 'out/data';
const maxDiscover = Number(args['max-discover'] ?? 100);
const maxRecall = Number(args['max-recall'] ?? 10);

const require = createRequire(import.meta.url);
const pkgDir = path.dirname(require.resolve('@ax-llm/ax'));
const bundlePath = path.join(pkgDir, 'index.js');
const bundle = fs.readFileSync(bundlePath, 'utf8');
const version = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;

function locate(pattern, what) {
  const match = bundle.match(pattern);
  if (!match) throw new Error(`cannot locate ${what} in ${bundlePath} (Ax ${version})`);
  return match[1];
}
const ID = '[\\w$]+';
const skillsFactory = locate(
  new RegExp(`function (${ID})\\((${ID})\\)\\{let ${ID}=\\2\\.map\\((${ID})=>\\(\\{id:\\3\\.id,fields:\\[\\{text:\\3\\.id,identifier:!0\\},\\{text:\\3\\.name,weight:2\\}`),
  'createCatalogSkillsSearch'
);
const memoriesFactory = locate(
  new RegExp(`function (${ID})\\((${ID})\\)\\{return\\((${ID}),(${ID})\\)=>\\{let ${ID}=new Set\\(\\4\\.map\\(`),
  'createCatalogMemoriesSearch'
);
const copyPath = path.join(pkgDir, `.axmem-bench-internals-${version}.mjs`);
fs.writeFileSync(
  copyPath,
  `${bundle}\nexport { ${skillsFactory} as __axmemSkillsSearch, ${memoriesFactory} as __axmemMemoriesSearch };\n`
);
const internals = await import(pathToFileURL(copyPath).href);
const { axBuildExecutorDefinition } = await import('@ax-llm/ax');

const readJson = (name) => JSON.parse(fs.readFileSync(path.join(dataDir, name), 'utf8'));
const skills = readJson('skills.json').skillsCatalog;
const memories = readJson('memories.json').memoriesCatalog;
const queries = readJson('queries.json');

// discover/recall normalise their argument like this before calling the search
const normalize = (list) => [...new Set(list.map((q) => q.trim()).filter(Boolean))];
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const stats = (samples) => {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.max(0, Math.round(q * s.length) - 1))];
  const mean = s.reduce((x, y) => x + y, 0) / s.length;
  return { p50_ms: +at(0.5).toFixed(4), p95_ms: +at(0.95).toFixed(4), mean_ms: +mean.toFixed(4), calls: s.length };
};

let start = process.hrtime.bigint();
const discover = internals.__axmemSkillsSearch(skills);
const buildSkillsMs = ms(start);
start = process.hrtime.bigint();
const recall = internals.__axmemMemoriesSearch(memories);
const buildMs = ms(start);

const discoverTimes = [];
const discoverResults = [];
for (const call of queries.discover.slice(0, maxDiscover)) {
  const searches = normalize(call);
  start = process.hrtime.bigint();
  const found = searches.length ? discover(searches) : [];
  discoverTimes.push(ms(start));
  discoverResults.push(found.map((s) => s.id));
}
const recallTimes = [];
const recallResults = [];
for (const call of queries.recall.slice(0, maxRecall)) {
  const searches = normalize(call);
  start = process.hrtime.bigint();
  const found = searches.length ? recall(searches, []) : [];
  recallTimes.push(ms(start));
  recallResults.push(found.map((m) => m.id));
}

const renderTimes = [];
for (let i = 0; i < 7; i++) {
  start = process.hrtime.bigint();
  axBuildExecutorDefinition(undefined, [], [], {
    skillsCatalog: skills,
    skillsMode: true,
    memoriesMode: memories.length > 0,
    relevanceHintsMode: true,
    isJavaScriptRuntime: true,
  });
  renderTimes.push(ms(start));
}

const report = {
  package: `@ax-llm/ax@${version}`,
  node: process.version,
  skills: skills.length,
  memories: memories.length,
  discover: stats(discoverTimes),
  recall: stats(recallTimes),
  render_ms: +[...renderTimes].sort((a, b) => a - b)[3].toFixed(3),
  render_first_ms: +renderTimes[0].toFixed(3),
  build_ms: +buildMs.toFixed(3),
  build_skills_ms: +buildSkillsMs.toFixed(3),
  discoverResults,
  recallResults,
};
fs.rmSync(copyPath, { force: true });
if (args.json) {
  console.log(JSON.stringify(report));
} else {
  const { discover: d, recall: r } = report;
  console.log(`Ax ${version} (TypeScript, ${process.version}): ${report.skills} skills, ${report.memories} memories`);
  console.log(`discover: p50 ${d.p50_ms} ms  p95 ${d.p95_ms} ms  mean ${d.mean_ms} ms  (${d.calls} calls)`);
  console.log(`recall:   p50 ${r.p50_ms} ms  p95 ${r.p95_ms} ms  mean ${r.mean_ms} ms  (${r.calls} calls)`);
  console.log(`render (axBuildExecutorDefinition): ${report.render_ms} ms (first ${report.render_first_ms} ms)`);
  console.log(`build (search factory): memories ${report.build_ms} ms, skills ${report.build_skills_ms} ms`);
}
