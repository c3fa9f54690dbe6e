// The Ax oracle: runs a case file (tests/golden/ax-24.0.21/cases.json format) through the
// published TypeScript package @ax-llm/ax and writes what the package produced, in the format
// of expected.json. Nothing here decides an answer: every rendered text comes from a real
// `agent(...)` forward (scripted model and runtime, prompts captured) or from the package's
// own internal helpers.
//
//   node tools/golden/oracle.mjs --ax <dir holding node_modules/@ax-llm/ax> \
//        --cases CASES.json --out EXPECTED.json
//
// The package does not export its ranker or renderers, so (like bench/ts_search_bench.mjs)
// this script locates them in the minified bundle by code pattern, appends an `export {...}`
// line to a COPY of the unmodified bundle and imports that copy. A pattern that is not found
// stops the run with a message naming it: a new Ax release cannot silently change the oracle.
// A small independent re-implementation of the ranking (`reimplRank`) runs alongside the
// package's and every disagreement is reported in `reimplMismatches`.
//
// Run it with LC_ALL=C.UTF-8 (Node then collates with ICU en-US): `make golden` does.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    if (!key.startsWith('--')) throw new Error(`unexpected argument ${key}`);
    out[key.slice(2)] = key === '--serve' ? true : argv[++i];
  }
  const need = out.serve ? ['ax'] : ['ax', 'cases', 'out'];
  for (const key of need) {
    if (!out[key]) throw new Error(`missing --${key} (usage: oracle.mjs --ax DIR (--cases CASES.json --out OUT.json | --serve))`);
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
const pkgDir = path.resolve(args.ax, 'node_modules', '@ax-llm', 'ax');
const bundlePath = path.join(pkgDir, 'index.js');
if (!fs.existsSync(bundlePath)) throw new Error(`@ax-llm/ax is not installed under ${args.ax} (no ${bundlePath})`);
const version = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
const bundle = fs.readFileSync(bundlePath, 'utf8');

// ------------------------------------------------------------------ package internals
const ID = '[\\w$]+';
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
function locate(what, source) {
  const match = bundle.match(new RegExp(source));
  if (!match) throw new Error(`cannot locate ${what} in ${bundlePath} (Ax ${version})`);
  return match[1];
}
const names = {
  proseTokens: locate('the prose tokenizer', `function (${ID})\\((${ID})\\)\\{return \\2\\.normalize\\("NFKD"\\)`),
  identifierTokens: locate('the identifier tokenizer', `function (${ID})\\((${ID})\\)\\{return \\2\\.split\\(${esc('/[^A-Za-z0-9]+/')}\\)`),
  rankDocuments: locate('rankDocuments', `function (${ID})\\((${ID}),(${ID}),(${ID})\\)\\{let ${ID}=\\4\\?\\.topK\\?\\?`),
  stopwords: locate('the stopword set', `var (${ID})=new Set\\(\\["0o"`),
  renderSkills: locate('renderSkillsPromptMarkdown', `function (${ID})\\((${ID})\\)\\{return \\2\\.loaded\\.size===0\\?void 0:\\[\\.\\.\\.\\2\\.loaded\\.values\\(\\)\\]\\.sort\\(.{1,80}?\\)\\.map\\(\\(\\{id:${ID},name:`),
  renderMemories: locate('renderMemoriesPromptMarkdown', `function (${ID})\\((${ID})\\)\\{let ${ID}=${ID}\\(void 0,\\2\\?\\?\\[\\]\\);if\\(${ID}\\.length!==0\\)return ${ID}\\.map\\(\\(\\{id:${ID},content:${ID}\\}\\)=>\`### Memory`),
  mergeMemories: locate('the memory merge', `function (${ID})\\((${ID}),(${ID})\\)\\{let ${ID}=new Map;for\\(let ${ID} of \\2\\?\\?\\[\\]\\)${ID}&&typeof ${ID}\\.id=="string"`),
  renderHints: locate('renderRelevanceHintsMarkdown', `function (${ID})\\((${ID})\\)\\{let ${ID}=\\[\\];if\\(\\2\\.modules&&`),
  skillsHint: locate('the skills relevance hint', `function (${ID})\\((${ID}),(${ID}),(${ID})\\)\\{let ${ID}=\\3\\.map\\(\\(?(${ID})\\)?=>\\(\\{id:\\5\\.id,fields:\\[\\{text:\\5\\.id,identifier:!0\\},\\{text:\\5\\.name,weight:2\\}`),
  memoriesHint: locate('the memories relevance hint', `function (${ID})\\((${ID}),(${ID}),(${ID})\\)\\{let ${ID}=new Map\\(\\3\\.map\\(\\(?(${ID})\\)?=>\\[\\5\\.id,\\5\\.content\\]\\)\\);return ${ID}\\(`),
  skillDoc: null,
  memoryDoc: locate('the memory document', `function (${ID})\\((${ID})\\)\\{return\\{id:\\2\\.id,fields:\\[\\{text:\\2\\.id,identifier:!0\\},\\{text:\\2\\.content\\.slice\\(0,${ID}\\)\\}\\]\\}\\}`),
  ingestSkills: locate('the loaded-skills ingest', `function (${ID})\\((${ID}),(${ID})\\)\\{for\\(let (${ID}) of \\3\\)\\{let (${ID})=${ID}\\(\\4\\);\\5&&\\2\\.loaded\\.set\\(\\5\\.id,\\5\\)\\}\\}`),
  recallArgs: locate('the recall argument check', `function (${ID})\\((${ID})\\)\\{let ${ID}=\\[\\],${ID}=${ID}=>\\{if\\(typeof ${ID}!="string"\\)throw new Error\\("\\[POLICY\\] recall`),
  discoverArgs: locate('the discover argument check', `function (${ID})\\((${ID}),(${ID})\\)\\{if\\(typeof \\2=="string"\\|\\|Array\\.isArray\\(\\2\\)\\)\\{if\\(!\\3\\.toolsEnabled\\)`),
  skillsSearch: locate('the catalog skills search', `function (${ID})\\((${ID})\\)\\{let ${ID}=\\2\\.map\\(\\(?(${ID})\\)?=>\\(\\{id:\\3\\.id,fields:\\[\\{text:\\3\\.id,identifier:!0\\},\\{text:\\3\\.name,weight:2\\}`),
};
delete names.skillDoc;
const copyPath = path.join(pkgDir, `.axmem-oracle-internals-${version}.mjs`);
fs.writeFileSync(copyPath, `${bundle}\nexport { ${Object.entries(names).map(([k, v]) => `${v} as __axmem_${k}`).join(', ')} };\n`);
let ax;
try {
  ax = await import(pathToFileURL(copyPath).href);
} finally {
  fs.rmSync(copyPath, { force: true });
}
const I = Object.fromEntries(Object.keys(names).map((k) => [k, ax[`__axmem_${k}`]]));
const { agent, AxAgentContextMap, AxMockAIService, axBuildExecutorDefinition, axBuildDistillerDefinition } = ax;

// ------------------------------------------------------------------ re-implementation (§4-§5)
const PUNCT = /[!"#$%&'()*+,\-./:;<=>?@[\]^_`{|}~]/g;
const reProse = (text) =>
  text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(PUNCT, ' ').split(/\s+/)
    .filter((t) => t.length >= 2 && !/^[0-9]+$/.test(t) && !I.stopwords.has(t));
const reIdent = (text) =>
  text.split(/[^A-Za-z0-9]+/)
    .flatMap((c) => c.replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2').replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(' '))
    .map((t) => t.toLowerCase()).filter((t) => t.length >= 2 && !/^[0-9]+$/.test(t));
function reimplRank(query, docs) {
  const tfs = docs.map((doc) => {
    const tf = new Map();
    for (const field of doc.fields) {
      if (!field.text) continue;
      for (const t of field.identifier ? reIdent(field.text) : reProse(field.text)) tf.set(t, (tf.get(t) ?? 0) + (field.weight ?? 1));
    }
    return tf;
  });
  const df = new Map();
  for (const tf of tfs) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const terms = [...new Set(reProse(query))].filter((t) => df.has(t));
  const idf = new Map(terms.map((t) => [t, Math.log(1 + docs.length / df.get(t))]));
  const total = terms.reduce((sum, t) => sum + idf.get(t), 0);
  const scored = docs.map((doc, i) => {
    let raw = 0, covered = 0;
    const matched = [];
    for (const t of terms) {
      const f = tfs[i].get(t);
      if (f > 0) { raw += idf.get(t) * (f / (f + 1)); covered += idf.get(t); matched.push(t); }
    }
    return { id: doc.id, raw, coverage: terms.length ? covered / total : 0, matched };
  });
  // raw descending, then id (localeCompare); Array.prototype.sort is stable for equal ids
  scored.sort((a, b) => b.raw - a.raw || a.id.localeCompare(b.id));
  return scored.filter((d) => d.raw > 0);
}

// ------------------------------------------------------------------ prompt capture helpers
const ANCHOR_LOAD = "\n\nLoad a skill's full guide";
function availableSkillsBlock(text) {
  const start = text.indexOf('### Available Skills');
  if (start < 0) return null;
  const end = text.indexOf(ANCHOR_LOAD, start);
  return end < 0 ? null : text.slice(start, end);
}
function skillsSection(text) {
  let start = text.indexOf('### Available Skills');
  const loaded = text.indexOf('### Loaded Skills\n\nWhen `inputs.loadedSkills`', start < 0 ? 0 : start);
  if (loaded < 0) return null;
  if (start < 0) start = loaded;
  const next = text.indexOf('\n\n### ', loaded + 1);
  const stop = [next, text.indexOf('\n</task_definition>', loaded)].filter((n) => n >= 0);
  return text.slice(start, stop.length ? Math.min(...stop) : text.length);
}
function fieldTitles(system) {
  const m = system.match(/You will be provided with the following fields: (.*?)\. Your task is/s);
  return m ? [...m[1].matchAll(/`([^`]+)`/g)].map((x) => x[1]) : [];
}
function fieldValue(user, titles, title) {
  const prefix = `${title}: `;
  const at = user.startsWith(prefix) ? 0 : user.indexOf(`\n\n${prefix}`);
  if (at < 0) return null;
  const start = at === 0 ? prefix.length : at + 2 + prefix.length;
  const later = titles.slice(titles.indexOf(title) + 1)
    .map((t) => user.indexOf(`\n\n${t}: `, start)).filter((n) => n >= 0);
  return user.slice(start, later.length ? Math.min(...later) : user.replace(/\n$/, '').length);
}
const textOf = (message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content));

// ------------------------------------------------------------------ one case
const DEFAULT_TASK = 'task';
const EXECUTOR_REQUEST = '-';

async function endToEnd(c) {
  const discoverCalls = c.discoverCalls ?? [];
  const recallCalls = c.recallCalls ?? [];
  const actingTurns = Math.max(discoverCalls.length, recallCalls.length);
  const prompts = { distiller: [], executor: [] };
  const errors = [];
  const calls = [];
  let executorCalls = 0;
  const llm = new AxMockAIService({
    features: { functions: false, streaming: false },
    chatResponse: async (req) => {
      const system = textOf(req.chatPrompt.find((m) => m.role === 'system') ?? { content: '' });
      const user = textOf(req.chatPrompt.filter((m) => m.role === 'user').at(-1) ?? { content: '' });
      const stage = system.includes('You (`distiller`)') ? 'distiller' : system.includes('You (`executor`)') ? 'executor' : 'responder';
      let content = 'Answer: done';
      if (stage !== 'responder') {
        prompts[stage].push({ system, user });
        content = JSON.stringify({ javascriptCode: stage === 'distiller' ? '/*axmem:distiller*/' : `/*axmem:executor:${executorCalls++}*/` });
      }
      return { results: [{ index: 0, content, finishReason: 'stop' }], modelUsage: { ai: 'mock', model: 'mock', tokens: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } } };
    },
  });
  const runtime = {
    language: 'JavaScript',
    getUsageInstructions: () => '',
    createSession(globals) {
      return {
        async execute(code) {
          const marker = code.match(/^\/\*axmem:(distiller|executor)(?::(\d+))?\*\/$/);
          if (!marker) return '';
          const turn = Number(marker[2] ?? 0);
          if (marker[1] === 'distiller' || turn >= actingTurns) return globals.final(EXECUTOR_REQUEST, {});
          // The turn's code is `await discover({ skills }); await recall(...)`, run the way
          // Ax's own AxJSRuntime runs model code: the first throw ends it, so a recall after a
          // refused discover never runs; a primitive the agent does not define is a
          // ReferenceError. `calls` logs what ran, for internals().
          const hasDiscover = turn < discoverCalls.length;
          const hasRecall = turn < recallCalls.length;
          const ran = { turn, discover: false, recall: false };
          calls.push(ran);
          const call = (name, arg) => {
            if (typeof globals[name] !== 'function') throw new ReferenceError(`${name} is not defined`);
            ran[name] = true;
            return globals[name](arg);
          };
          try {
            if (hasDiscover) await call('discover', { skills: discoverCalls[turn] });
            if (hasRecall) await call('recall', recallCalls[turn]);
          } catch (e) {
            const msg = String(e?.message ?? e);
            errors.push(msg);
            return msg;
          }
          return '';
        },
        async patchGlobals(patch) {
          for (const [key, value] of Object.entries(patch)) {
            if (key === '__axInputsPatch' && value && typeof value === 'object') {
              globals.inputs = { ...(globals.inputs ?? {}), ...value };
            } else {
              globals[key] = value;
            }
          }
        },
        close() {},
      };
    },
  };
  const onLoadedSkills = [];
  const onLoadedMemories = [];
  const events = [];
  const config = {
    ai: llm,
    runtime,
    maxTurns: actingTurns + 2,
    onLoadedSkills: (r) => { onLoadedSkills.push(structuredClone(r)); },
    onLoadedMemories: (r) => { onLoadedMemories.push(structuredClone(r)); },
    onContextEvent: (e) => {
      if (e.kind === 'relevance_ranking') {
        events.push({ stage: e.stage, domain: e.domain, taskChars: e.taskChars, suppressed: e.suppressed, shortlist: e.shortlist });
      }
    },
  };
  if (c.skills !== undefined) config.skillsCatalog = c.skills;
  if (c.memories !== undefined) config.memoriesCatalog = c.memories;
  if (c.presetSkills !== undefined) config.skills = c.presetSkills;
  if (c.relevanceRanking !== undefined && c.relevanceRanking !== null) config.relevanceRanking = c.relevanceRanking;
  let output = null;
  try {
    const values = { query: c.task ?? DEFAULT_TASK };
    if (c.preloadedMemories !== undefined) values.memories = c.preloadedMemories;
    output = await agent('query:string -> answer:string', config).forward(llm, values);
  } catch (e) {
    errors.push(String(e?.message ?? e));
  }
  const executorSystem = prompts.executor[0]?.system ?? '';
  const distillerSystem = prompts.distiller[0]?.system ?? '';
  const executorTitles = fieldTitles(executorSystem);
  const e2e = {
    output,
    errors,
    executorSystemAvailableSkills: availableSkillsBlock(executorSystem),
    distillerSystemAvailableSkills: availableSkillsBlock(distillerSystem),
    executorSystemHasLikelyRelevant: executorSystem.includes('### Likely Relevant'),
    executorFieldTitles: executorTitles,
    distillerFieldTitles: fieldTitles(distillerSystem),
    executorSystemSkillsSection: skillsSection(executorSystem),
    distillerSystemSkillsSection: skillsSection(distillerSystem),
    executorTurns: prompts.executor.map(({ user }) => ({
      loadedSkills: fieldValue(user, executorTitles, 'Loaded Skills'),
      memories: fieldValue(user, executorTitles, 'Memories'),
      relevanceHints: fieldValue(user, executorTitles, 'Relevance Hints'),
    })),
    onLoadedSkills,
    onLoadedMemories,
    relevanceRankingEvents: events,
  };
  return { e2e, calls };
}

function rankedCall(queries, docs, topK, mismatches, where) {
  const perQuery = [];
  const resultIds = [];
  for (const query of queries) {
    const ranked = I.rankDocuments(query, docs, { topK, minScore: 0, marginRatio: 0, minDocs: 1 });
    const again = reimplRank(query, docs);
    perQuery.push({
      query,
      tokens: I.proseTokens(query),
      ranked: ranked.map((r, i) => ({ id: r.id, score: r.score, matchedTerms: r.matchedTerms, raw: again[i]?.raw ?? null, coverage: again[i]?.coverage ?? null })),
    });
    ranked.forEach((r, i) => {
      const mine = again[i];
      const same = mine && mine.id === r.id && mine.raw / again[0].raw === r.score && JSON.stringify(mine.matched) === JSON.stringify(r.matchedTerms);
      if (!same) mismatches.push(`${where} ${JSON.stringify(query)} #${i} ${r.id}: the re-implementation ranks ${JSON.stringify(mine ?? null)}`);
    });
    const expectTokens = reProse(query);
    if (JSON.stringify(expectTokens) !== JSON.stringify(I.proseTokens(query))) mismatches.push(`${where} ${JSON.stringify(query)}: tokens differ from the re-implementation`);
    for (const r of ranked) if (!resultIds.includes(r.id)) resultIds.push(r.id);
  }
  return { perQuery, resultIds };
}

