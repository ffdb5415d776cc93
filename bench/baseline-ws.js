// The fan-out baseline of bench/watch.js: a bare `ws` server that sends one shared Buffer to every connected client
// as fast as the clients take it. Started as a child process; prints its URL like svc does.
import { WebSocketServer } from 'ws';

const payload = Buffer.from(process.env.BASELINE_PAYLOAD ?? '{}');
// `plain`: one ws.send per message, as an application would; `corked`: ws at its best, 64 sends per write.
const corked = process.env.BASELINE_MODE === 'corked';
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
let sending = false;

function pump() {
  if (!sending) return;
  for (const client of wss.clients) {
    if (client.bufferedAmount >= 1 << 20) continue;
    if (corked) client._socket.cork();
    for (let round = 0; round < 64; round++) client.send(payload, { binary: false });
    if (corked) client._socket.uncork();
  }
  setImmediate(pump);
}

wss.on('connection', (socket) => {
  socket.on('message', (message) => {
    const command = String(message);
    if (command === 'start' && !sending) {
      sending = true;
      pump();
    } else if (command === 'stop') sending = false;
  });
});
wss.on('listening', () => console.log(`baseline-ws listening on http://127.0.0.1:${wss.address().port}`));
