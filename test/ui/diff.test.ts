// What an event changed, in the console's words (ui/src/diff.ts): bundled as the console bundles
// it and run here without a browser, on made-up events and on those a real server writes.
import t from 'tap';
import { serve } from '../helpers/server.js';
import { uiModule } from '../helpers/ui-module.js';

interface Strategy { name: string; title?: string | null; disabled?: boolean; parameters: Record<string, string>; constraints: any[]; segments: number[]; variants: any[] }
type Event = { type: string; environment?: string | null; data?: unknown; preData?: unknown };
interface Diff {
  eventChanges(e: Event, segmentName?: (id: number) => string): string[];
  eventLines(e: Event, segmentName?: (id: number) => string): { kind: 'added' | 'removed' | 'changed'; text: string }[];
  shown(v: unknown): string;
}

const strategy = (extra: Partial<Strategy> = {}): Strategy => ({
  name: 'flexibleRollout', title: null, disabled: false, parameters: { rollout: '25', stickiness: 'userId', groupId: 'checkout' }, constraints: [], segments: [], variants: [], ...extra,
});
const country = { contextName: 'country', operator: 'IN', values: ['NO', 'SE'], inverted: false, caseInsensitive: false };

t.test('what an event changed, in words', async (t) => {
  const d = await uiModule<Diff>('diff.ts');
  const update = (pre: Partial<Strategy>, post: Partial<Strategy>) => d.eventChanges({ type: 'feature-strategy-update', environment: 'production', preData: strategy(pre), data: strategy(post) });
  t.same(update({}, { parameters: { rollout: '50', stickiness: 'userId', groupId: 'checkout' } }), ['rollout 25 → 50'], 'a rollout moved');
  t.same(update({}, { constraints: [country] }), ['constraint added: country is one of NO, SE']);
  t.same(update({ constraints: [country] }, { constraints: [{ ...country, values: ['NO', 'SE', 'DK'] }] }), ['constraint country: + DK'], 'a value added to a constraint');
  t.same(update({ constraints: [country] }, { constraints: [{ ...country, values: ['NO', 'DK', 'FI'] }] }), ['constraint country: + DK, FI; − SE'], 'values added and removed');
  t.same(update({ constraints: [country] }, { constraints: [{ ...country, inverted: true }] }),
    ['constraint country is one of NO, SE → country NOT is one of NO, SE'], 'negated: the constraint before and after');
  t.same(update({ constraints: [country, country] }, { constraints: [country] }), ['constraint removed: country is one of NO, SE'], 'one of two equal constraints removed');
  t.same(update({}, { disabled: true, title: 'half', parameters: { rollout: '25', stickiness: 'sessionId', groupId: 'checkout' } }), ['title "" → half', 'disabled', 'stickiness userId → sessionId']);
  t.same(update({ segments: [1] }, { segments: [2] }), ['segment added: #2', 'segment removed: #1']);
  t.same(update({ variants: [{ name: 'blue', weight: 1000, weightType: 'variable' }] }, { variants: [{ name: 'blue', weight: 500, weightType: 'variable' }, { name: 'red', weight: 500, weightType: 'variable', payload: { type: 'string', value: 'dark red' } }] }),
    ['variant blue: weight 100% → 50%', 'variant added: red (50%, string "dark red")']);
  t.same(update({}, {}), ['saved without changes']);

  t.same(d.eventChanges({ type: 'feature-strategy-add', environment: 'production', data: strategy({ constraints: [country] }) }),
    ['strategy added in production: 25% of users, by userId, where country is one of NO, SE']);
  t.same(d.eventChanges({ type: 'feature-strategy-remove', environment: 'development', preData: { name: 'default', parameters: {}, constraints: [], segments: [], variants: [] } }), ['strategy removed in development: Everyone']);
  t.same(d.eventChanges({ type: 'feature-environment-enabled', environment: 'production' }), ['turned on in production']);
  t.same(d.eventChanges({ type: 'feature-environment-disabled', environment: 'production' }), ['turned off in production']);
  t.same(d.eventChanges({ type: 'feature-metadata-updated', preData: { name: 'x', type: 'release', description: 'Old text', impressionData: false }, data: { name: 'x', type: 'kill-switch', description: 'New', impressionData: true } }),
    ['type release → kill-switch', 'description "Old text" → New', 'impressionData false → true']);
  t.same(d.eventChanges({ type: 'feature-tagged', data: { type: 'team', value: 'web' } }), ['tag added: team:web']);
  t.same(d.eventChanges({ type: 'feature-untagged', preData: { type: 'team', value: 'web' } }), ['tag removed: team:web']);
  t.same(d.eventChanges({ type: 'feature-dependency-added', data: { feature: 'payments', enabled: true, variants: [] } }), ['depends on payments being on']);
  t.same(d.eventChanges({ type: 'feature-environment-variants-updated', preData: { variants: [] }, data: { variants: [{ name: 'blue', weight: 1000, weightType: 'variable' }] } }), ['variant added: blue (100%)']);
  t.same(d.eventChanges({ type: 'feature-created', data: { name: 'x', type: 'release' } }), ['created as a release flag']);
  t.same(d.eventChanges({ type: 'feature-created', data: { name: 'x', type: 'experiment' } }), ['created as an experiment flag']);
  t.same(d.eventChanges({ type: 'segment-updated', preData: { name: 's', constraints: [], project: null }, data: { name: 's', constraints: [], project: 'shop', meta: { a: 1 } } }),
    ['project none → shop', 'meta set to {"a":1}'], 'any other event: its fields compared');
  t.same(d.eventLines({ type: 'feature-strategy-update', preData: strategy({ constraints: [country] }), data: strategy({ title: 'x', constraints: [{ ...country, values: ['NO'] }], segments: [3] }) }).map((l) => l.kind),
    ['changed', 'removed', 'added'], 'each line says its kind: changed, removed, added');
  t.same(d.eventChanges({ type: 'api-token-created', data: { tokenName: 't', environment: 'production', seenAt: null } }), ['api token t created: environment production'], 'something made: what it holds, in one line');
  t.same(d.eventChanges({ type: 'tag-type-deleted', preData: { name: 'team' } }), ['tag type team deleted']);
  t.same(d.eventChanges({ type: 'release-plan-template-updated', preData: { milestones: [{ name: 'A', strategies: [{ strategyName: 'default', title: 'x' }] }] }, data: { milestones: [{ name: 'A', strategies: [{ strategyName: 'default', title: 'y' }, { strategyName: 'default' }] }] } }),
    ['milestones A: strategies.0.title x → y', 'milestones A: strategies.1 set to {"strategyName":"default"}'], 'no words for unnamed items: the paths in the JSON that changed');
  t.same(d.eventChanges({ type: 'feature-archived', data: null, preData: null }), ['archived']);
  t.same(d.eventLines({ type: 'change-request-approval-added', data: { changeRequestId: 4, title: 'Open up', state: 'In review', approvals: 1, minApprovals: 2 } }),
    [{ kind: 'changed', text: 'change request #4 "Open up" approval added (In review, 1 of 2 approvals)' }]);
  t.same(d.eventLines({ type: 'change-edited', environment: 'production', data: { changeRequestId: 4, change: { id: 1, action: 'updateStrategy', payload: strategy() } } }),
    [{ kind: 'changed', text: 'change edited in request #4 in production: edit strategy: 25% of users, by userId' }]);
  t.same(d.eventChanges({ type: 'something-new', data: null, preData: null }), [], 'nothing to say: no line');
});

