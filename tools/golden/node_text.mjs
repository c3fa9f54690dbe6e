// Node's own Unicode data where the text engine needs it (`make golden`): for every code
// point, what `toLowerCase()` and `normalize('NFKD')` give when it is not the code point
// itself, the canonical combining class of every character with one (inferred from how
// `normalize('NFD')` reorders it against marks of known classes), the code points
// `/\p{Cased}/u` and `/\p{Case_Ignorable}/u` match (the Final_Sigma context), and every
// assigned character in localeCompare order. ICU 78.2 under Node 20.20;
// tools/ax_profile/text_data.py keeps what the wheel's ICU computes otherwise.
//
//   node tools/golden/node_text.mjs > build/node-text.json
//   node tools/golden/node_text.mjs --probes PROBES.json --out OUT.json
//
// With --probes ({text: [strings], collation: [[strings]]}), it writes what Node does with
// them instead: each text's `toLowerCase()` and `normalize('NFKD')`, each list sorted with
// localeCompare (the fixture of tests/core/ax/test_newer_unicode.py).
import fs from 'node:fs';

const argv = process.argv.slice(2);
if (argv[0] === '--probes') {
  const probes = JSON.parse(fs.readFileSync(argv[1], 'utf8'));
  const answers = probes.text.map((text) => ({ text, lower: text.toLowerCase(), nfkd: text.normalize('NFKD') }));
  const collation = probes.collation.map((list) => [...list].sort((a, b) => a.localeCompare(b)));
  const out = { node: process.version, icu: process.versions.icu, unicode: process.versions.unicode, answers, collation };
  fs.writeFileSync(argv[3], `${JSON.stringify(out, null, 1)}\n`);
  process.exit(0);
}
const lower = {};
const nfkd = {};
const ccc = {};
const cased = [];
const caseIgnorable = [];
// One mark per canonical combining class in use (Unicode 16), to place the others.
const MARKS = {
  1: 0x0334, 6: 0x16ff0, 7: 0x093c, 8: 0x3099, 9: 0x094d, 10: 0x05b0, 11: 0x05b1, 12: 0x05b2,
  13: 0x05b3, 14: 0x05b4, 15: 0x05b5, 16: 0x05b6, 17: 0x05b7, 18: 0x05b8, 19: 0x05b9,
  20: 0x05bb, 21: 0x05bc, 22: 0x05bd, 23: 0x05bf, 24: 0x05c1, 25: 0x05c2, 26: 0xfb1e,
  27: 0x064b, 28: 0x064c, 29: 0x064d, 30: 0x064e, 31: 0x064f, 32: 0x0650, 33: 0x0651,
  34: 0x0652, 35: 0x0670, 36: 0x0711, 84: 0x0c55, 91: 0x0c56, 103: 0x0e38, 107: 0x0e48,
  118: 0x0eb8, 122: 0x0ec8, 129: 0x0f71, 130: 0x0f72, 132: 0x0f74, 202: 0x0327, 214: 0x1dce,
  216: 0x031b, 218: 0x302a, 220: 0x0323, 222: 0x059a, 224: 0x302e, 226: 0x1d16d,
  228: 0x05ae, 230: 0x0301, 232: 0x302c, 233: 0x035c, 234: 0x035d, 240: 0x0345,
};
const reorders = (s) => s.normalize('NFD') !== s;
function combiningClass(m) {
  if (m.normalize('NFD') !== m) return null; // decomposes: its class is its parts'
  if (!reorders(`a\u0301${m}`) && !reorders(`a${m}\u0334`)) return 0;
  for (const [value, mark] of Object.entries(MARKS)) {
    const r = String.fromCodePoint(mark);
    if (!reorders(`a${r}${m}`) && !reorders(`a${m}${r}`)) return Number(value);
  }
  throw new Error(`U+${m.codePointAt(0).toString(16)}: a combining class without a reference mark`);
}
const CASED = /\p{Cased}/u;
const IGNORABLE = /\p{Case_Ignorable}/u;
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const s = String.fromCodePoint(cp);
  const l = s.toLowerCase();
  if (l !== s) lower[cp] = l;
  const d = s.normalize('NFKD');
  if (d !== s) nfkd[cp] = d;
  const c = combiningClass(s);
  if (c) ccc[cp] = c;
  if (CASED.test(s)) cased.push(cp);
  if (IGNORABLE.test(s)) caseIgnorable.push(cp);
}
// Every assigned character (private use aside) in localeCompare order, each with the level
// at which it first differs from the one before (1 primary, 2 secondary, 3 tertiary, 4
// equal): where a character sits in Node's collation.
const assigned = /\P{Cn}/u;
const sorted = [];
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if ((cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0xe000 && cp <= 0xf8ff) || cp >= 0xf0000) continue;
  const ch = String.fromCodePoint(cp);
  if (assigned.test(ch)) sorted.push(ch);
}
const tertiary = new Intl.Collator('en-US');
const primary = new Intl.Collator('en-US', { sensitivity: 'base' });
const secondary = new Intl.Collator('en-US', { sensitivity: 'accent' });
sorted.sort((a, b) => tertiary.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0));
const order = sorted.map((ch, i) => {
  const prev = sorted[i - 1];
  const level = i === 0 ? 1 : primary.compare(prev, ch) ? 1 : secondary.compare(prev, ch) ? 2 : tertiary.compare(prev, ch) ? 3 : 4;
  return [ch.codePointAt(0), level];
});
process.stdout.write(`${JSON.stringify({
  node: process.version, icu: process.versions.icu, unicode: process.versions.unicode,
  lower, nfkd, ccc, cased, caseIgnorable, order,
})}\n`);
