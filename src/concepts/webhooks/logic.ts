// Pure addon commands and the pure half of delivery: which events an addon wants, and the request
// that carries one. An addon is Unleash's integration record; Fanion has one provider, `webhook`.
import { createHmac } from 'node:crypto';
import type { Config } from '../../core/config.js';
import type { Change, CommandEnv } from '../../core/engine/command.js';
import { invalid, NotFoundError, ValidationError } from '../../core/errors.js';
import { EVENT_TYPES } from '../events/types.js';
import type { Op } from '../../core/state/ops.js';
import type { State } from '../../core/state/state.js';
import type { Addon, EventRecord } from '../../core/state/types.js';
import { destinationPolicy, urlRefusal, type DestinationPolicy } from './destination.js';
import { checkTemplate, parseTemplate, renderWithin, type TemplateBudget } from './template.js';

/** Addons at most: each has a delivery worker, and one request in flight at a time. */
export const MAX_ADDONS = 50;
/** What a sensitive parameter reads as once set (and, sent back unchanged on update, keeps its value). */
export const MASK = '*****';
const MIN_SECRET = 16;
const MAX_URL = 2048;
const MAX_HEADERS = 20;
/** Headers a webhook's own settings may not replace: they frame the request or prove its origin. */
const RESERVED_HEADERS = new Set(['content-length', 'host', 'transfer-encoding', 'connection', 'content-type', 'authorization']);
const RESERVED_PREFIX = 'x-fanion-';
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const KNOWN_EVENTS = new Set<string>(EVENT_TYPES);
/** A 400 whose message starts with the field it is about (`parameters.url: is required`). */
const bad = (path: string, message: string) => invalid(path, `${path}: ${message}`);
/** What the settings allow an addon: where it may send, and what its template may cost. */
export interface WebhookLimits {
  destinations: DestinationPolicy;
  template: TemplateBudget;
}

export function webhookLimits(config: Config): WebhookLimits {
  return {
    destinations: destinationPolicy(config.webhooks),
    template: { maxBytes: config.webhooks.templateMaxBytes, maxSteps: config.webhooks.templateMaxSteps },
  };
}

interface ParameterDef {
  name: string;
  displayName: string;
  type: 'url' | 'text' | 'textfield';
  description: string;
  placeholder?: string;
  required: boolean;
  sensitive: boolean;
}

const WEBHOOK_PARAMETERS: ParameterDef[] = [
  { name: 'url', displayName: 'Webhook URL', type: 'url', description: 'Where each event is POSTed (http or https).', placeholder: 'https://hooks.example.com/fanion', required: true, sensitive: false },
  { name: 'contentType', displayName: 'Content-Type', type: 'text', description: 'Content-Type of the request; application/json when empty.', placeholder: 'application/json', required: false, sensitive: false },
  { name: 'authorization', displayName: 'Authorization header', type: 'text', description: 'Sent as the Authorization header.', placeholder: 'Bearer …', required: false, sensitive: true },
  { name: 'customHeaders', displayName: 'Extra headers', type: 'textfield', description: 'A JSON object of header names to string values.', placeholder: '{"X-Team": "payments"}', required: false, sensitive: false },
  { name: 'bodyTemplate', displayName: 'Body template', type: 'textfield', description: 'A Mustache template with {{event.*}} and {{{eventJson}}}; the event as JSON when empty.', placeholder: '{"text": "{{event.createdBy}} did {{event.type}} on {{event.featureName}}"}', required: false, sensitive: false },
  { name: 'signingSecret', displayName: 'Signing secret', type: 'text', description: `Keys X-Fanion-Signature (HMAC-SHA256 of the body); at least ${MIN_SECRET} characters, made for you when empty.`, required: false, sensitive: true },
];

/** The providers GET /api/admin/addons lists. */
export const PROVIDERS = [
  {
    name: 'webhook',
    displayName: 'Webhook',
    description: 'POSTs each matching event, in order, at least once, signed with HMAC-SHA256.',
    documentationUrl: 'https://docs.getunleash.io/reference/integrations/webhook',
    parameters: WEBHOOK_PARAMETERS,
    events: [...EVENT_TYPES],
  },
];

