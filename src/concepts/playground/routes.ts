// POST /api/admin/playground and /advanced: what every flag would do for a context, and why
// (logic.ts). Read-only; a token limited to some projects or an environment sees only those.
import type { IncomingMessage } from 'node:http';
import { NoAccessError } from '../../core/errors.js';
import { JsonText } from '../../http/respond.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { HOSTNAME } from '../evaluation/answers.js';
import { Slicer } from '../../core/slices.js';
import { advancedSteps, playground, type AdvancedRequest, type PlaygroundRequest, type Scope } from './logic.js';
import { playgroundReplies, playgroundSchemas } from './schema.js';

const TAG = 'Playground';

export function playgroundRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(playgroundSchemas);
  ctx.schemas.describe(playgroundReplies);
  const { engine } = ctx;
  const runtime = () => ({ random: Math.random, now: () => engine.now().getTime(), hostname: HOSTNAME, volatile: false });
  /** What the caller may see: its projects, and the environments asked about must be its own. */
  const scopeOf = (req: IncomingMessage, environments: string[]): Scope => {
    const view = ctx.auth.adminView(req);
    const outside = view.environment === '*' ? [] : environments.filter((e) => e !== view.environment);
    if (outside.length > 0) {
      throw new NoAccessError(`You need permission=READ to perform this action on environment=${outside[0]}: this token is limited to environment=${view.environment}.`);
    }
    const all = view.projects.includes('*');
    return { visible: (project) => all || view.projects.includes(project), hostname: HOSTNAME };
  };
  const responses = { 200: '{input, features}', 400: 'A body out of bounds (too many combinations)', 403: 'An environment the token does not reach' };
  return [
    {
      method: 'POST', path: '/api/admin/playground', tag: TAG, permission: 'READ', scope: () => ({ visibleOnly: true }),
      body: playgroundSchemas.playgroundRequestSchema, reply: playgroundReplies.playgroundResponseSchema, responses,
      summary: 'Every flag in one environment for a context: on or off, each strategy, constraint and segment with its result, the variant',
      handler: ({ req, body }) => {
        const b = body as PlaygroundRequest;
        return { status: 200, body: playground(engine.state, b, scopeOf(req, [b.environment]), runtime()) };
      },
    },
    {
      method: 'POST', path: '/api/admin/playground/advanced', tag: TAG, permission: 'READ', scope: () => ({ visibleOnly: true }),
      body: playgroundSchemas.advancedPlaygroundRequestSchema, reply: playgroundReplies.advancedPlaygroundResponseSchema, responses,
      summary: 'Every flag in several environments for every combination of the context values (comma-separated lists)',
      handler: async ({ req, body }) => {
        const b = body as AdvancedRequest;
        const slicer = new Slicer();
        const answer = await slicer.run(advancedSteps(engine.state, b, scopeOf(req, b.environments), runtime()));
        // Serialized a flag at a time as well: one JSON.stringify of the whole (up to about 16 MB)
        // would hold the event loop for hundreds of milliseconds.
        let text = `{"input":${JSON.stringify(answer.input)},"features":[`;
        for (const [i, f] of answer.features.entries()) {
          text += (i === 0 ? '' : ',') + JSON.stringify(f);
          await slicer.between();
        }
        return { status: 200, body: new JsonText(`${text}]}`) };
      },
    },
  ];
}
