// An event in the form the WAL and the event log keep it: a fixed-position tuple whose payload
// (data, preData, tags) is already the JSON text the log stores. A mutation serializes its
// payload once, and the same text goes into the WAL record and into the log's arena; replay
// hands the decoded tuple straight to the log, with no object per payload to decode and
// nothing to serialize again. Positions, not keys: a million replayed events would otherwise
// decode eleven key strings each.
import type { EventRecord, Tag } from '../types.js';
import { isoMs, isoOf } from './iso-date.js';

export type StoredEvent = [
  id: number,
  type: string,
  /** Epoch ms, or the text itself when it is not exactly what toISOString prints. */
  createdAt: number | string,
  createdBy: string,
  createdByUserId: number | null,
  environment: string | null,
  project: string | null,
  featureName: string | null,
  /** `data JSON \n preData JSON \n tags JSON \n`, a null field left empty. */
  text: string,
];

/** The text of an event with no data, preData or tags (most of them). */
export const EMPTY_TEXT = '\n\n\n';

const json = (v: unknown): string => (v === null || v === undefined ? '' : (JSON.stringify(v) ?? ''));
/**
 * One stored field back as a value. Replay checks a text's shape but does not parse its JSON (a
 * million events would pay for it); should a field ever not parse, the listing shows it as the
 * text it is rather than failing for every event around it.
 */
const unjson = (s: string): unknown => {
  if (s === '') return null;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
};

export function storeEvent(e: EventRecord): StoredEvent {
  const none = (v: unknown) => v === null || v === undefined;
  const text = none(e.data) && none(e.preData) && none(e.tags) ? EMPTY_TEXT : `${json(e.data)}\n${json(e.preData)}\n${json(e.tags)}\n`;
  const ms = isoMs(e.createdAt);
  return [e.id, e.type, ms === ms ? ms : e.createdAt, e.createdBy, e.createdByUserId ?? null, e.environment ?? null, e.project ?? null, e.featureName ?? null, text];
}

/** The three payload fields of a stored text. */
export function payloadOf(text: string): { data: unknown; preData: unknown; tags: Tag[] | null } {
  const [data, preData, tags] = text.split('\n', 3);
  const t = unjson(tags);
  return { data: unjson(data), preData: unjson(preData), tags: Array.isArray(t) ? (t as Tag[]) : null };
}

export function eventOf(s: StoredEvent): EventRecord {
  const [id, type, createdAt, createdBy, createdByUserId, environment, project, featureName, text] = s;
  return {
    id, type, createdAt: typeof createdAt === 'number' ? isoOf(createdAt) : createdAt, createdBy, createdByUserId,
    environment, project, featureName, ...payloadOf(text),
  };
}

/** JSON text never holds a raw newline, so a stored text has exactly three, the last at its end. */
function threeFields(text: string): boolean {
  const a = text.indexOf('\n');
  const b = a < 0 ? -1 : text.indexOf('\n', a + 1);
  return b >= 0 && text.indexOf('\n', b + 1) === text.length - 1;
}

const isStr = (v: unknown) => typeof v === 'string';
const isStrOrNull = (v: unknown) => v === null || typeof v === 'string';

/**
 * Why `s` is not a well-formed stored event, or null when it is. Replay checks every tuple it
 * decodes, so a record written by a buggy build fails loudly at its LSN instead of leaving an
 * event the log cannot read back.
 */
export function storedEventProblem(s: unknown): string | null {
  if (!Array.isArray(s) || s.length !== 9) return 'an event is not a tuple of 9 fields';
  const [id, type, createdAt, createdBy, userId, environment, project, featureName, text] = s as unknown[];
  if (!Number.isInteger(id) || (id as number) < 1) return 'an event has no valid id';
  if (!isStr(type) || (type as string).length === 0 || !isStr(createdBy)) return `event ${id} has no type or no author`;
  // Epoch ms as isoOf can print them: whole, within the Date range.
  if (!(typeof createdAt === 'number' ? Number.isInteger(createdAt) && Math.abs(createdAt) <= 8.64e15 : isStr(createdAt))) return `event ${id} has no valid date`;
  if (!(userId === null || typeof userId === 'number')) return `event ${id} has a malformed user id`;
  if (!isStrOrNull(environment) || !isStrOrNull(project) || !isStrOrNull(featureName)) return `event ${id} has a malformed name field`;
  if (!isStr(text) || !threeFields(text as string)) return `the text of event ${id} is malformed`;
  return null;
}
