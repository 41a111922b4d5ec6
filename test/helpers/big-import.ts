// Large import documents, as an operator moving a big installation would send them: the
// features-batch import of issue #26 (50,000 flags, one strategy each, variants and a tag) and a
// state import of many strategies. Shared by the stall tests and `npm run bench:import-stall`.

/** A features-batch `data` document of `flags` flags, each with a rollout strategy, variants and a tag. */
export function batchDocument(flags: number, prefix = 'imported') {
  const features = [];
  const featureStrategies = [];
  const featureEnvironments = [];
  const featureTags = [];
  for (let i = 0; i < flags; i++) {
    const name = `${prefix}-flag-${i}`;
    features.push({ name, type: 'release', description: `Flag ${i} of a large import`, stale: false, impressionData: false });
    featureStrategies.push({
      name: 'flexibleRollout',
      featureName: name,
      title: null,
      disabled: false,
      sortOrder: 0,
      parameters: { rollout: String(i % 101), stickiness: 'default', groupId: name },
      constraints: [{ contextName: 'userId', operator: 'IN', values: [`user-${i}`, `user-${i + 1}`, `user-${i + 2}`], caseInsensitive: false, inverted: false }],
      variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }],
      segments: [],
    });
    featureEnvironments.push({
      featureName: name,
      environment: 'development',
      enabled: i % 2 === 0,
      variants: [
        { name: 'red', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: `red-${i}` } },
        { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default' },
      ],
    });
    featureTags.push({ featureName: name, tagType: 'simple', tagValue: `batch-${i % 100}` });
  }
  return { features, featureStrategies, featureEnvironments, featureTags, tagTypes: [{ name: 'simple', description: 'Simple tags' }] };
}

/**
 * A state document of `strategies` strategies over `strategies / 10` flags. With `refusedAt`, the
 * strategy at that index names a flag that does not exist, so the whole import is refused after
 * everything before it was checked.
 */
export function stateDocument(strategies: number, opts: { refusedAt?: number; prefix?: string } = {}) {
  const prefix = opts.prefix ?? 'state';
  const flags = Math.max(1, Math.ceil(strategies / 10));
  const features = [];
  for (let i = 0; i < flags; i++) features.push({ name: `${prefix}-flag-${i}`, project: 'default', type: 'release', description: `Flag ${i}` });
  const featureStrategies = [];
  for (let i = 0; i < strategies; i++) {
    const featureName = i === opts.refusedAt ? `${prefix}-missing-flag` : `${prefix}-flag-${Math.floor(i / 10)}`;
    featureStrategies.push({
      id: `${prefix}-strategy-${i}`,
      featureName,
      environment: 'development',
      strategyName: 'flexibleRollout',
      parameters: { rollout: '50', stickiness: 'default', groupId: featureName },
      constraints: [{ contextName: 'userId', operator: 'IN', values: [`user-${i}`] }],
      sortOrder: i % 10,
    });
  }
  return { version: 4, features, featureStrategies };
}
