import { describe, expect, it } from 'vitest';
import { kubernetesStatus, toProblem, wantsKubernetesStatus } from './problem.js';

describe('which clients get a Kubernetes Status', () => {
  const cases: Array<[string, string | undefined, boolean]> = [
    ['no Accept (curl)', undefined, false],
    ['a browser', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['anything', '*/*', false],
    ['problem+json', 'application/problem+json', false],
    ['problem+json beside JSON', 'application/problem+json, application/json', false],
    ['JSON with a wildcard', 'application/json, */*', false],
    ['@kubernetes/client-node', 'application/json', true],
    [
      'kubectl get (Table first, JSON last)',
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      true,
    ],
    ['kubectl with protobuf', 'application/vnd.kubernetes.protobuf,application/json', true],
    ['YAML', 'application/yaml', true],
    ['text only', 'text/plain', false],
  ];
  it.each(cases)('%s', (_name, accept, want) => {
    expect(wantsKubernetesStatus(accept)).toBe(want);
  });
});

describe('a problem as a Kubernetes Status', () => {
  it('keeps the message, the code and the reason, and turns field errors into causes', () => {
    const problem = {
      type: 'https://svc.run/problems/invalid',
      title: 'Invalid',
      status: 400,
      detail: 'Person is invalid: /spec/age must be <= 150',
      instance: '/apis/people.svc.run/v1alpha1/persons',
      errors: [{ path: '/spec/age', message: 'must be <= 150' }],
    };
    expect(kubernetesStatus(problem, 'Invalid')).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Person is invalid: /spec/age must be <= 150',
      reason: 'Invalid',
      code: 400,
      details: { causes: [{ reason: 'FieldValueInvalid', field: 'spec.age', message: 'must be <= 150' }] },
    });
  });

  it('names the reason Kubernetes uses where svc words it differently, or from the status alone', () => {
    const problem = (status: number) => ({ type: '', title: '', status, detail: 'x', instance: '/' });
    expect(kubernetesStatus(problem(410), 'Gone').reason).toBe('Expired');
    expect(kubernetesStatus(problem(413), 'PayloadTooLarge').reason).toBe('RequestEntityTooLarge');
    expect(kubernetesStatus(problem(415)).reason).toBe('UnsupportedMediaType');
    expect(kubernetesStatus(problem(418)).reason).toBe('Unknown');
  });
});

describe('a lost database connection', () => {
  it('is a 503 to retry, not a 500', () => {
    const reset = Object.assign(new Error('begin: read ECONNRESET'), { code: 'ECONNRESET' });
    expect(toProblem(reset, '/apis/x')).toEqual({
      problem: {
        type: 'https://svc.run/problems/service-unavailable',
        title: 'Service Unavailable',
        status: 503,
        detail: 'the database could not be reached; retry (on another replica)',
        instance: '/apis/x',
      },
      headers: { 'retry-after': '1' },
    });
    expect(toProblem(new Error('Connection terminated unexpectedly'), '/x').problem.status).toBe(503);
    expect(toProblem(new Error('boom'), '/x').problem.status).toBe(500);
    expect(toProblem(Object.assign(new Error('x'), { code: 'ENOENT' }), '/x').problem.status).toBe(500);
  });
});
