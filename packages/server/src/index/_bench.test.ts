// THROWAWAY benchmark: deleted after measuring.
import v8 from 'node:v8';
import vm from 'node:vm';
import { it } from 'vitest';
import type { ExtensionObject } from '@svc/plugin-api';
import { ModelIndex } from './model-index.js';
import { parseFieldSelector, parseLabelSelector, parseSort } from './selectors.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
const N = Number(process.env.BENCH_N ?? 100_000);
const QUICK = process.env.BENCH_QUICK === '1';
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;

function json(i: number): string {
  const created = new Date(Date.UTC(2026, 0, 1) + i * 1000 + Math.floor(random() * 3) * 1000).toISOString();
  return JSON.stringify({
    apiVersion: 'people.svc.run/v1alpha1', kind: 'Person',
    metadata: {
      name: `person-${(i * 7919) % N}`, uid: 'x', version: 0, creationTimestamp: created,
      ...(i % 100 === 0 ? { deletionTimestamp: created } : {}),
      labels: { 'people.svc.run/team': `team-${i % 10}`, 'people.svc.run/tier': i % 3 === 0 ? 'gold' : 'basic' },
    },
    spec: { name: `Person Number ${i}`, age: Math.floor(random() * 151), gender: random() < 0.5 ? 'MALE' : 'FEMALE', email: `p${i}@example.com` },
  });
}

function time<T>(label: string, run: () => T, repeat = 200): T {
  let result!: T;
  for (let i = 0; i < 20; i++) result = run();
  const times: number[] = [];
  for (let i = 0; i < repeat; i++) { const t = process.hrtime.bigint(); result = run(); times.push(Number(process.hrtime.bigint() - t) / 1e6); }
  times.sort((a, b) => a - b);
  console.log(`${label}: median ${times[times.length >> 1]!.toFixed(3)} ms, p95 ${times[Math.floor(times.length * 0.95)]!.toFixed(3)} ms`);
  return result;
}

it('bench', () => {
  const texts = Array.from({ length: N }, (_, i) => json(i));
  const h0 = heap();
  const index = new ModelIndex([{ name: 'spec.name', unique: true }, { name: 'spec.age' }, { name: 'spec.gender' }], 'Person');
  const t0 = process.hrtime.bigint();
  for (const text of texts) index.apply(undefined, JSON.parse(text) as ExtensionObject);
  const buildMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const h1 = heap();
  console.log(`N=${N} build (JSON.parse + apply) ${buildMs.toFixed(0)} ms; heap ${(h1 - h0) / N} bytes/object; size ${index.size}`);
  const objects = texts.map((t) => JSON.parse(t) as ExtensionObject);
  const byName = [...objects].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  {
    const ix = new ModelIndex([{ name: 'spec.name', unique: true }, { name: 'spec.age' }, { name: 'spec.gender' }], 'Person');
    const t = process.hrtime.bigint();
    for (const o of byName) ix.apply(undefined, o);
    console.log(`apply only, store scan order (by name): ${(Number(process.hrtime.bigint() - t) / 1e6).toFixed(0)} ms`);
  }
  const t1 = process.hrtime.bigint();
  const index2 = new ModelIndex([{ name: 'spec.name', unique: true }, { name: 'spec.age' }, { name: 'spec.gender' }], 'Person');
  for (const o of objects) index2.apply(undefined, o);
  console.log(`apply only: ${(Number(process.hrtime.bigint() - t1) / 1e6).toFixed(0)} ms`);

  if (QUICK) return;
  const q = (labels: string | undefined, fields: string | undefined, sort: string | undefined, size?: number, page?: number) => ({
    labels: parseLabelSelector(labels), fields: parseFieldSelector(fields), sort: parseSort(sort),
    ...(size ? { size } : {}), ...(page ? { page } : {}),
  });
  const show = (label: string, query: ReturnType<typeof q>, repeat?: number) => {
    const r = time(label, () => index.query(query), repeat);
    console.log(`   total ${r.total}, first ${r.names.slice(0, 3).join(' ')}`);
  };
  show('gender=FEMALE sort age desc size 20', q(undefined, 'spec.gender=FEMALE', 'spec.age,desc', 20));
  show('gender=FEMALE sort age desc size 20 page 500', q(undefined, 'spec.gender=FEMALE', 'spec.age,desc', 20, 500));
  show('default order size 20', q(undefined, undefined, undefined, 20));
  show('default order size 20 page 2000', q(undefined, undefined, undefined, 20, 2000));
  show('label team=team-3 size 20', q('people.svc.run/team=team-3', undefined, undefined, 20));
  show('label tier=gold,team=team-3 size 20', q('people.svc.run/tier=gold,people.svc.run/team=team-3', undefined, undefined, 20));
  show('spec.age=42 sort name size 20', q(undefined, 'spec.age=42', 'name', 20));
  show('spec.age=42 (all, default order)', q(undefined, 'spec.age=42', undefined));
  show('gender=FEMALE,age=42 sort name size 20', q(undefined, 'spec.gender=FEMALE,spec.age=42', 'name', 20));
  show('spec.name=Person Number 4242', q(undefined, 'spec.name=Person Number 4242', undefined, 20));
  show('deletionTimestamp= size 20', q(undefined, 'metadata.deletionTimestamp=', undefined, 20));
  show('team!=team-3 size 20', q('people.svc.run/team!=team-3', undefined, undefined, 20));
  show('gender=FEMALE sort gender,age desc size 20', q(undefined, 'spec.gender=FEMALE', 'spec.gender,spec.age,desc', 20));
  show('all, default order (no size)', q(undefined, undefined, undefined), 10);
  show('gender=FEMALE all, sort age desc', q(undefined, 'spec.gender=FEMALE', 'spec.age,desc'), 10);
  time('checkUnique', () => index.checkUnique(objects[5]!), 2000);
  let k = 0;
  time('update (apply prev,next with new age)', () => { const o = objects[k++ % N]!; const n = { ...o, spec: { ...o.spec, age: (k % 150) } }; index.apply(o, n); }, 5000);
  console.log(index2.size);
}, 600_000);