// `calls`: what each executor turn of the run called (endToEnd); the helpers answer exactly
// those calls, in order (a recall after a refused discover, or any call of a forward refused
// before its first turn, never ran).
function internals(c, calls, mismatches) {
  const skills = c.skills ?? [];
  const memories = c.memories ?? [];
  const out = { skills: {}, memories: {}, hints: {} };
  const skillState = { loaded: new Map() };
  I.ingestSkills(skillState, c.presetSkills ?? []);
  if (skills.length > 0) {
    const options = {
      skillsCatalog: skills, skillsMode: true, memoriesMode: memories.length > 0,
      relevanceHintsMode: c.relevanceRanking !== false, isJavaScriptRuntime: true,
    };
    out.skills.executorDefinitionBlock = availableSkillsBlock(axBuildExecutorDefinition(undefined, [], [], options));
    out.skills.distillerDefinitionBlock = availableSkillsBlock(axBuildDistillerDefinition(undefined, [], options));
    const docsSearch = I.skillsSearch(skills);
    const byId = new Map(skills.map((s) => [s.id, s]));
    const docs = skills.map((s) => ({
      id: s.id,
      fields: [{ text: s.id, identifier: true }, { text: s.name, weight: 2 }, ...(s.description ? [{ text: s.description, weight: 2 }] : []), { text: s.content.slice(0, 600) }],
    }));
    const made = calls.filter((t) => t.discover).map((t) => [c.discoverCalls[t.turn], t.turn]);
    out.skills.calls = made.map(([call, n]) => {
      let queries;
      try {
        queries = I.discoverArgs({ skills: call }, { toolsEnabled: false, skillsEnabled: true }).skills;
      } catch (e) {
        return { queries: null, error: String(e?.message ?? e), perQuery: [], resultIds: [] };
      }
      const result = { queries, ...rankedCall(queries, docs, 2, mismatches, `discover[${n}]`) };
      const found = docsSearch(queries);
      if (JSON.stringify(found.map((s) => s.id)) !== JSON.stringify(result.resultIds)) mismatches.push(`discover[${n}]: the package search returned other ids`);
      I.ingestSkills(skillState, result.resultIds.map((id) => byId.get(id)).filter(Boolean).map(({ id, name, content }) => ({ id, name, content })));
      return result;
    });
  }
  out.skills.finalLoadedRendered = I.renderSkills(skillState) ?? null;
  let merged = I.mergeMemories(c.preloadedMemories ?? [], []);
  const preloadedIds = new Set(merged.map((m) => m.id));
  if (c.memories !== undefined) {
    const made = calls.filter((t) => t.recall).map((t) => [c.recallCalls[t.turn], t.turn]);
    out.memories.calls = made.map(([call, n]) => {
      const alreadyLoadedIds = merged.map((m) => m.id);
      let queries;
      try {
        queries = I.recallArgs(call);
      } catch (e) {
        return { queries: null, alreadyLoadedIds, error: String(e?.message ?? e), perQuery: [], resultIds: [] };
      }
      const loaded = new Set(alreadyLoadedIds);
      const candidates = memories.filter((m) => !loaded.has(m.id));
      const result = { queries, alreadyLoadedIds, ...rankedCall(queries, candidates.map(I.memoryDoc), 3, mismatches, `recall[${n}]`) };
      const byId = new Map(candidates.map((m) => [m.id, m]));
      merged = I.mergeMemories(merged, result.resultIds.map((id) => byId.get(id)));
      return result;
    });
    out.memories.finalRendered = I.renderMemories(merged) ?? null;
  }
  if (c.relevanceRanking === false) {
    out.hints = { disabled: true, rendered: null };
  } else {
    const options = c.relevanceRanking && typeof c.relevanceRanking === 'object' ? c.relevanceRanking : undefined;
    const task = `${c.task ?? DEFAULT_TASK} ${EXECUTOR_REQUEST}`;
    const skillHints = I.skillsHint(task, skills, options);
    const memoryHints = I.memoriesHint(task, memories.filter((m) => !preloadedIds.has(m.id)), options);
    out.hints = { skills: skillHints, memories: memoryHints, rendered: I.renderHints({ skills: skillHints, memories: memoryHints }) ?? null };
  }
  return out;
}

