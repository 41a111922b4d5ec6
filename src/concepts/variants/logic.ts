// Pure commands for a flag's per-environment variants. The weights are recomputed on every
// write with Unleash's rules (weights.ts), so what is stored always adds up to 1000.
import type { Change, EventDraft } from '../../core/engine/command.js';
import { requireFeature, requireFeatureEnv } from '../../core/state/lookup.js';
import type { Op } from '../../core/state/ops.js';
import type { State } from '../../core/state/state.js';
import type { Variant } from '../../core/state/types.js';
import { normalizeVariants, type VariantInput } from './weights.js';

/**
 * Sets the same variants in each listed environment, one event per environment. Every
 * environment is checked before anything is built, so a bad one leaves all of them unchanged.
 */
export function setEnvironmentVariants(project: string, featureName: string, environments: string[], input: VariantInput[]) {
  return (state: State): Change<Variant[]> => {
    const feature = requireFeature(state, project, featureName);
    const configs = environments.map((environment) => requireFeatureEnv(state, feature, environment));
    const variants = normalizeVariants(input, 'variants', true);
    const ops: Op[] = [];
    const events: EventDraft[] = [];
    configs.forEach((fe) => {
      ops.push({ o: 'featureEnv.put', feature: featureName, env: { ...fe, variants } });
      events.push({
        type: 'feature-environment-variants-updated',
        project,
        featureName,
        environment: fe.environment,
        data: { variants },
        preData: { variants: fe.variants },
      });
    });
    return { ops, events, result: variants };
  };
}