// The shapes a real server writes, not ones made up here: a server is driven through the admin API
// across every concept whose events the console shows, and its /api/admin/events answer is read
// through the diff.
t.test('the events a real server writes, each in words and marked', async (t) => {
  const d = await uiModule<Diff>('diff.ts');
  const ADMIN = '*:*.diff-words-admin';
  const { ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN }, authorization: ADMIN });
  const F = '/api/admin/projects/shop/features';
  const S = `${F}/checkout/environments/development/strategies`;
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop', description: 'the shop' });
  await ok('PUT', '/api/admin/projects/shop', { id: 'shop', name: 'Shop 2', description: 'the shop!' });
  await ok('POST', '/api/admin/environments', { name: 'staging', type: 'test' });
  await ok('PUT', '/api/admin/environments/update/staging', { type: 'preproduction', sortOrder: 4 });
  await ok('POST', '/api/admin/strategies', { name: 'byHost', description: 'hosts', parameters: [{ name: 'hosts', type: 'list', description: '', required: false }] });
  await ok('PUT', '/api/admin/strategies/byHost', { name: 'byHost', description: 'hosts', parameters: [{ name: 'hosts', type: 'list', description: '', required: true }, { name: 'port', type: 'string' }] });
  await ok('POST', '/api/admin/strategies/byHost/deprecate');
  await ok('POST', '/api/admin/context', { name: 'country', legalValues: [{ value: 'NO' }, { value: 'SE' }] });
  await ok('PUT', '/api/admin/context/country', { name: 'country', legalValues: [{ value: 'NO' }, { value: 'SE' }, { value: 'DK', description: 'Denmark' }], stickiness: true });
  await ok('POST', '/api/admin/tag-types', { name: 'team', description: 'teams' });
  await ok('POST', '/api/admin/tags', { type: 'team', value: 'web' });
  const nordics = await ok('POST', '/api/admin/segments', { name: 'nordics', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }] });
  await ok('PUT', `/api/admin/segments/${nordics.id}`, { name: 'nordics', description: 'north', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE', 'DK'] }] });
  await ok('POST', F, { name: 'checkout', description: 'x' });
  await ok('PATCH', `${F}/checkout`, [{ op: 'replace', path: '/description', value: 'y' }]);
  const rollout = await ok('POST', S, { name: 'flexibleRollout', parameters: { rollout: '25', stickiness: 'default', groupId: 'checkout' }, constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }] });
  await ok('PUT', `${S}/${rollout.id}`, { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: 'checkout' }, constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'DK'] }], segments: [nordics.id] });
  const everyone = await ok('POST', S, { name: 'default' });
  await ok('POST', `${S}/set-sort-order`, [{ id: everyone.id, sortOrder: 0 }, { id: rollout.id, sortOrder: 1 }]);
  await ok('POST', `${F}/checkout/environments/development/on`);
  await ok('PUT', `${F}/checkout/environments/development/variants`, [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }]);
  await ok('PATCH', `${F}/checkout/environments/development/variants`, [{ op: 'add', path: '/1', value: { name: 'red', weightType: 'variable', weight: 500, stickiness: 'default', payload: { type: 'string', value: 'dark' } } }]);
  await ok('POST', '/api/admin/features/checkout/tags', { type: 'team', value: 'web' });
  await ok('DELETE', '/api/admin/features/checkout/tags/team/web');
  await ok('DELETE', `${S}/${everyone.id}`);
  const template = { name: 'Careful', milestones: [{ name: 'Internal', strategies: [{ strategyName: 'flexibleRollout', parameters: { rollout: 10 } }] }, { name: 'All', strategies: [{ strategyName: 'default' }] }] };
  const tpl = await ok('POST', '/api/admin/release-plan-templates', template);
  await ok('PUT', `/api/admin/release-plan-templates/${tpl.id}`, { ...template, milestones: [{ ...template.milestones[0], strategies: [{ strategyName: 'flexibleRollout', parameters: { rollout: 20 } }] }, template.milestones[1]] });
  const plan = await ok('POST', `${F}/checkout/environments/development/release-plans`, { templateId: tpl.id });
  await ok('POST', `${F}/checkout/environments/development/release-plans/${plan.id}/milestones/${plan.milestones[1].id}/start`);
  const progression = `${F}/checkout/environments/development/progressions/${plan.milestones[0].id}`;
  await ok('PUT', progression, { targetMilestone: plan.milestones[1].id, transitionCondition: { intervalMinutes: 30 } });
  await ok('PUT', progression, { targetMilestone: plan.milestones[1].id, transitionCondition: { intervalMinutes: 60 } });
  await ok('DELETE', progression);
  await ok('DELETE', `${F}/checkout/environments/development/release-plans/${plan.id}`);
  await ok('PUT', '/api/admin/projects/shop/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 });
  const cr = await ok('POST', '/api/admin/projects/shop/environments/production/change-requests', { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } });
  await ok('PUT', `/api/admin/projects/shop/change-requests/${cr.id}/state`, { state: 'In review' });
  await ok('DELETE', '/api/admin/tag-types/team');
  await ok('DELETE', '/api/admin/environments/staging');
  await ok('DELETE', `${F}/checkout`);

  const { events } = await ok('GET', '/api/admin/events?limit=100') as { events: (Event & { id: number })[] };
  const segmentName = (id: number) => (id === nordics.id ? 'nordics' : `#${id}`);
  const read = events.reverse().filter((e) => !/^(api-token|user)-created$/.test(e.type))
    .map((e) => [e.type, ...d.eventLines(e, segmentName).map((l) => `${{ added: '+', removed: '−', changed: '→' }[l.kind]} ${l.text}`)]);
  t.same(read, [
    ['project-created', '+ project Shop created: description "the shop", mode open, defaultStickiness default'],
    ['project-updated', '→ name Shop → "Shop 2"', '→ description "the shop" → "the shop!"'],
    ['environment-created', '+ environment staging created: type test, enabled true, protected false, sortOrder 201'],
    ['environment-updated', '→ type test → preproduction', '→ sortOrder 201 → 4'],
    ['strategy-created', '+ strategy type byHost created: description hosts, editable true, deprecated false, parameters hosts'],
    ['strategy-updated', '→ parameters hosts: required false → true', '+ parameters: + port'],
    ['strategy-deprecated', '→ strategy type byHost deprecated'],
    ['context-field-created', '+ context field country created: legalValues NO, SE, stickiness false, sortOrder 10'],
    ['context-field-updated', '+ legalValues: + DK', '→ stickiness false → true'],
    ['tag-type-created', '+ tag type team created: description teams'],
    ['tag-created', '+ tag team:web created'],
    ['segment-created', '+ segment nordics created: constraints country is one of NO, SE'],
    ['segment-updated', '→ description none → north', '+ constraint country: + DK'],
    ['feature-created', '+ created as a release flag'],
    ['feature-metadata-updated', '→ description x → y'],
    ['feature-strategy-add', '+ strategy added in development: 25% of users, by userId (else sessionId, else at random), where country is one of NO, SE'],
    ['feature-strategy-update', '→ rollout 25 → 50', '→ constraint country: + DK; − SE', '+ segment added: nordics'],
    ['feature-strategy-add', '+ strategy added in development: Everyone'],
    ['strategy-order-changed', '→ strategies reordered in development'],
    ['feature-environment-enabled', '→ turned on in development'],
    ['feature-environment-variants-updated', '+ variant added: blue (100%)'],
    ['feature-environment-variants-updated', '→ variant blue: weight 100% → 50%', '+ variant added: red (50%, string dark)'],
    ['feature-tagged', '+ tag added: team:web'],
    ['feature-untagged', '− tag removed: team:web'],
    ['feature-strategy-remove', '− strategy removed in development: Everyone'],
    ['release-plan-template-created', '+ release plan template Careful created: milestones Internal, All'],
    ['release-plan-template-updated', '→ milestones Internal: strategies.0.parameters.rollout 10 → 20'],
    ['release-plan-added', '+ release plan Careful added: featureName checkout, environment development, milestones Internal, All'],
    ['release-plan-milestone-started', '→ milestone Internal started in development'],
    ['release-plan-milestone-started', '→ milestone All started in development'],
    ['milestone-progression-changed', '+ moves on by itself after 30 minutes in development'],
    ['milestone-progression-changed', '→ moves on by itself after 30 minutes → 60 minutes in development'],
    ['milestone-progression-deleted', '− no longer moves on by itself in development'],
    ['release-plan-removed', '− release plan Careful removed'],
    ['change-request-configuration-updated', '→ changeRequestsEnabled false → true'],
    ['change-request-created', '+ change request #1 created (Draft)'],
    ['change-added', '+ change added in request #1 in production: turn on'],
    ['change-request-sent-to-review', '→ change request #1 sent to review (In review)'],
    ['tag-type-deleted', '− tag type team deleted'],
    ['environment-deleted', '− environment staging deleted'],
    ['feature-archived', '− archived'],
  ], 'every event in words, each line marked added (+), removed (−) or changed (→)');
});