export interface AddonInput {
  provider: string;
  description?: string | null;
  enabled: boolean;
  parameters: Record<string, string>;
  events: string[];
  projects?: string[];
  environments?: string[];
}

/** The addon as the API shows it: sensitive parameters masked unless `reveal`. */
export function addonView(a: Addon, reveal = false) {
  const parameters: Record<string, string> = {};
  for (const [k, v] of Object.entries(a.parameters)) parameters[k] = isSensitive(k) && !reveal ? MASK : v;
  if (parameters.url !== undefined && !reveal) parameters.url = maskCredentials(parameters.url);
  parameters.signingSecret = reveal ? a.signingSecret : MASK;
  return {
    id: a.id, provider: a.provider, description: a.description, enabled: a.enabled, parameters,
    events: a.events, projects: a.projects, environments: a.environments, createdAt: a.createdAt,
  };
}

/** A URL saved with a password (before saves refused them) is shown with the password masked. */
function maskCredentials(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.password === '') return url;
  parsed.password = MASK;
  return parsed.toString();
}

function isSensitive(name: string): boolean {
  return WEBHOOK_PARAMETERS.some((p) => p.name === name && p.sensitive);
}

export function requireAddon(state: State, rawId: string): Addon {
  const addon = /^[1-9]\d{0,15}$/.test(rawId) ? state.addons.get(Number(rawId)) : undefined;
  if (!addon) throw new NotFoundError(`Could not find addon with id "${rawId}".`);
  return addon;
}

/** Header names to values from the `customHeaders` parameter (JSON text); throws naming what is wrong. */
export function parseCustomHeaders(text: string | undefined): Record<string, string> {
  if (text === undefined || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw bad('parameters.customHeaders', 'must be a JSON object of header names to string values');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad('parameters.customHeaders', 'must be a JSON object of header names to string values');
  const out: Record<string, string> = {};
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) throw bad('parameters.customHeaders', `at most ${MAX_HEADERS} headers`);
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) throw bad('parameters.customHeaders', `"${name.slice(0, 100)}" is not a header name`);
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower) || lower.startsWith(RESERVED_PREFIX)) throw bad('parameters.customHeaders', `"${name}" is set by Fanion (use the contentType and authorization parameters)`);
    if (typeof value !== 'string' || /[\r\n\0]/.test(value) || value.length > 8192) throw bad('parameters.customHeaders', `the value of "${name}" must be a string on one line`);
    out[name] = value;
  }
  return out;
}

/** Checks the provider's parameters and fills in the kept secrets of `before` where the input sends the mask. */
function checkParameters(input: Record<string, string>, before: Addon | null, limits: WebhookLimits): { parameters: Record<string, string>; signingSecret: string | null } {
  const known = new Set(WEBHOOK_PARAMETERS.map((p) => p.name));
  const parameters: Record<string, string> = {};
  let signingSecret: string | null = null;
  for (const [name, raw] of Object.entries(input)) {
    if (!known.has(name)) throw bad(`parameters.${name}`, `is not a parameter of the webhook provider; known: ${[...known].join(', ')}`);
    let value = raw;
    if (value === MASK && isSensitive(name)) {
      if (!before) throw bad(`parameters.${name}`, `"${MASK}" stands for a value already set; give the value`);
      if (name === 'signingSecret') continue;
      value = before.parameters[name];
      if (value === undefined) continue;
    }
    if (name === 'signingSecret') {
      if (value.length < MIN_SECRET) throw bad('parameters.signingSecret', `must be at least ${MIN_SECRET} characters`);
      signingSecret = value;
      continue;
    }
    if (value === '') continue;
    parameters[name] = value;
  }
  const url = parameters.url;
  if (url === undefined) throw bad('parameters.url', 'is required');
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || url.length > MAX_URL) {
    throw bad('parameters.url', `must be an http or https URL of at most ${MAX_URL} characters`);
  }
  // An address refused now but saved before (under other settings) may be kept on an update, to
  // switch the addon off say: its sends are refused all the same.
  const refused = url === before?.parameters.url ? null : urlRefusal(parsed, limits.destinations);
  if (refused) throw bad('parameters.url', refused);
  if (parameters.contentType !== undefined && /[\r\n\0]/.test(parameters.contentType)) throw bad('parameters.contentType', 'must be on one line');
  if (parameters.authorization !== undefined && /[\r\n\0]/.test(parameters.authorization)) throw bad('parameters.authorization', 'must be on one line');
  parseCustomHeaders(parameters.customHeaders);
  if (parameters.bodyTemplate !== undefined) {
    try {
      parseTemplate(parameters.bodyTemplate);
    } catch (err) {
      throw bad('parameters.bodyTemplate', `is not a Mustache template: ${(err as Error).message}`);
    }
    // As with the URL: one saved before (under other settings) may be kept, its renders are bounded all the same.
    try {
      if (parameters.bodyTemplate !== before?.parameters.bodyTemplate) checkTemplate(parameters.bodyTemplate, limits.template);
    } catch (err) {
      throw bad('parameters.bodyTemplate', (err as Error).message);
    }
  }
  return { parameters, signingSecret };
}

