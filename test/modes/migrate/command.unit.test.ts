// The migration command, pure: state + document → one change. A flag brought over is replaced
// whole; tokens are stored by hash with Unleash's scope (a deleted one stays deleted); context
// fields are added or updated; running it again changes nothing; a bad item refuses it all.
import t from 'tap';
import { resolveEvents } from '../../../src/core/engine/command.js';
import { migrateFromUnleash, type MigrationInput } from '../../../src/modes/migrate/command.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { storeEvent } from '../../../src/core/state/events/stored.js';
import type { State } from '../../../src/core/state/state.js';
import { TOKEN_LIMIT, type TokenImport } from '../../../src/concepts/tokens/logic.js';
import { runFailingSliced, runPureSliced } from '../../core/engine/pure.js';
import { Slicer } from '../../../src/core/slices.js';
import { fixedEnv, fixtureState } from '../../core/state/fixture.js';

const token = (over: Partial<TokenImport> = {}): TokenImport => ({
  hash: 'a'.repeat(64), prefix: 'shop:production.', tokenName: 'shop-sdk', type: 'client', environment: 'production', projects: ['shop'], expiresAt: null, createdAt: '2024-05-05T00:00:00Z', ...over,
});

function input(over: Partial<MigrationInput> = {}): MigrationInput {
  return {
    state: {
      version: 1,
      projects: [{ id: 'shop', name: 'Shop', createdAt: '2024-01-01T00:00:00.000Z' }],
      environments: [{ name: 'development', type: 'development', sortOrder: 2 }, { name: 'production', type: 'production', sortOrder: 3 }],
      // alpha exists in the fixture with strategies s1, s2, s3 (development), s4 (production) and two tags.
      features: [{ name: 'alpha', project: 'default', description: 'from Unleash', createdAt: '2024-01-01T00:00:00.000Z' }, { name: 'cart', project: 'shop', createdAt: '2024-01-01T00:00:00.000Z' }],
      featureEnvironments: [{ featureName: 'alpha', environment: 'development', enabled: true }, { featureName: 'cart', environment: 'production', enabled: true }],
      featureStrategies: [
        { id: 's2', featureName: 'alpha', environment: 'development', name: 'default', sortOrder: 0 },
        { id: '01JCART', featureName: 'cart', environment: 'production', name: 'flexibleRollout', sortOrder: 0, parameters: { rollout: '50', stickiness: 'userId', groupId: 'cart' } },
      ],
      featureTags: [{ featureName: 'alpha', tagType: 'team', tagValue: 'core' }],
    },
    contextFields: [
      { name: 'tier', description: 'plan', legalValues: [{ value: 'gold', description: '' }], stickiness: true, sortOrder: 1, createdAt: '2024-01-01T00:00:00.000Z' },
      { name: 'country', description: '', legalValues: [{ value: 'NO', description: '' }, { value: 'SE', description: '' }], stickiness: false, sortOrder: 10, createdAt: null },
    ],
    tokens: [token()],
    ...over,
  };
}

t.test('a flag brought over is replaced whole; the rest of the state stays', async (t) => {
  const { change, after } = await runPureSliced(t, migrateFromUnleash(input()));
  t.same([...after.strategies.values()].filter((s) => s.featureName === 'alpha').map((s) => s.id), ['s2'], "alpha's strategies Unleash does not have are gone (s1, s3 and s4 in production)");
  t.same(after.featureTags.get('alpha'), [{ type: 'team', value: 'core' }], 'and its tag simple:x');
  t.same(after.featureTags.get('beta'), [{ type: 'simple', value: 'x' }], "beta is not in the document: untouched, tags included");
  t.equal(after.features.get('alpha')!.description, 'from Unleash');
  t.equal(after.strategies.get('01JCART')!.projectId, 'shop', 'the new flag in its new project');
  t.same(change.result.strategiesRemoved, 3);
  t.same(change.result.tagsRemoved, 1);
  t.same(change.events.filter((e) => e.type === 'feature-strategy-remove').map((e) => [e.featureName, e.environment, (e.preData as { id: string }).id]), [['alpha', 'development', 's1'], ['alpha', 'development', 's3'], ['alpha', 'production', 's4']]);
  t.same(change.events.filter((e) => e.type === 'feature-untagged').map((e) => e.preData), [{ type: 'simple', value: 'x' }]);
});

