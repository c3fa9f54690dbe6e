// The recorder's own version and the @ax-llm/ax version the app runs, found without
// importing Ax (the app's copy is the one that counts, and npm may link this package
// from elsewhere).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const RECORDER_NAME = '@axmem/ax-recorder';
export const RECORDER_VERSION = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

export function installedAxVersion(from = process.cwd()) {
  for (const base of [path.join(from, 'noop.js'), new URL(import.meta.url).pathname]) {
    try {
      const entry = createRequire(base).resolve('@ax-llm/ax');
      let dir = path.dirname(entry);
      for (let i = 0; i < 4; i += 1) {
        const pkg = path.join(dir, 'package.json');
        if (fs.existsSync(pkg)) {
          const data = JSON.parse(fs.readFileSync(pkg, 'utf8'));
          if (data.name === '@ax-llm/ax') return String(data.version);
        }
        dir = path.dirname(dir);
      }
    } catch {
      // not resolvable from here; try the next place
    }
  }
  return null;
}