function checkFilters(state: State, input: AddonInput): Pick<Addon, 'events' | 'projects' | 'environments'> {
  if (input.events.length === 0) throw bad('events', 'list at least one event type (or "*")');
  for (const e of input.events) if (e !== '*' && !KNOWN_EVENTS.has(e)) throw bad('events', `"${e}" is not an event type`);
  const projects = input.projects ?? [];
  for (const p of projects) if (p !== '*' && !state.projects.has(p)) throw bad('projects', `project "${p}" does not exist`);
  const environments = input.environments ?? [];
  for (const e of environments) if (e !== '*' && !state.environments.has(e)) throw bad('environments', `environment "${e}" does not exist`);
  return { events: [...new Set(input.events)], projects: [...new Set(projects)], environments: [...new Set(environments)] };
}

function checkProvider(provider: string): void {
  if (!PROVIDERS.some((p) => p.name === provider)) throw bad('provider', `"${provider}" is not a provider; known: ${PROVIDERS.map((p) => p.name).join(', ')}`);
}

/** A fresh signing secret: two uuids' worth of randomness from the command's id source. */
function newSecret(env: CommandEnv): string {
  return `${env.newId()}${env.newId()}`.replace(/-/g, '');
}

/**
 * Creates an addon. Its delivery starts after its own creation event: nothing that happened
 * before it existed is sent.
 */
export function createAddon(input: AddonInput, limits: WebhookLimits) {
  return (state: State, env: CommandEnv): Change<Addon> => {
    checkProvider(input.provider);
    if (state.addons.size >= MAX_ADDONS) throw new ValidationError(`You can't create more than ${MAX_ADDONS} addons.`);
    const { parameters, signingSecret } = checkParameters(input.parameters, null, limits);
    const addon: Addon = {
      id: state.nextAddonId, provider: input.provider, description: input.description ?? null, enabled: input.enabled,
      parameters, ...checkFilters(state, input), signingSecret: signingSecret ?? newSecret(env), createdAt: env.now,
    };
    const createdEventId = state.events.lastId + 1;
    return {
      ops: [{ o: 'addon.put', addon }, { o: 'addon.cursor', id: addon.id, eventId: createdEventId }],
      events: [{ type: 'addon-config-created', data: addonView(addon) }],
      result: addon,
    };
  };
}

/**
 * Replaces an addon's settings (sensitive ones sent as `*****` are kept). Switching a disabled
 * addon on starts it after this change: what happened while it was off is not sent.
 */
export function updateAddon(rawId: string, input: AddonInput, limits: WebhookLimits) {
  return (state: State): Change<Addon> => {
    const before = requireAddon(state, rawId);
    checkProvider(input.provider);
    if (input.provider !== before.provider) throw bad('provider', `an addon keeps its provider ("${before.provider}")`);
    const { parameters, signingSecret } = checkParameters(input.parameters, before, limits);
    const after: Addon = {
      ...before, description: input.description === undefined ? before.description : input.description, enabled: input.enabled,
      parameters, ...checkFilters(state, input), signingSecret: signingSecret ?? before.signingSecret,
    };
    const ops: Change<Addon>['ops'] = [{ o: 'addon.put', addon: after }];
    if (after.enabled && !before.enabled) ops.push({ o: 'addon.cursor', id: after.id, eventId: state.events.lastId + 1 });
    return { ops, events: [{ type: 'addon-config-updated', data: addonView(after), preData: addonView(before) }], result: after };
  };
}

