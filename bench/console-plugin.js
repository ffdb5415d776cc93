// `npm run bench:console-plugin`: the people plugin's UI bundle, as the console downloads it (target: ≤ 30 KB gzipped).
// Reads every file of plugins/people/ui/dist (built by `npm run build`), gzips each at level 9 and prints the sizes.
// What the bundle imports from the console's import map (Vue, PrimeVue, @svc/console-shared) is not in it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'plugins/people/ui/dist');
const TARGET_KB = 30;

let files;
try {
  files = readdirSync(dist, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
} catch {
  console.error(`${dist} is missing: run npm run build first`);
  process.exit(1);
}
let raw = 0;
let gzipped = 0;
for (const file of files) {
  const bytes = readFileSync(path.join(file.parentPath, file.name));
  const zipped = gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length;
  gzipped += zipped;
  const name = path.relative(dist, path.join(file.parentPath, file.name));
  console.log(
    `${name.padEnd(16)} ${(bytes.length / 1024).toFixed(2).padStart(7)} KB  gzip ${(zipped / 1024).toFixed(2).padStart(6)} KB`,
  );
}
const kb = gzipped / 1024;
console.log(
  `people UI bundle: ${(raw / 1024).toFixed(2)} KB, ${kb.toFixed(2)} KB gzipped (target ≤ ${TARGET_KB} KB): ${kb <= TARGET_KB ? 'met' : 'MISSED'}`,
);
process.exit(kb <= TARGET_KB ? 0 : 1);
