import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tgzOf } from './plugin-archives.js';

/** The route every version of the flip plugin serves: it answers the version that runs. */
export const FLIP_ROUTE = '/apis/api.flip.svc.run/v1/version';

/** How a version of the flip plugin behaves: serves its route, throws in start(), or fails on import. */
export type FlipBehaviour = 'serves' | 'start-throws' | 'import-fails' | 'declares-refused';

const ENTRIES: Record<FlipBehaviour, (version: string) => string> = {
  serves: (version) => `export default {
  start(ctx) {
    ctx.routes.add({ apiVersion: 'api.flip.svc.run/v1', method: 'GET', path: '/version', handler: () => ({ version: '${version}' }) });
  },
};
`,
  'start-throws': () => `export default {
  start() {
    throw new Error('boom');
  },
};
`,
  'import-fails': () => `throw new Error('the entry cannot load');
export default { start() {} };
`,
  'declares-refused': (version) => `export default {
  start(ctx) {
    ctx.routes.add({ apiVersion: 'api.flip.svc.run/v1', method: 'GET', path: '/version', handler: () => ({ version: '${version}' }) });
  },
};
`,
};

/** What `declares-refused` declares in extensions/: an object of a model nobody serves, which its start refuses. */
const REFUSED_DECLARATION = `apiVersion: nowhere.svc.run/v1
kind: Nothing
metadata:
  name: nothing
`;

let built = 0;

/** The archive (.tgz) of version `version` of the flip plugin, built in `scratch`. */
export async function flipArchive(scratch: string, version: string, behaviour: FlipBehaviour): Promise<Buffer> {
  const folder = path.join(scratch, `${version}-${behaviour}`, 'flip');
  await mkdir(folder, { recursive: true });
  await writeFile(
    path.join(folder, 'plugin.yaml'),
    `apiVersion: plugin.svc.run/v1alpha1
kind: Plugin
metadata:
  name: flip
spec:
  version: ${version}
  requires: ">=0.1.0"
  main: index.js
`,
  );
  await writeFile(path.join(folder, 'index.js'), ENTRIES[behaviour](version));
  if (behaviour === 'declares-refused') {
    await mkdir(path.join(folder, 'extensions'), { recursive: true });
    await writeFile(path.join(folder, 'extensions/nothing.yaml'), REFUSED_DECLARATION);
  }
  // A modification time of its own (tar keeps whole seconds): the host loads each version's code as new code, even
  // when two entries have the same size (loader-hooks.ts: a generation is paths, sizes and times).
  const time = 1_600_000_000 + ++built * 100;
  await utimes(path.join(folder, 'index.js'), time, time);
  return tgzOf(folder);
}
