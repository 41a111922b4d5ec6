// The flag types Unleash 8 knows, with what it says of each and how long such a flag is expected
// to live (in days; null: permanent). `sunset` arrived in 8.0. The texts and lifetimes are
// Unleash's own (GET /api/admin/feature-types of Unleash 8.2), so the console and scripts show the
// same guidance whichever server they talk to.
export interface FlagType {
  id: string;
  name: string;
  description: string;
  lifetimeDays: number | null;
}

export const FLAG_TYPES: readonly FlagType[] = [
  { id: 'release', name: 'Release', description: 'Roll out new or incomplete features. Expected lifetime ~40 days', lifetimeDays: 40 },
  { id: 'experiment', name: 'Experiment', description: 'A/B and multivariate testing. Expected lifetime ~40 days', lifetimeDays: 40 },
  { id: 'operational', name: 'Operational', description: 'Transition between technical implementations with minimal risk. Expected lifetime: ~7 days', lifetimeDays: 7 },
  { id: 'kill-switch', name: 'Kill switch', description: 'Quickly disable certain functionalities or features. Expected lifetime: permanent', lifetimeDays: null },
  { id: 'permission', name: 'Permission', description: 'Control feature access based on user roles or entitlements. Expected lifetime: permanent', lifetimeDays: null },
  { id: 'sunset', name: 'Sunset', description: 'Coordinate the planned removal of an existing feature. Expected lifetime: ~90 days', lifetimeDays: 90 },
];

export const FEATURE_TYPES = FLAG_TYPES.map((t) => t.id);

const DAY_MS = 86_400_000;

/**
 * Whether a flag outlived its type's expected lifetime without being marked stale: Unleash calls
 * it potentially stale (a permanent type never is).
 */
export function isPotentiallyStale(f: { type: string; stale: boolean; createdAt: string }, now: number): boolean {
  if (f.stale) return false;
  const days = FLAG_TYPES.find((t) => t.id === f.type)?.lifetimeDays ?? null;
  return days !== null && Date.parse(f.createdAt) + days * DAY_MS < now;
}