// Cross-checks between what the model saw and the package's helpers. A note is information, not
// a failure: AxGen rewrites field references in the system prompt after the definition is
// built, so the executor block can legitimately differ (the distiller's is not compared, as in
// the original golden run).
function consistency(e2e, inner) {
  const notes = [];
  const lastTurn = e2e.executorTurns.at(-1);
  if ('executorDefinitionBlock' in inner.skills && e2e.executorSystemAvailableSkills !== inner.skills.executorDefinitionBlock) {
    notes.push('executor Available Skills: system prompt differs from axBuildExecutorDefinition (AxGen post-processing)');
  }
  if (lastTurn && lastTurn.loadedSkills !== inner.skills.finalLoadedRendered) {
    notes.push('Loaded Skills: the last executor turn differs from the package renderer on the simulated state');
  }
  if (lastTurn && 'finalRendered' in inner.memories && lastTurn.memories !== inner.memories.finalRendered) {
    notes.push('Memories: the last executor turn differs from the package renderer on the simulated state');
  }
  if (e2e.executorTurns[0] && e2e.executorTurns[0].relevanceHints !== inner.hints.rendered) {
    notes.push('Relevance Hints: the first executor turn differs from the package hint helpers');
  }
  return notes;
}

// A context-map case: `{ id, snapshot, payload }` -> what the agent's post-forward update does
// with the Distiller's and Cartographer's answers in `payload`. `update()` asks the model for
// them, so it runs only for a frozen map (it returns `skipped` before any model call); else the
// payload goes to `applyUpdatePayload`, the step `update()` runs after its two model calls.
// (`shouldEvolve` is the class's own freeze rule.)
async function contextMapCase(c) {
  try {
    const map = AxAgentContextMap.fromSnapshot(c.snapshot);
    const r = map.shouldEvolve()
      ? map.applyUpdatePayload(c.payload)
      : await map.update(null, { task: 'task', trajectory: '-' });
    return { id: c.id, status: r.status, step: r.step, changed: r.changed, operations: r.operations, snapshot: map.snapshot() };
  } catch (e) {
    return { id: c.id, error: String(e?.message ?? e) };
  }
}

