// Copying to another environment of the same flag: one strategy, or an environment's whole set-up
// (its strategies in order, and its variants), which the server adds in one change
// (POST …/environments/:env/copy). A target that asks first (asked-change.ts) asks in words and
// offers Undo; a target with change requests on gets the copy added to the person's draft there.
import { useState } from 'preact/hooks';
import { need } from './access.js';
import { api, enc, get } from './api.js';
import { askedChange } from './asked-change.js';
import { asksFirst, type Change } from './change-words.js';
import { Form, Select, useLoad } from './components.js';
import { html } from './html.js';
import { tell } from './overlays.js';
import type { Strategy, Variant } from './words.js';

interface Env { name: string; type: string; enabled: boolean; strategies: Strategy[]; variants: Variant[] }
interface Copied { strategies: Strategy[]; variants: Variant[] | null }

/** A strategy as the API takes it, to add it again elsewhere. */
const payload = (s: Strategy) => ({ name: s.name, title: s.title ?? undefined, disabled: s.disabled ?? false, parameters: s.parameters, constraints: s.constraints, segments: s.segments, variants: s.variants });

/** `strategy`: copy that one; none: the whole set-up of `from`. */
export function CopyTo(props: { project: string; flag: string; envs: Env[]; from: Env; strategy?: Strategy; after: <T>(p: Promise<T>) => Promise<T>; segmentName: (id: number) => string; onDone: () => void }) {
  const { project, flag, from, strategy, after } = props;
  const others = props.envs.filter((e) => e.name !== from.name);
  const [to, setTo] = useState(others[0]?.name ?? '');
  const rules = useLoad(() => get<{ environment: string; changeRequestEnabled: boolean }[]>(`/api/admin/projects/${enc(project)}/change-requests/config`), [project]);
  const drafted = rules.data?.find((r) => r.environment === to)?.changeRequestEnabled ?? false;
  const base = `/api/admin/projects/${enc(project)}/features/${enc(flag)}/environments/${enc(to)}`;
  const strategies = strategy ? [strategy] : from.strategies;
  const variants = strategy ? [] : from.variants;
  const copy = async () => {
    const target = others.find((e) => e.name === to)!;
    if (drafted) {
      const changes = [...strategies.map((s) => ({ feature: flag, action: 'addStrategy', payload: payload(s) })), ...(variants.length ? [{ feature: flag, action: 'patchVariant', payload: { variants } }] : [])];
      const draft = await after(api<{ id: number }>('POST', `/api/admin/projects/${enc(project)}/environments/${enc(to)}/change-requests`, changes));
      tell(`Added to your change request #${draft.id} for ${to}: ${to} changes once it is approved and applied.`);
      return props.onDone();
    }
    const change: Change = strategy ? { kind: 'add', after: strategy } : { kind: 'copy', from: from.name, strategies, before: target.variants, after: variants };
    const make = () => after(strategy
      ? api<Strategy>('POST', `${base}/strategies`, payload(strategy)).then((s): Copied => ({ strategies: [s], variants: null }))
      : api<Copied>('POST', `${base}/copy`, { from: from.name }));
    // Undo takes the copies away and puts the variants back. Deleting the last enabled strategy
    // switches an environment off: one that was on for everyone is switched on again.
    const wasEveryone = target.enabled && !target.strategies.some((s) => !s.disabled);
    const undo = (made: Copied) => after((async () => {
      for (const s of made.strategies) await api('DELETE', `${base}/strategies/${enc(s.id!)}`);
      if (made.variants) await api('PUT', `${base}/variants`, target.variants);
      if (wasEveryone && made.strategies.some((s) => !s.disabled)) await api('POST', `${base}/on`);
    })());
    if (!(await askedChange({ flag, ...target }, change, make, undo, props.segmentName))) return;
    if (!asksFirst(target)) tell(`${strategy ? 'Strategy' : `${from.name}'s set-up`} copied to ${to}.`);
    props.onDone();
  };
  const needed = drafted ? need('UPDATE_FEATURE_ENVIRONMENT', project, to) : need('CREATE_FEATURE_STRATEGY', project, to);
  return html`<${Form} label=${strategy ? 'Copy strategy' : `Copy ${from.name}'s set-up`} submit=${drafted ? 'Add to change request' : 'Copy'} need=${needed} onSubmit=${copy}>
    <${Select} label="To environment" value=${to} options=${others.map((e) => e.name)} onChange=${setTo}
      hint=${drafted ? `change requests are on in ${to}: the copy goes into your draft there` : strategy ? 'added after its strategies' : `${from.name}'s strategies, in order, after its own${variants.length ? `; its variants replace ${to}'s` : ''}`} />
  <//>`;
}
