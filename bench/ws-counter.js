// A minimal WebSocket client for benchmarks: it upgrades, then only splits the server's frames and counts them, so
// one process can follow many busy sockets without becoming the bottleneck it measures. Server frames are unmasked.

import { randomBytes } from 'node:crypto';
import http from 'node:http';

/** Opens a WebSocket to `url` (http://…); `onFrame(payload)` is called only when given (it costs a copy). */
export function countingSocket(url, counter, onFrame, headers = {}) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      headers: {
        ...headers,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
      },
    });
    request.on('upgrade', (_response, socket, head) => {
      let pending = head.length > 0 ? head : Buffer.alloc(0);
      const consume = () => {
        let offset = 0;
        for (;;) {
          if (pending.length - offset < 2) break;
          let length = pending[offset + 1] & 0x7f;
          let start = offset + 2;
          if (length === 126) {
            if (pending.length - offset < 4) break;
            length = pending.readUInt16BE(offset + 2);
            start = offset + 4;
          } else if (length === 127) {
            if (pending.length - offset < 10) break;
            length = Number(pending.readBigUInt64BE(offset + 2));
            start = offset + 10;
          }
          if (pending.length < start + length) break;
          counter.messages++;
          if (onFrame) onFrame(pending.subarray(start, start + length));
          offset = start + length;
        }
        pending = offset === pending.length ? Buffer.alloc(0) : pending.subarray(offset);
      };
      socket.on('data', (chunk) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        consume();
      });
      socket.on('error', () => undefined);
      consume();
      resolve({
        socket,
        /** Sends a short text frame (clients must mask). */
        send(text) {
          const data = Buffer.from(text);
          const mask = randomBytes(4);
          const frame = Buffer.concat([
            Buffer.from([0x81, 0x80 | data.length]),
            mask,
            data.map((b, i) => b ^ mask[i % 4]),
          ]);
          socket.write(frame);
        },
        close: () => socket.destroy(),
      });
    });
    request.on('response', (response) => reject(new Error(`no upgrade: HTTP ${response.statusCode}`)));
    request.on('error', reject);
    request.end();
  });
}
