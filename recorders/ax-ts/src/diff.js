// A unified diff of two texts, line by line (Myers' O(ND) algorithm), for the readable
// mismatch reports of a replay: which lines of the prompt the agent now sends differ from
// the recorded ones.

function editScript(a, b) {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Map([[1, 0]]);
  const trace = [];
  for (let d = 0; d <= max; d += 1) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v.get(k - 1) < v.get(k + 1)) ? v.get(k + 1) : v.get(k - 1) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v.set(k, x);
      if (x >= n && y >= m) return backtrack(trace, a, b, d);
    }
  }
  return [];
}

function backtrack(trace, a, b, dEnd) {
  const ops = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d -= 1) {
    const v = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && v.get(k - 1) < v.get(k + 1)) ? k + 1 : k - 1;
    const prevX = v.get(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push([' ', a[x - 1]]);
      x -= 1;
      y -= 1;
    }
    if (x === prevX) ops.push(['+', b[y - 1]]);
    else ops.push(['-', a[x - 1]]);
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push([' ', a[x - 1]]);
    x -= 1;
    y -= 1;
  }
  return ops.reverse();
}

/** `--- from` / `+++ to` hunks with `context` lines around each change; '' when equal. */
export function unifiedDiff(fromText, toText, fromLabel, toLabel, context = 2) {
  const a = fromText.split('\n');
  const b = toText.split('\n');
  if (fromText === toText) return '';
  const ops = editScript(a, b);
  const lines = [`--- ${fromLabel}`, `+++ ${toLabel}`];
  let i = 0;
  let ai = 0;
  let bi = 0;
  const positions = ops.map(([op]) => {
    const pos = [ai, bi];
    if (op !== '+') ai += 1;
    if (op !== '-') bi += 1;
    return pos;
  });
  while (i < ops.length) {
    if (ops[i][0] === ' ') {
      i += 1;
      continue;
    }
    let start = Math.max(0, i - context);
    let end = i;
    while (end < ops.length) {
      if (ops[end][0] !== ' ') {
        end += 1;
        continue;
      }
      let run = end;
      while (run < ops.length && ops[run][0] === ' ') run += 1;
      if (run - end > 2 * context || run === ops.length) {
        end = Math.min(ops.length, end + context);
        break;
      }
      end = run;
    }
    const hunk = ops.slice(start, end);
    const [a0, b0] = positions[start];
    const aLen = hunk.filter(([op]) => op !== '+').length;
    const bLen = hunk.filter(([op]) => op !== '-').length;
    lines.push(`@@ -${a0 + 1},${aLen} +${b0 + 1},${bLen} @@`);
    for (const [op, text] of hunk) lines.push(`${op}${text}`);
    i = end;
    start = end;
  }
  return `${lines.join('\n')}\n`;
}
