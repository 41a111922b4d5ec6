// Change requests' configuration: per project and environment, whether a change there needs a
// change request (four eyes) and how many approvals one needs. Pure: the lookup every other part
// reads (the gate in enforcement.ts, the workflow), the command that sets a rule, and the rules a
// new project starts with (CHANGE_REQUESTS_DEFAULT_*). A project's environment never configured
// has no rule: change requests off, one approval, as Unleash answers for it.
import type { Change, EventDraft } from '../../core/engine/command.js';
import type { ChangeRequestsConfig } from '../../core/config.js';
import { invalid } from '../../core/errors.js';
import { requireEnvironment, requireProject } from '../../core/state/lookup.js';
import type { Op } from '../../core/state/ops.js';
import { changeRuleKey, type State } from '../../core/state/state.js';
import { sortedEnvironments } from '../environments/logic.js';
import type { ChangeRequestRule, Environment } from '../../core/state/types.js';

export const MIN_APPROVALS = 1;
export const MAX_APPROVALS = 10;
const DEFAULT_APPROVALS = 1;

/** Whether a direct change of `environment` in `project` is refused, and how many approvals a request there needs. */
export function changeRequestRule(state: State, project: string, environment: string): { enabled: boolean; requiredApprovals: number } {
  const rule = state.changeRequestRules.size === 0 ? undefined : state.changeRequestRules.get(changeRuleKey(project, environment));
  return rule ? { enabled: rule.enabled, requiredApprovals: rule.requiredApprovals } : { enabled: false, requiredApprovals: DEFAULT_APPROVALS };
}

/** The environments of `project` where change requests are on, in the state's order. */
export function protectedEnvironments(state: State, project: string): string[] {
  const out: string[] = [];
  for (const r of state.changeRequestRules.values()) if (r.project === project && r.enabled && state.environments.has(r.environment)) out.push(r.environment);
  return out;
}

/** GET …/change-requests/config: every environment of the project, configured or not. */
export function changeRequestConfig(state: State, project: string) {
  requireProject(state, project);
  return sortedEnvironments(state).map((e) => {
    const rule = changeRequestRule(state, project, e.name);
    return { environment: e.name, type: e.type, changeRequestEnabled: rule.enabled, requiredApprovals: rule.requiredApprovals };
  });
}

export interface ChangeRequestConfigInput {
  changeRequestsEnabled: boolean;
  /** 1–10; left out keeps the count there. 0 is taken only while turning change requests off (Unleash's Terraform provider sends it so). */
  requiredApprovals?: number;
}

const recordOf = (r: { enabled: boolean; requiredApprovals: number }) => ({ changeRequestsEnabled: r.enabled, requiredApprovals: r.requiredApprovals });

function ruleEvent(project: string, environment: string, after: { enabled: boolean; requiredApprovals: number }, before: { enabled: boolean; requiredApprovals: number } | null): EventDraft {
  return { type: 'change-request-configuration-updated', project, environment, data: recordOf(after), preData: before ? recordOf(before) : null };
}

/** PUT …/environments/:e/change-requests/config. */
export function setChangeRequestRule(project: string, environment: string, input: ChangeRequestConfigInput) {
  return (state: State): Change<ChangeRequestRule> => {
    requireProject(state, project);
    requireEnvironment(state, environment);
    const before = changeRequestRule(state, project, environment);
    const n = input.requiredApprovals;
    if (n !== undefined && (!Number.isInteger(n) || n > MAX_APPROVALS || n < (input.changeRequestsEnabled ? MIN_APPROVALS : 0))) {
      throw invalid('requiredApprovals', `requiredApprovals must be an integer from ${MIN_APPROVALS} to ${MAX_APPROVALS}, got ${n}`);
    }
    // 0 (only while turning off) means "none needed": the count kept for the next time it is on stays.
    const rule: ChangeRequestRule = { project, environment, enabled: input.changeRequestsEnabled, requiredApprovals: n === undefined || n === 0 ? before.requiredApprovals : n };
    return {
      ops: [{ o: 'changeRule.put', rule }],
      events: [ruleEvent(project, environment, rule, before)],
      result: rule,
    };
  };
}

/** Whether `environment` is one that CHANGE_REQUESTS_DEFAULT_ENVIRONMENTS names (by name, or by `type:<type>`). */
export function protectedByDefault(defaults: ChangeRequestsConfig, environment: Environment): boolean {
  return defaults.defaultEnvironments.some((d) => (d.startsWith('type:') ? d.slice(5) === environment.type : d === environment.name));
}

/** The rules (and their events) a project created now starts with: none unless the server's default names some environments. */
export function defaultRules(state: State, project: string, defaults: ChangeRequestsConfig): { ops: Op[]; events: EventDraft[] } {
  const ops: Op[] = [];
  const events: EventDraft[] = [];
  if (defaults.defaultEnvironments.length === 0) return { ops, events };
  for (const e of sortedEnvironments(state)) {
    if (!protectedByDefault(defaults, e)) continue;
    const rule: ChangeRequestRule = { project, environment: e.name, enabled: true, requiredApprovals: defaults.defaultApprovals };
    ops.push({ o: 'changeRule.put', rule });
    events.push(ruleEvent(project, e.name, rule, null));
  }
  return { ops, events };
}