// Stand-ins for the characters of a known ICU residual (tools/conformance): for each, the
// character Node's collator sorts nearest to it that is not listed itself and has the same
// shape: UTF-16 length, general category, and whether toLowerCase() and normalize('NFKD')
// change it. A case re-run with its listed characters replaced by their stand-ins keeps its
// astral characters, its case and its decompositions, and takes the listed characters'
// place in Node's order.
const CATEGORIES = ['Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'Mn', 'Mc', 'Me', 'Nd', 'Nl', 'No', 'Pc', 'Pd', 'Ps', 'Pe', 'Pi', 'Pf', 'Po', 'Sm', 'Sc', 'Sk', 'So', 'Zs', 'Zl', 'Zp', 'Cc', 'Cf', 'Co', 'Cn'];
const CATEGORY_RE = CATEGORIES.map((c) => [c, new RegExp(`^\\p{gc=${c}}$`, 'u')]);
const shape = (ch) => [ch.length, CATEGORY_RE.find(([, re]) => re.test(ch))?.[0], ch.toLowerCase() === ch, ch.normalize('NFKD') === ch].join(' ');
let nodeOrder = null;
function standIns(request) {
  const listed = new Set(request.listed);
  if (!nodeOrder) {
    nodeOrder = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if ((cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0xe000 && cp <= 0xf8ff) || cp >= 0xf0000) continue;
      const ch = String.fromCodePoint(cp);
      if (/\P{Cn}/u.test(ch)) nodeOrder.push(ch);
    }
    const collator = new Intl.Collator();
    nodeOrder.sort((a, b) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0));
  }
  const at = new Map(nodeOrder.map((ch, i) => [ch, i]));
  const out = {};
  for (const ch of request.chars) {
    const i = at.get(ch);
    if (i === undefined) continue;
    const want = shape(ch);
    for (let d = 1; d < nodeOrder.length; d++) {
      const found = [nodeOrder[i - d], nodeOrder[i + d]].find((c) => c !== undefined && !listed.has(c) && shape(c) === want);
      if (found) { out[ch] = found; break; }
    }
  }
  return out;
}

