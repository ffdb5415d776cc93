// The baselines every ratio is measured against: a bare Fastify route returning a stored 1 KB JSON document from a
// Map (reads), and a bare Fastify route that parses a posted JSON body, keeps it in a Map and echoes it (creates).
import Fastify from 'fastify';

const doc = {
  apiVersion: 'people.svc.run/v1alpha1',
  kind: 'Person',
  metadata: { name: 'x' },
  spec: { note: 'x'.repeat(900) },
};
const docs = new Map([['x', Buffer.from(JSON.stringify(doc))]]);
const app = Fastify({ logger: false });
app.get('/doc/:id', (request, reply) => reply.type('application/json').send(docs.get(request.params.id)));
app.post('/apis/people.svc.run/v1alpha1/persons', (request, reply) => {
  docs.set(request.body.metadata.name, JSON.stringify(request.body));
  reply.code(201).send(request.body);
});
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`baseline listening on http://127.0.0.1:${app.server.address().port}`);
