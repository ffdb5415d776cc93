import { describe, expect, it } from 'vitest';
import { bookmarkEvent, encodeEvent, errorEvent, expiredStatus, webSocketFrame } from './events.js';

describe('watch event encoding', () => {
  it('wraps stored object bytes into one event line', () => {
    const line = encodeEvent('MODIFIED', Buffer.from('{"metadata":{"name":"a"}}')).toString();
    expect(line).toBe('{"type":"MODIFIED","object":{"metadata":{"name":"a"}}}\n');
    expect(JSON.parse(line)).toEqual({ type: 'MODIFIED', object: { metadata: { name: 'a' } } });
  });

  it('encodes bookmarks and 410 errors as Kubernetes does', () => {
    expect(JSON.parse(bookmarkEvent({ apiVersion: 'g/v1', kind: 'K' }, 7).toString())).toEqual({
      type: 'BOOKMARK',
      object: { apiVersion: 'g/v1', kind: 'K', metadata: { resourceVersion: '7' } },
    });
    expect(JSON.parse(errorEvent(expiredStatus(3, 10)).toString())).toEqual({
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 410,
        reason: 'Expired',
        message: expect.stringMatching(/3.*10/),
      },
    });
  });

  it.each([
    [0, 2],
    [125, 2],
    [126, 4],
    [65_535, 4],
    [65_536, 10],
  ])('frames a %i-byte event with a %i-byte WebSocket header', (length, header) => {
    const frame = webSocketFrame(Buffer.alloc(length, 0x61));
    expect(frame.length).toBe(length + header);
    expect(frame[0]).toBe(0x81);
    const declared = header === 2 ? frame[1] : header === 4 ? frame.readUInt16BE(2) : Number(frame.readBigUInt64BE(2));
    expect(declared).toBe(length);
  });
});