async function runFile(cases) {
  if (cases.standIns) return { standIns: standIns(cases.standIns) };
  const result = {
    generator: 'oracle.mjs',
    package: `@ax-llm/ax@${version}`,
    node: process.version,
    icu: process.versions.icu,
    collatorLocale: new Intl.Collator().resolvedOptions().locale,
    stopwordsSource: 'src/ax/dsp/stopwords.ts (Apache-2.0), as loaded from the package bundle',
    stopwords: [...I.stopwords],
    tokenizer: {
      text: (cases.tokenizer?.text ?? []).map((input) => ({ input, tokens: I.proseTokens(input) })),
      identifier: (cases.tokenizer?.identifier ?? []).map((input) => ({ input, tokens: I.identifierTokens(input) })),
    },
    collation: (cases.collation ?? []).map((group) => [...group].sort((a, b) => a.localeCompare(b))),
    cases: [],
  };
  for (const c of cases.cases ?? []) {
    const mismatches = [];
    const { e2e, calls } = await endToEnd(c);
    const inner = internals(c, calls, mismatches);
    result.cases.push({ id: c.id, endToEnd: e2e, internals: inner, consistency: consistency(e2e, inner), reimplMismatches: mismatches });
  }
  if (cases.contextMap !== undefined) {
    result.contextMap = [];
    for (const c of cases.contextMap) result.contextMap.push(await contextMapCase(c));
  }
  return result;
}

if (args.serve) {
  // One case file per stdin line -> one result per stdout line (the conformance minimizer).
  const readline = await import('node:readline');
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let out;
    try {
      out = await runFile(JSON.parse(line));
    } catch (e) {
      out = { oracleError: String(e?.stack ?? e) };
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
} else {
  const result = await runFile(JSON.parse(fs.readFileSync(args.cases, 'utf8')));
  fs.writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
  process.stderr.write(`${result.cases.length} cases -> ${args.out} (${result.package}, Node ${result.node}, ICU ${result.icu}, ${result.collatorLocale})\n`);
}
