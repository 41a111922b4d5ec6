// POST /api/admin/playground and /advanced: what every flag would do for a context, and why
// (logic.ts). Read-only; a token limited to some projects or an environment sees only those.
import type { IncomingMessage } from 'node:http';
import { NoAccessError } from '../../core/errors.js';
import { JsonText } from '../../http/respond.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { HOSTNAME } from '../evaluation/answers.js';
import { Slicer } from '../../core/slices.js';
import { advancedSteps, playgroundSteps, type AdvancedRequest, type PlaygroundRequest, type Scope } from './logic.js';
import { playgroundReplies, playgroundSchemas } from './schema.js';

const TAG = 'Playground';

/**
 * An answer evaluated and serialized a slice at a time: thousands of flags, or 15,000 evaluations
 * (about 10 MB), would otherwise hold the event loop for a second or more, and one JSON.stringify
 * of the whole for hundreds of milliseconds.
 */
async function sliced(steps: Generator<void, { input: unknown; features: Record<string, unknown>[] }>): Promise<JsonText> {
  const slicer = new Slicer();
  const answer = await slicer.run(steps);
  let text = `{"input":${JSON.stringify(answer.input)},"features":[`;
  for (const [i, f] of answer.features.entries()) {
    text += (i === 0 ? '' : ',') + JSON.stringify(f);
    await slicer.between();
  }
  return new JsonText(`${text}]}`);
}

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
      handler: async ({ req, body }) => {
        const b = body as PlaygroundRequest;
        return { status: 200, body: await sliced(playgroundSteps(engine.state, b, scopeOf(req, [b.environment]), runtime())) };
      },
    },
    {
      method: 'POST', path: '/api/admin/playground/advanced', tag: TAG, permission: 'READ', scope: () => ({ visibleOnly: true }),
      body: playgroundSchemas.advancedPlaygroundRequestSchema, reply: playgroundReplies.advancedPlaygroundResponseSchema, responses,
      summary: 'Every flag in several environments for every combination of the context values (comma-separated lists)',
      handler: async ({ req, body }) => {
        const b = body as AdvancedRequest;
        return { status: 200, body: await sliced(advancedSteps(engine.state, b, scopeOf(req, b.environments), runtime())) };
      },
    },
  ];
}