export function deleteAddon(rawId: string) {
  return (state: State): Change<null> => {
    const before = requireAddon(state, rawId);
    return { ops: [{ o: 'addon.del', id: before.id }], events: [{ type: 'addon-config-deleted', preData: addonView(before) }], result: null };
  };
}

/** Records how far an addon's delivery got; nothing when it is gone or already past `eventId`. */
export function moveCursor(id: number, eventId: number) {
  return (state: State): Change<null> => {
    if (!state.addons.has(id) || (state.addonCursors.get(id) ?? 0) >= eventId) return { ops: [], events: [], result: null };
    return { ops: [{ o: 'addon.cursor', id, eventId }], events: [], result: null };
  };
}

/** A cursor write or lease renewal of a webhook leader whose term is over: it must stop delivering. */
export class DeposedError extends Error {
  constructor(term: number, state: State) {
    super(`webhook delivery term ${term} is over: node ${state.webhookLeader} leads term ${state.webhookTerm}`);
  }
}

/** On a cluster: `node` takes over webhook delivery, in the next term (the result). */
export function claimWebhooks(node: string) {
  return (state: State): Change<number> => {
    const term = state.webhookTerm + 1;
    return { ops: [{ o: 'webhooks.lead', term, node }], events: [], result: term };
  };
}

/**
 * A webhook leader's fenced write: its term restated (so something is appended even when no
 * cursor moves: the append itself is the proof that the term was still this node's), and the
 * addon's cursor moved when `cursor` says so. Refused (DeposedError) once another node leads.
 */
export function leaderWrite(term: number, node: string, cursor?: { id: number; eventId: number }) {
  return (state: State): Change<null> => {
    if (state.webhookTerm !== term || state.webhookLeader !== node) throw new DeposedError(term, state);
    const ops: Op[] = [{ o: 'webhooks.lead', term, node }];
    if (cursor) ops.push(...moveCursor(cursor.id, cursor.eventId)(state).ops);
    return { ops, events: [], result: null };
  };
}

const all = (list: string[]) => list.length === 0 || list.includes('*');

/** Whether `addon` sends `event`: its type is chosen, and its project and environment pass the filters. */
export function wants(addon: Addon, event: Pick<EventRecord, 'type' | 'project' | 'environment'>): boolean {
  if (!addon.events.includes('*') && !addon.events.includes(event.type)) return false;
  if (!all(addon.projects) && (event.project === null || !addon.projects.includes(event.project))) return false;
  if (!all(addon.environments) && (event.environment === null || !addon.environments.includes(event.environment))) return false;
  return true;
}

/** The event as a webhook sends it (Unleash's event shape). */
export function eventPayload(e: EventRecord) {
  return {
    id: e.id, type: e.type, createdBy: e.createdBy, createdAt: e.createdAt, project: e.project, environment: e.environment,
    featureName: e.featureName, data: e.data, preData: e.preData, tags: e.tags ?? [],
  };
}

/** One request a webhook makes. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Signs `body` with `secret`: what receivers compare X-Fanion-Signature with. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The request that delivers `event` to `addon`: the body (the event, or the template rendered
 * within `budget`), its headers, signed. Throws TemplateBudgetError when the render goes over it.
 */
export function webhookRequest(addon: Addon, event: EventRecord, budget: TemplateBudget): WebhookRequest {
  const payload = eventPayload(event);
  const eventJson = JSON.stringify(payload);
  const template = addon.parameters.bodyTemplate;
  const body = template === undefined ? eventJson : renderWithin(template, { event: payload, eventJson }, budget);
  const headers: Record<string, string> = {
    ...parseCustomHeaders(addon.parameters.customHeaders),
    'Content-Type': addon.parameters.contentType ?? 'application/json',
    'User-Agent': 'fanion-webhook',
    'X-Fanion-Event-Id': String(event.id),
    'X-Fanion-Event-Type': event.type,
    'X-Fanion-Delivery': `${addon.id}-${event.id}`,
    'X-Fanion-Signature': signature(addon.signingSecret, body),
  };
  if (addon.parameters.authorization !== undefined) headers.Authorization = addon.parameters.authorization;
  return { url: addon.parameters.url, headers, body };
}
