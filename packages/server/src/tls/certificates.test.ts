import { describe, expect, it } from 'vitest';
import { subjectAltNames } from './certificates.js';

describe('subjectAltNames', () => {
  it.each([
    [['localhost'], [{ type: 'dns', value: 'localhost' }]],
    [
      ['127.0.0.1', '::1'],
      [
        { type: 'ip', value: '127.0.0.1' },
        { type: 'ip', value: '::1' },
      ],
    ],
    [['[fe80::1]'], [{ type: 'ip', value: 'fe80::1' }]],
    [['Svc.Example.TEST', 'svc.example.test'], [{ type: 'dns', value: 'svc.example.test' }]],
    [['0.0.0.0', '::', ' '], []],
  ])('%j → %j', (hosts, expected) => expect(subjectAltNames(hosts)).toEqual(expected));
});
