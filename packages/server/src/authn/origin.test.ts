import { describe, expect, it } from 'vitest';
import { isOwnOrigin } from './origin.js';

describe('isOwnOrigin', () => {
  it.each([
    // [Origin header, Host header, scheme served on, own origin?]
    ['http://127.0.0.1:8090', '127.0.0.1:8090', 'http', true],
    ['https://127.0.0.1:8090', '127.0.0.1:8090', 'http', false],
    ['http://127.0.0.1:8090', '127.0.0.1:8090', 'https', false],
    ['http://127.0.0.1:9999', '127.0.0.1:8090', 'http', false],
    ['http://127.0.0.1.evil.com:8090', '127.0.0.1:8090', 'http', false],
    ['http://evil.com', '127.0.0.1:8090', 'http', false],
    ['null', '127.0.0.1:8090', 'http', false],
    ['', '127.0.0.1:8090', 'http', false],
    ['http://127.0.0.1', '127.0.0.1:8090', 'http', false],
    ['http://127.0.0.1:8090/', '127.0.0.1:8090', 'http', false],
    ['http://127.0.0.1:8090/console', '127.0.0.1:8090', 'http', false],
    ['http://user@127.0.0.1:8090', '127.0.0.1:8090', 'http', false],
    ['HTTP://127.0.0.1:8090', '127.0.0.1:8090', 'http', false],
    ['ws://127.0.0.1:8090', '127.0.0.1:8090', 'http', false],
    ['http://127.0.0.1:8090', undefined, 'http', false],
    ['http://127.0.0.1:8090', '', 'http', false],
    ['http://evil.com', 'evil.com/127.0.0.1:8090', 'http', false],
    ['http://evil.com', 'x@evil.com', 'http', false],
    // A default port may be left out on either side; a Host header's case does not matter.
    ['http://127.0.0.1', '127.0.0.1:80', 'http', true],
    ['https://svc.example', 'svc.example', 'https', true],
    ['https://svc.example', 'svc.example:443', 'https', true],
    ['http://svc.example', 'SVC.example', 'http', true],
    ['http://[::1]:8090', '[::1]:8090', 'http', true],
    ['http://[::1]:8091', '[::1]:8090', 'http', false],
  ] as const)('Origin %j, Host %j over %s: %s', (origin, host, scheme, expected) => {
    expect(isOwnOrigin(origin, host, scheme)).toBe(expected);
  });
});