t.test('tokens: stored by hash with their scope; the change carries no secret; one deleted here stays deleted', async (t) => {
  const revoked = token({ hash: 'h0', tokenName: 'was-deleted-here', projects: ['*'], environment: 'development' });
  const existing = token({ hash: 'h1', tokenName: 'renamed-in-unleash', environment: 'development', projects: ['*'] });
  const { change, after } = await runPureSliced(t, migrateFromUnleash(input({ tokens: [token(), revoked, existing] })));
  const stored = after.apiTokens.get('a'.repeat(64))!;
  t.same([stored.tokenName, stored.type, stored.projects, stored.environment, stored.createdAt, stored.prefix], ['shop-sdk', 'client', ['shop'], 'production', '2024-05-05T00:00:00.000Z', 'shop:production.'], "Unleash's name, scope and creation date; the project comes in the same change");
  t.notOk(after.apiTokens.has('h0'), 'a token deleted here is not brought back');
  t.equal(after.apiTokens.get('h1')!.tokenName, 'renamed-in-unleash', 'one already here takes Unleash’s name');
  t.equal(after.apiTokens.get('h1')!.createdAt, '2026-01-01T00:00:00.000Z', 'and keeps its own creation date');
  t.same(change.result.tokens, { added: 1, updated: 1, unchanged: 0, stayDeleted: 1 });
  const created = change.events.find((e) => e.type === 'api-token-created')!;
  t.notOk('secret' in (created.data as object), 'events show tokens without secrets');
});

t.test('context fields are added and updated; built-ins are left alone', async (t) => {
  const { change, after } = await runPureSliced(t, migrateFromUnleash(input({ contextFields: [...input().contextFields, { name: 'userId', description: 'mine', legalValues: [], stickiness: false, sortOrder: 0, createdAt: null }] })));
  t.same(after.contextFields.get('tier')!.legalValues, [{ value: 'gold', description: '' }]);
  t.same(after.contextFields.get('country')!.legalValues.map((v) => v.value), ['NO', 'SE']);
  t.notOk(after.contextFields.has('userId'));
  t.same(change.result.contextFields, { added: 1, updated: 1 });
});

t.test('running it again over its own result changes nothing', async (t) => {
  const once = fixtureState();
  const c = await migrateFromUnleash(input())(once, fixedEnv(), new Slicer());
  const migrated = (): State => {
    const s = fixtureState();
    applyRecord(s, { lsn: 2, ops: c.ops, events: resolveEvents(s, fixedEnv(), c.events).map(storeEvent) }, false);
    return s;
  };
  const { change } = await runPureSliced(t, migrateFromUnleash(input()), migrated);
  t.same([change.ops.length, change.events.length], [0, 0]);
  t.same(change.result.tokens, { added: 0, updated: 0, unchanged: 1, stayDeleted: 0 });
});

t.test('a bad item refuses the whole migration, naming it', async (t) => {
  const cases: [string, Partial<MigrationInput>, RegExp][] = [
    ['a token of a project that does not exist', { tokens: [token({ projects: ['nowhere'] })] }, /tokens\[0\] \("shop-sdk"\): project "nowhere" does not exist/],
    ['an SDK token for every environment', { tokens: [token({ environment: '*' })] }, /a client token belongs to one environment, not "\*"/],
    ['a token with a broken date', { tokens: [token({ expiresAt: 'soon' })] }, /"expiresAt" must be a date-time/],
    ['legal values given twice', { contextFields: [{ name: 'tier', description: '', legalValues: [{ value: 'a', description: '' }, { value: 'a', description: '' }], stickiness: false, sortOrder: 0, createdAt: null }] }, /context field "tier": legal values must be unique/],
    ['a context field name Fanion cannot store', { contextFields: [{ name: 'a b', description: '', legalValues: [], stickiness: false, sortOrder: 0, createdAt: null }] }, /contextFields\[0\]\.name/],
    ['more tokens than the limit', { tokens: Array.from({ length: TOKEN_LIMIT }, (_, i) => token({ hash: i.toString(16).padStart(64, '0') })) }, /more than the limit of 2000/],
  ];
  for (const [what, over, message] of cases) {
    const err = await runFailingSliced(t, migrateFromUnleash(input(over)), 'ValidationError');
    t.match(err.message, message, what);
  }
});
