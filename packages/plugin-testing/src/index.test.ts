import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startSvc } from './index.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../server/test/fixtures');

describe('startSvc', () => {
  it('starts a plugin and hands back a signed-in administrator client', async () => {
    const svc = await startSvc({ plugins: [path.join(FIXTURES, 'plugins-settings/greeter')] });
    try {
      expect(svc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const greeting = await svc.client.request<{ text: string }>('GET', '/apis/api.greeter.svc.run/v1/greeting');
      expect(greeting.text).toBe('Hello.');
      // The route is the super administrator's alone (the plugin grants it to no role): the client is signed in as one.
      const anonymous = await fetch(`${svc.url}/apis/api.greeter.svc.run/v1/greeting`);
      expect(anonymous.status).toBe(401);
    } finally {
      await svc.close();
    }
  });

  it('refuses, naming the plugin and why, when a plugin does not start', async () => {
    await expect(startSvc({ plugins: [path.join(FIXTURES, 'plugins-bad/throws')] })).rejects.toThrow(
      /plugin "throws" did not start \(FAILED\): .*/,
    );
  });
});
