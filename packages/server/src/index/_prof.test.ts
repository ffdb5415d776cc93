// THROWAWAY profiler harness.
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import type { ExtensionObject } from '@svc/plugin-api';
import { ModelIndex } from './model-index.js';
import { parseFieldSelector, parseLabelSelector, parseSort } from './selectors.js';

const N = 100_000;
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
function json(i: number): string {
  const created = new Date(Date.UTC(2026, 0, 1) + i * 1000 + Math.floor(random() * 3) * 1000).toISOString();
  return JSON.stringify({
    apiVersion: 'people.svc.run/v1alpha1', kind: 'Person',
    metadata: { name: `person-${(i * 7919) % N}`, creationTimestamp: created, ...(i % 100 === 0 ? { deletionTimestamp: created } : {}),
      labels: { 'people.svc.run/team': `team-${i % 10}`, 'people.svc.run/tier': i % 3 === 0 ? 'gold' : 'basic' } },
    spec: { name: `Person Number ${i}`, age: Math.floor(random() * 151), gender: random() < 0.5 ? 'MALE' : 'FEMALE' },
  });
}

async function profile(label: string, run: () => void) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  run();
  const { profile } = await session.post('Profiler.stop');
  const self = new Map<string, number>();
  const nodes = profile.nodes;
  const dt = new Map<number, number>();
  profile.samples!.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas![i] ?? 0)));
  for (const n of nodes) {
    const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (dt.get(n.id) ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`== ${label}: ${(total / 1000).toFixed(0)} ms`);
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 14)) console.log(`  ${(v / 1000).toFixed(1)} ms  ${k}`);
  session.disconnect();
}

it('prof', async () => {
  const objects = Array.from({ length: N }, (_, i) => JSON.parse(json(i)) as ExtensionObject);
  const index = new ModelIndex([{ name: 'spec.name', unique: true }, { name: 'spec.age' }, { name: 'spec.gender' }], 'Person');
  objects.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  await profile('build (name order)', () => { for (const o of objects) index.apply(undefined, o); });
  return;
  const q = { labels: parseLabelSelector('people.svc.run/tier=gold,people.svc.run/team=team-3'), fields: [], sort: [], size: 20 };
  await profile('tier+team x50', () => { for (let i = 0; i < 50; i++) index.query(q); });
  const q2 = { labels: [], fields: parseFieldSelector('spec.gender=FEMALE'), sort: parseSort('spec.age,desc'), size: 20, page: 500 };
  await profile('female page 500 x50', () => { for (let i = 0; i < 50; i++) index.query(q2); });
  const q3 = { labels: [], fields: [], sort: [] };
  await profile('all default x10', () => { for (let i = 0; i < 10; i++) index.query(q3); });
}, 600_000);
