// Delta events (docs/reference/client-api.md, "Push") for one view of the flags: an environment with the token's
// projects and the query's filters, as /api/client/features selects them. Pure: state and
// touches in, events out. Strategies name their segments by id; segments travel apart.
import { clientFeature, clientSegment } from '../client-api/record.js';
import { selects, type ClientFilter } from '../client-api/query.js';
import { tagKey, type State } from '../../core/state/state.js';
import type { Touch } from '../../core/state/touch.js';

export type DeltaEvent =
  | { type: 'hydration'; eventId: number; features: unknown[]; segments: unknown[] }
  | { type: 'feature-updated'; eventId: number; feature: unknown }
  | { type: 'feature-removed'; eventId: number; featureName: string; project: string }
  | { type: 'segment-updated'; eventId: number; segment: unknown }
  | { type: 'segment-removed'; eventId: number; segmentId: number };

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A project's things (segments, removed flags) are shown to views that cover that project. */
const covers = (filter: ClientFilter, project: string) => filter.projects === null || filter.projects.includes(project);

/** Shared segments, and those of the projects the view covers. */
function segmentVisible(filter: ClientFilter, project: string | null): boolean {
  return project === null || covers(filter, project);
}

/**
 * Whether the view could have held the flag before the change: its project then was covered, its
 * name has the prefix, and its tags matched (unknowable when the change touched them: then yes).
 * So a filtered view hears of removals of its own flags only.
 */
function mayHaveSelected(state: State, filter: ClientFilter, name: string, t: { before: string | null; tags: boolean }): boolean {
  if (t.before === null || !covers(filter, t.before)) return false;
  if (filter.namePrefix !== null && !name.startsWith(filter.namePrefix)) return false;
  if (filter.tags === null || t.tags) return true;
  return (state.featureTags.get(name) ?? []).some((tag) => filter.tags!.includes(tagKey(tag)));
}

/** Everything the view holds: its flags (sorted by name) and the segments it may see. */
export function hydration(state: State, filter: ClientFilter, eventId: number): DeltaEvent {
  const features = [];
  const names = [...state.features.keys()].sort(byName);
  for (const name of names) {
    const f = state.features.get(name)!;
    if (selects(state, filter, f)) features.push(clientFeature(state, f, filter.environment, 'by-id'));
  }
  const segments = [...state.segments.values()].filter((s) => segmentVisible(filter, s.project)).sort((a, b) => a.id - b.id).map(clientSegment);
  return { type: 'hydration', eventId, features, segments };
}

/**
 * The events that bring a view from before `touch` to the state now: segments first (a strategy
 * may name a new one), then each touched flag, updated when the view selects it now, removed when
 * it does not and the view could see it before.
 */
export function changes(state: State, filter: ClientFilter, touch: Touch, eventId: number): DeltaEvent[] {
  const out: DeltaEvent[] = [];
  for (const [id, before] of [...touch.segments].sort((a, b) => a[0] - b[0])) {
    const s = state.segments.get(id);
    if (s && segmentVisible(filter, s.project)) out.push({ type: 'segment-updated', eventId, segment: clientSegment(s) });
    else if (before !== undefined && segmentVisible(filter, before)) out.push({ type: 'segment-removed', eventId, segmentId: id });
  }
  for (const name of [...touch.flags.keys()].sort(byName)) {
    const t = touch.flags.get(name)!;
    if (t.environments !== null && !t.environments.has(filter.environment)) continue;
    const f = state.features.get(name);
    if (f && selects(state, filter, f)) out.push({ type: 'feature-updated', eventId, feature: clientFeature(state, f, filter.environment, 'by-id') });
    else if (t.before !== null && mayHaveSelected(state, filter, name, t)) out.push({ type: 'feature-removed', eventId, featureName: name, project: t.before });
  }
  return out;
}
