import type jsonPatch from 'fast-json-patch';
import { requireFeature, requireFeatureEnv } from '../../core/state/lookup.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import { applyPatch } from '../../http/patch.js';
import { setEnvironmentVariants } from './logic.js';
import { variantReplies, variantSchemas } from './schema.js';
import type { VariantInput } from './weights.js';
import { jsonPatchSchema } from '../../http/patch.js';

const FEATURE = '/api/admin/projects/:projectId/features/:featureName';
const ENV_VARIANTS = `${FEATURE}/environments/:environment/variants`;
const TAG = 'Variants';
const PERMISSION = 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS';
const inEnv = (p: Record<string, string>) => ({ project: p.projectId, environment: p.environment });

/**
 * Unleash 6+ answers 403 on the single-environment PUT/PATCH unless the flag already has
 * environment variants (it steers users to strategy variants); Fanion keeps them usable.
 */
export function variantRoutes(ctx: AppContext): RouteDef[] {
  ctx.schemas.addAll(variantSchemas);
  ctx.schemas.describe(variantReplies);
  ctx.schemas.add('patchesSchema', jsonPatchSchema);
  const { engine } = ctx;
  const current = (p: Record<string, string>) => {
    const feature = requireFeature(engine.state, p.projectId, p.featureName);
    return requireFeatureEnv(engine.state, feature, p.environment).variants;
  };
  const write = async (actor: Parameters<typeof engine.run>[0], p: Record<string, string>, environments: string[], variants: VariantInput[]) =>
    engine.run(actor, setEnvironmentVariants(p.projectId, p.featureName, environments, variants));
  return [
    {
      method: 'GET', path: ENV_VARIANTS, tag: TAG, summary: "A flag's variants in an environment", reply: variantReplies.variantsReplySchema, permission: 'READ', scope: inEnv,
      handler: ({ params }) => ({ status: 200, body: { version: 1, variants: current(params) } }),
    },
    {
      method: 'PUT', path: ENV_VARIANTS, tag: TAG, summary: "Replace a flag's variants in an environment", reply: variantReplies.variantsReplySchema, body: variantSchemas.variantsSchema,
      permission: PERMISSION, scope: inEnv, responses: { 200: 'The stored variants', 400: 'Invalid, or weights that do not add up', 404: 'Unknown project, flag or environment' },
      handler: async ({ params, body, actor }) => ({
        status: 200,
        body: { version: 1, variants: await write(actor, params, [params.environment], body as VariantInput[]) },
      }),
    },
    {
      method: 'PATCH', path: ENV_VARIANTS, tag: TAG, summary: "Change a flag's variants in an environment with JSON Patch", reply: variantReplies.variantsReplySchema, body: jsonPatchSchema,
      permission: PERMISSION, scope: inEnv, responses: { 200: 'The stored variants', 400: 'A patch that does not apply, or an invalid result', 404: 'Unknown project, flag or environment' },
      handler: async ({ params, body, actor }) => {
        const patched = applyPatch(current(params), body as jsonPatch.Operation[]);
        const input = ctx.schemas.check<VariantInput[]>(variantSchemas.variantsSchema, patched);
        return { status: 200, body: { version: 1, variants: await write(actor, params, [params.environment], input) } };
      },
    },
    {
      method: 'PUT', path: `${FEATURE}/variants-batch`, tag: TAG, summary: 'Set the same variants in several environments', reply: variantReplies.variantsReplySchema, body: variantSchemas.pushVariantsSchema,
      permission: PERMISSION, scope: (p) => ({ project: p.projectId }),
      // The environments are in the body, out of the route scope's sight: each is checked.
      bodyScopes: (b: { environments: string[] }, p) => b.environments.map((environment) => ({ project: p.projectId, environment })),
      responses: { 200: 'The stored variants', 400: 'Invalid, or weights that do not add up', 404: 'Unknown project, flag or environment' },
      handler: async ({ params, body, actor }) => {
        const { environments, variants } = body as { environments: string[]; variants: VariantInput[] };
        return { status: 200, body: { version: 1, variants: await write(actor, params, environments, variants) } };
      },
    },
  ];
}
