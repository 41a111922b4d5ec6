// The pure mapping from what was read of Unleash to what Fanion stores: served order, parameters,
// tokens (secrets, v2 selectors, types, scopes), built-in context fields, and what is left behind.
import t from 'tap';
import { migrationDocument, unleashServedOrder, V2_TOKEN, whereIs } from '../../../src/modes/migrate/mapping.js';
import type { UnleashSnapshot } from '../../../src/modes/migrate/reader.js';
import type { UStrategy } from '../../../src/modes/migrate/unleash-answers.js';

function snapshot(over: Partial<UnleashSnapshot> = {}): UnleashSnapshot {
  return {
    url: 'http://u', version: '8.2.0', projects: [{ id: 'default' }], environments: [{ name: 'development' }], flags: [], flagTags: new Map(), archivedListed: true,
    segments: [], strategyTypes: [], contextFields: [], tagTypes: [], tags: [], tokens: [], users: null, addons: null, vanished: [], ...over,
  };
}

const s = (id: string, sortOrder: number | null, extra: Partial<UStrategy> = {}): UStrategy => ({ id, name: 'default', sortOrder, ...extra });

t.test('strategies come in the order Unleash serves them: release plans first, sortOrder, then id', async (t) => {
  const list = [s('C', 1), s('B', 0), s('A', 1), s('M', 9, { milestoneId: 'plan' })];
  t.same([...list].sort(unleashServedOrder).map((x) => x.id), ['M', 'B', 'A', 'C']);
  const doc = migrationDocument(snapshot({
    flags: [
      { name: 'f', project: 'default', environments: [{ name: 'development', strategies: [s('C', 1), s('B', 0), s('A', 1)] }] },
      { name: 'g', project: 'default', environments: [{ name: 'development', strategies: [s('C', 1), s('B', 0), s('M', 9, { milestoneId: 'plan' })] }] },
    ],
  }));
  const of = (flag: string) => doc.state.featureStrategies!.filter((x) => x.featureName === flag).map((x) => `${x.id}@${x.sortOrder}`);
  t.same(of('f'), ['B@0', 'A@1', 'C@1'], 'sortOrder values kept; the tie listed by id, as Unleash breaks it');
  t.same(of('g'), ['M@0', 'B@1', 'C@2'], 'a release-plan strategy first: positions become the sortOrder');
});

t.test('parameters, dependencies, archived flags and tags map as Fanion stores them', async (t) => {
  const doc = migrationDocument(snapshot({
    flags: [
      {
        name: 'f', project: 'default', dependencies: [{ feature: 'p', enabled: false, variants: ['x'] }, { feature: 'q', enabled: true }],
        environments: [{ name: 'development', enabled: true, strategies: [s('A', 0, { parameters: { rollout: 50, on: true, gone: null, odd: { a: 1 } } as never })] }],
      },
      { name: 'old', project: 'default', archived: true, archivedAt: '2025-01-01T00:00:00.000Z', environments: [] },
    ],
    flagTags: new Map([['f', [{ type: 'simple', value: 'a' }]]]),
    tags: [{ type: 'simple', value: 'b' }],
  }));
  t.same(doc.state.featureStrategies![0].parameters, { rollout: 50, on: true, odd: '{"a":1}' }, 'null dropped, objects as JSON text (the import makes them strings)');
  t.same(doc.state.features![0].dependencies, [{ feature: 'p', enabled: false }, { feature: 'q', enabled: true, variants: [] }], 'no variants on a dependency on a flag being off');
  t.same([doc.state.features![1].archived, doc.state.features![1].archivedAt], [true, '2025-01-01T00:00:00.000Z']);
  t.same(doc.state.tags, [{ type: 'simple', value: 'b' }, { type: 'simple', value: 'a' }], 'tags listed and tags in use');
  t.same(doc.state.featureTags, [{ featureName: 'f', tagType: 'simple', tagValue: 'a' }]);
});

