// /api/admin/addons: Unleash's integrations API with its `webhook` provider. Addons reach every
// project's events, so only unlimited admin tokens may see or change them.
import type { AppContext, RouteDef } from '../../http/route.js';
import type { WebhookDeliverer } from './deliverer.js';
import { addonView, createAddon, deleteAddon, PROVIDERS, requireAddon, updateAddon, webhookLimits, type AddonInput } from './logic.js';
import type { Addon } from '../../core/state/types.js';
import { addonReplies, addonSchemas } from './schema.js';

const BASE = '/api/admin/addons';
const TAG = 'Addons';

export function addonRoutes(ctx: AppContext, deliverer: WebhookDeliverer): RouteDef[] {
  ctx.schemas.addAll(addonSchemas);
  ctx.schemas.describe(addonReplies);
  const { engine } = ctx;
  const limits = webhookLimits(ctx.config);
  // Answers hold secrets (the signing secret on creation, the authorization header when given)
  // or describe them: no cache, shared or private, may keep any of them.
  const NO_STORE = { 'Cache-Control': 'no-store' };
  const shown = (addon: Addon, reveal = false) => ({ ...addonView(addon, reveal), delivery: deliverer.status(addon.id) });
  return [
    {
      method: 'GET', path: BASE, tag: TAG, summary: 'List addons (with their delivery) and the providers', reply: addonReplies.addonsSchema, permission: 'ADMIN',
      handler: () => ({ status: 200, body: { addons: [...engine.state.addons.values()].sort((a, b) => a.id - b.id).map((a) => shown(a)), providers: PROVIDERS }, headers: NO_STORE }),
    },
    {
      method: 'GET', path: `${BASE}/:id`, tag: TAG, summary: 'Get an addon, with where its delivery stands (last error, attempts)', reply: addonReplies.addonSchema, permission: 'ADMIN',
      responses: { 200: 'The addon', 404: 'Unknown addon' },
      handler: ({ params }) => ({ status: 200, body: shown(requireAddon(engine.state, params.id)), headers: NO_STORE }),
    },
    {
      method: 'POST', path: BASE, tag: TAG, summary: 'Create an addon; the answer shows its signing secret, this once', reply: addonReplies.addonSchema, body: addonSchemas.createAddonSchema,
      permission: 'ADMIN', responses: { 200: 'Created', 400: 'Invalid: unknown provider, parameter, event type, project or environment; a bad URL or template' },
      handler: async ({ body, actor }) => {
        const addon = await engine.run(actor, createAddon(body as AddonInput, limits));
        return { status: 200, body: shown(addon, true), headers: NO_STORE };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:id`, tag: TAG, summary: 'Replace an addon (sensitive parameters sent as ***** are kept)', reply: addonReplies.addonSchema, body: addonSchemas.updateAddonSchema,
      permission: 'ADMIN', responses: { 200: 'Updated', 400: 'Invalid', 404: 'Unknown addon' },
      handler: async ({ params, body, actor }) => {
        const addon = await engine.run(actor, updateAddon(params.id, body as AddonInput, limits));
        return { status: 200, body: shown(addon), headers: NO_STORE };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/:id`, tag: TAG, summary: 'Delete an addon; nothing more is sent', permission: 'ADMIN',
      responses: { 200: 'Deleted', 404: 'Unknown addon' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deleteAddon(params.id));
        return { status: 200, headers: NO_STORE };
      },
    },
  ];
}
