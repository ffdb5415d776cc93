import { definePlugin } from '@svc/plugin-api';
import { ownPersonRoutes } from './own-persons.js';
import { GENDERS, personModel } from './person.js';
import { personReconciler } from './reconciler.js';
import { CONSOLE_API_VERSION } from './vocabulary.js';

export default definePlugin({
  async start(ctx) {
    await ctx.models.register(personModel);
    // Fills status (age group, Ready condition) and says farewell through a finalizer before a person is removed.
    ctx.reconcilers.add(personReconciler);

    // Answered from the spec.gender index alone: no object is read.
    ctx.routes.add({
      apiVersion: CONSOLE_API_VERSION,
      method: 'GET',
      path: '/stats',
      summary: 'How many persons there are, in all and by gender',
      schema: {
        response: {
          type: 'object',
          required: ['total', 'byGender'],
          properties: {
            total: { type: 'integer' },
            byGender: { type: 'object', additionalProperties: { type: 'integer' } },
          },
        },
      },
      async handler() {
        const counts = await ctx.client.countBy(personModel, 'spec.gender');
        const byGender = Object.fromEntries(GENDERS.map((g) => [g, counts[g] ?? 0]));
        return { total: await ctx.client.count(personModel), byGender };
      },
    });
    for (const route of ownPersonRoutes(ctx)) ctx.routes.add(route);
  },
});
