// Body templates within a budget (the pure core; template-budget.test.ts drives a real server):
// a budgeted render is Mustache's own, it stops at the step and byte budgets however the template
// nests, and a save-time estimate refuses what explodes at ordinary list lengths.
import Mustache from 'mustache';
import t from 'tap';
import { checkTemplate, estimate, ESTIMATED_LIST_LENGTH, parseTemplate, renderWithin, TemplateBudgetError } from '../../../src/concepts/webhooks/template.js';

const ROOMY = { maxBytes: 1 << 30, maxSteps: 1e9 };
const DEFAULTS = { maxBytes: 4 * 1024 * 1024, maxSteps: 200_000 };
const values = (n: number) => Array.from({ length: n }, (_, i) => ({ value: `value-${i}`, description: `<d${i}>` }));
const view = (n = 3) => ({
  event: { id: 42, type: 'context-field-created', createdBy: 'admin', project: null, featureName: null, data: { name: 'region', legalValues: values(n), flag: true, none: [] }, tags: [{ type: 'simple', value: 'a&b' }] },
  eventJson: '{"id":42,"note":"<b>"}',
});
const nested = (depth: number, inner: string, name = 'event.data.legalValues') => `${`{{#${name}}}`.repeat(depth)}${inner}${`{{/${name}}}`.repeat(depth)}`;
/** The issue's 433-character template: six nested sections over a 20-value list. */
const EXPLODING = nested(6, '{{event.type}} by {{event.createdBy}} on {{event.data.name}}: {{value}} ({{description}}) #{{event.id}} end.\n');

t.test('a budgeted render gives what Mustache gives', async (t) => {
  const templates = [
    'plain text',
    '{{event.type}} {{{event.data.name}}} {{event.id}} {{eventJson}} {{{eventJson}}} {{&eventJson}}',
    '{{#event.data.legalValues}}[{{value}}|{{description}}|{{{description}}}|{{event.type}}]{{/event.data.legalValues}}',
    '{{#event.data.flag}}yes{{/event.data.flag}}{{^event.data.flag}}no{{/event.data.flag}}{{^event.data.none}}empty{{/event.data.none}}{{#event.data.none}}never{{/event.data.none}}',
    '{{#event.tags}}{{type}}:{{value}} {{/event.tags}}{{missing}}{{event.project}}|{{! a comment }}{{=<% %>=}}<% event.id %>',
    '{{#event}}{{#data}}{{name}}{{#legalValues}}{{.}}{{/legalValues}}{{/data}}{{/event}}',
    '{{> partial}} after a partial that is not given',
    nested(2, '{{value}}-'),
  ];
  for (const template of templates) t.equal(renderWithin(template, view(), ROOMY), Mustache.render(template, view()), template);
});

t.test('a render stops at its step budget, however little it writes', async (t) => {
  const started = performance.now();
  t.throws(() => renderWithin(EXPLODING, view(20), DEFAULTS), new TemplateBudgetError(`its rendering takes more than WEBHOOK_TEMPLATE_MAX_STEPS (200000) steps for this event (sections over lists multiply)`));
  // Sections that write nothing still cost their steps: 200^3 empty renders.
  t.throws(() => renderWithin(nested(3, '{{^value}}x{{/value}}'), view(200), DEFAULTS), /WEBHOOK_TEMPLATE_MAX_STEPS \(200000\)/);
  const ms = performance.now() - started;
  t.ok(ms < 2_000, `both stopped in ${ms.toFixed(0)} ms (unbounded, the first is 64 million renders)`);
});

t.test('a render stops at its byte budget', async (t) => {
  // Few steps, a big body: the event's JSON once per value.
  const big = { ...view(1000), eventJson: 'x'.repeat(10_000) };
  t.throws(() => renderWithin('{{#event.data.legalValues}}{{{eventJson}}}{{/event.data.legalValues}}', big, DEFAULTS), /more than WEBHOOK_TEMPLATE_MAX_BYTES \(4194304\) bytes/);
  t.equal(renderWithin('{{{eventJson}}}', big, { maxBytes: 10_000, maxSteps: 10 }).length, 10_000, 'exactly at the budget is within it');
  t.throws(() => renderWithin('{{{eventJson}}}!', big, { maxBytes: 10_000, maxSteps: 10 }), TemplateBudgetError);
});

t.test('the save-time estimate counts as the render counts, each list as 20 items', async (t) => {
  t.equal(ESTIMATED_LIST_LENGTH, 20);
  for (const template of [nested(1, '{{value}}'), nested(2, '{{value}},{{description}}'), nested(3, 'x{{value}}')]) {
    // Over exactly 20 values, a render fits in the estimate and not in one step less.
    const { steps } = estimate(parseTemplate(template));
    t.doesNotThrow(() => renderWithin(template, view(ESTIMATED_LIST_LENGTH), { maxBytes: 1 << 30, maxSteps: steps }), `${template}: ${steps} steps`);
    t.throws(() => renderWithin(template, view(ESTIMATED_LIST_LENGTH), { maxBytes: 1 << 30, maxSteps: steps - 1 }), TemplateBudgetError);
  }
  t.same(estimate(parseTemplate('{{#event}}{{#event.data}}{{event.type}}{{/event.data}}{{/event}}')), { steps: 1 + 2 + 3, bytes: 0 }, "the event's own objects render once");
  t.equal(estimate(parseTemplate(nested(2, 'abc'))).bytes, 400 * 3, 'text bytes multiply with the lists around them');
});

t.test('a save refuses a template whose worst case is over the budget, and keeps ordinary ones', async (t) => {
  t.equal(EXPLODING.length, 433);
  t.throws(() => checkTemplate(EXPLODING, DEFAULTS), /could take about \d+ steps to render, more than WEBHOOK_TEMPLATE_MAX_STEPS \(200000\) \(nested sections over lists multiply; each is counted as 20 items\)/);
  t.throws(() => checkTemplate(nested(3, 'x'.repeat(600)), DEFAULTS), /could render about 4800000 bytes, more than WEBHOOK_TEMPLATE_MAX_BYTES/);
  t.throws(() => checkTemplate(nested(30, 'x', 'a'), DEFAULTS), /could take too many steps/, 'past what a number holds, the estimate says so');
  t.throws(() => checkTemplate(nested(5000, 'x', 'event'), DEFAULTS), /has sections nested more than 100 deep/, 'deep nesting is refused, not a stack overflow');
  const slack = '{"text": "{{event.createdBy}} changed {{event.featureName}}: {{#event.data.strategies}}{{name}} {{#constraints}}{{contextName}} {{operator}} {{#values}}{{.}}, {{/values}}{{/constraints}}{{/event.data.strategies}}"}';
  t.doesNotThrow(() => checkTemplate(slack, DEFAULTS), 'three lists deep with a few fields each passes');
  t.doesNotThrow(() => checkTemplate('{{{eventJson}}}', DEFAULTS));
});
