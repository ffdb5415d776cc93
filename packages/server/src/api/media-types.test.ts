import { describe, expect, it } from 'vitest';
import { negotiateAs, parseAccept } from './media-types.js';

const TABLE = { g: 'meta.k8s.io', v: 'v1', as: 'Table' };
const TABLE_BETA = { g: 'meta.k8s.io', v: 'v1beta1', as: 'Table' };

describe('parseAccept', () => {
  it('reads types and parameters in order', () => {
    expect(parseAccept('application/json;as=Table;v=v1;g=meta.k8s.io, */*;q=0.8')).toEqual([
      { type: 'application/json', params: { as: 'Table', v: 'v1', g: 'meta.k8s.io' } },
      { type: '*/*', params: { q: '0.8' } },
    ]);
  });
});

describe('negotiateAs', () => {
  it.each([
    [undefined, undefined],
    ['application/json', undefined],
    ['application/json;as=Table;v=v1;g=meta.k8s.io,application/json', TABLE],
    ['application/json;as=Table;v=v1beta1;g=meta.k8s.io', TABLE_BETA],
    // Plain JSON first: the client prefers objects.
    ['application/json,application/json;as=Table;v=v1;g=meta.k8s.io', undefined],
    // Another encoding is skipped; an unknown kind is passed over for the next.
    [
      'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io',
      TABLE_BETA,
    ],
    ['application/json;as=Table;v=v2;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io', TABLE],
    ['application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', undefined],
  ])('%s asks for %j', (accept, expected) => {
    expect(negotiateAs(accept, [TABLE, TABLE_BETA])).toEqual(expected);
  });
});
