// The change-request gate: with change requests on for a project's environment, a direct change
// that takes effect there is refused (403, naming the rule and SKIP_CHANGE_REQUEST) before the
// route reads its body or runs its command, unless the caller may skip them there. One seam for
// every door: routes already say, in their scope, which project and environments a change takes
// effect in (the path's `environment`, the state-derived `reaches`, a shared segment's `places`,
// and the same for each scope named in the body), and the pipeline hands each scope it authorized
// to `refuseDirectChange` (AppContext.directChanges, wired in entry/server.ts). No route carries
// a flag for it: a new door is gated as soon as its scope says where it takes effect.
//
// The contract with the change-request workflow: the gate is in the HTTP pipeline only. Commands
// run through `engine.run` (or `runInSlices`) are never gated, so applying an approved request
// runs the same commands the doors run, directly, on behalf of the request; release plan
// progressions and safeguards, which act through ordinary commands, are not gated either (they
// were set up through gated doors). The workflow's own routes (adding a change to a draft,
// reviewing, applying) do not change an environment directly: they declare `directChange: false`,
// and routes whose permission is reviewing (APPROVE_/APPLY_CHANGE_REQUEST) are left alone too.
import type { AdminCaller, AdminScope, Place } from '../../core/access/access.js';
import { maySkip, refusalMessage, SKIP_CHANGE_REQUEST } from '../../core/access/permissions.js';
import { NoAccessError } from '../../core/errors.js';
import type { State } from '../../core/state/state.js';
import type { RouteDef } from '../../http/route.js';
import { changeRequestRule } from './config.js';

/**
 * Permissions whose routes never change what an environment serves: reading; a project's own
 * settings (its change request rules included: turning them off is itself a settings change,
 * recorded as an event, for whoever may change the project); reviewing change requests.
 */
const NOT_DIRECT = new Set(['READ', 'UPDATE_PROJECT', 'DELETE_PROJECT', 'CREATE_PROJECT', 'APPROVE_CHANGE_REQUEST', 'APPLY_CHANGE_REQUEST']);

/** The projects' environments a change through `scope` takes effect in. */
export function placesOf(scope: AdminScope): Place[] {
  const out: Place[] = [...(scope.places ?? [])];
  if (scope.project !== undefined) {
    const seen = new Set<string>();
    for (const environment of [scope.environment, ...(scope.reaches ?? [])]) {
      if (environment === undefined || seen.has(environment)) continue;
      seen.add(environment);
      out.push({ project: scope.project, environment });
    }
  }
  return out;
}

/** The places of `scope` where change requests are on, in the order the scope names them. */
export function protectedPlaces(state: State, scope: AdminScope): Place[] {
  if (state.changeRequestRules.size === 0) return [];
  return placesOf(scope).filter((p) => changeRequestRule(state, p.project, p.environment).enabled);
}

/** Whether `route` is a door the gate watches: a change, not a read, a dry run, a project setting or a review. */
export function isDirectChange(route: Pick<RouteDef, 'method' | 'permission' | 'directChange'>): boolean {
  return route.method !== 'GET' && route.directChange !== false && route.permission !== undefined && !NOT_DIRECT.has(route.permission);
}

/** The words of a refusal: the rule, and what would let the caller through. */
export function ruleMessage(state: State, place: Place): string {
  const n = changeRequestRule(state, place.project, place.environment).requiredApprovals;
  return refusalMessage(SKIP_CHANGE_REQUEST, place,
    `change requests are required in ${place.environment} of project ${place.project} (${n} approval${n === 1 ? '' : 's'}), ` +
    'so this change must be proposed as a change request, or made by someone who may skip them there');
}

/** Why a change through `scope` would be refused to `caller` (the refusal's message), or null. `caller` is asked only where change requests are on. */
export function directChangeRefusal(state: State, scope: AdminScope, caller: () => AdminCaller): string | null {
  const places = protectedPlaces(state, scope);
  if (places.length === 0) return null;
  const { grant } = caller();
  const refused = places.find((place) => !maySkip(grant, place.project, place.environment));
  return refused ? ruleMessage(state, refused) : null;
}

/**
 * AppContext.directChanges: throws NoAccessError (403) when a change through `scope` takes
 * effect in an environment with change requests on and the caller may not skip them there.
 */
export function refuseDirectChange(state: State, route: RouteDef, scope: AdminScope, caller: () => AdminCaller): void {
  if (!isDirectChange(route)) return;
  const why = directChangeRefusal(state, scope, caller);
  if (why !== null) throw new NoAccessError(why);
}