t.test('tokens keep their secret, name, type, scope and expiry; v2 ones need their secret given', async (t) => {
  const selector = 'Q'.repeat(22);
  const v2 = `default:development.v2_${selector}_${'s'.repeat(43)}`;
  t.ok(V2_TOKEN.test(v2), 'the v2 form as Unleash 8.1 issues it');
  const doc = migrationDocument(snapshot({
    tokens: [
      { secret: '*:*.abc', tokenName: 'admin', type: 'admin', projects: ['*'], environment: '*' },
      { secret: 'x:development.def', username: 'old-name', type: 'backend', project: 'b,a', environment: 'development', expiresAt: '2030-01-01T00:00:00Z', createdAt: '2024-01-01T00:00:00Z' },
      { secret: 'default:development.ghi', tokenName: 'fe', type: 'FRONTEND', projects: ['default'], environment: 'development' },
      { secret: selector, tokenName: 'secure', type: 'backend', projects: ['default'], environment: 'development', secure: true },
      { secret: 'R'.repeat(22), tokenName: 'secure-unknown', type: 'client', projects: ['default'], environment: 'development', secure: true },
      { secret: 'user:xyz', tokenName: 'pat', type: 'personal', projects: ['*'], environment: '*' },
    ],
  }), { v2Secrets: [v2, 'not a token'] });
  t.same(doc.tokens, [
    { secret: '*:*.abc', tokenName: 'admin', type: 'admin', environment: '*', projects: ['*'], expiresAt: null, createdAt: null },
    { secret: 'x:development.def', tokenName: 'old-name', type: 'client', environment: 'development', projects: ['a', 'b'], expiresAt: '2030-01-01T00:00:00Z', createdAt: '2024-01-01T00:00:00Z' },
    { secret: 'default:development.ghi', tokenName: 'fe', type: 'frontend', environment: 'development', projects: ['default'], expiresAt: null, createdAt: null },
    { secret: v2, tokenName: 'secure', type: 'client', environment: 'development', projects: ['default'], expiresAt: null, createdAt: null },
  ]);
  t.match(doc.left.join('\n'), /API token "pat": its type "personal" is not one Fanion has/);
  t.match(doc.left.join('\n'), /1 v2 API token\(s\) \("secure-unknown"\): Unleash keeps only a verifier of their secrets/);
});

t.test('built-in context fields stay built in; what cannot come over is listed', async (t) => {
  const doc = migrationDocument(snapshot({
    contextFields: [{ name: 'userId', description: 'x', stickiness: false }, { name: 'tier', legalValues: [{ value: 'gold' }], stickiness: true, sortOrder: 3 }],
    users: 2, addons: ['webhook', 'webhook', 'slack'], vanished: ['gone'], archivedListed: false,
  }));
  t.same(doc.contextFields, [{ name: 'tier', description: '', legalValues: [{ value: 'gold', description: '' }], stickiness: true, sortOrder: 3, createdAt: null }]);
  t.same(doc.left.slice(0, 4), [
    '1 flag(s) deleted in Unleash while it was being read ("gone")',
    'archived flags: this Unleash cannot list them (no feature search)',
    '2 user account(s), with their passwords, roles and personal access tokens: Fanion has API tokens only',
    '3 addon(s) (webhook, slack): Unleash does not hand over their secrets; recreate webhooks with POST /api/admin/addons',
  ]);
  t.equal(migrationDocument(snapshot()).left.length, 1, 'with nothing to report, only what never comes over');
});

t.test('a refusal names the Unleash item it is about', async (t) => {
  const doc = migrationDocument(snapshot({
    flags: [{ name: 'f', project: 'default', environments: [{ name: 'development', strategies: [s('01J', 0)] }] }],
    segments: [{ id: 4, name: 'beta' }],
    tokens: [{ secret: 'a:b.c', tokenName: 'sdk', type: 'client', projects: ['a'], environment: 'b' }],
  }));
  t.equal(whereIs(doc, 'featureStrategies[0].constraints[2].operator'), 'flag "f", environment "development", strategy 01J');
  t.equal(whereIs(doc, 'features[0].name'), 'flag "f"');
  t.equal(whereIs(doc, 'segments[0]'), 'segment 4 "beta"');
  t.equal(whereIs(doc, 'tokens[0].projects'), 'API token "sdk"');
  t.equal(whereIs(doc, 'features[7]'), null, 'an index out of range names nothing');
  t.equal(whereIs(doc, 'strategies'), null);
});
