// Reading one record of the cluster's log, and saying exactly what is wrong when it is not one of
// Fanion's: garbage bytes, a row another program wrote, an op this version does not know (a newer
// Fanion's). The same check at start-up (which then stops, status 2) and while following (the node
// then stops applying and takes no writes): never a decoder's words about buffers, always the
// table, the seq and what is wrong.
import { CannotStartError, NewerFormatError } from '../../errors.js';
import { isKnownOp } from '../../state/ops.js';
import { decodeRecord, type WalRecord } from '../record.js';

/** A record of the log this node cannot apply; nothing after it can be applied either. */
export class UnreadableRecordError extends CannotStartError {
  constructor(
    readonly seq: number,
    message: string,
  ) {
    super(message);
  }
}

/** The record at `seq` of `table` (schema.fanion_log), or an UnreadableRecordError saying why not. */
export function readLogRecord(table: string, seq: number, bytes: Buffer): WalRecord {
  const not = (why: string) => new UnreadableRecordError(seq, `record ${seq} in ${table} is not a Fanion record: ${why}`);
  let rec: WalRecord;
  try {
    rec = decodeRecord(bytes);
  } catch (err) {
    if (err instanceof NewerFormatError) throw new UnreadableRecordError(seq, err.at(table).message);
    // The decoder's own words (offsets, DataViews) say nothing to the person who must fix it.
    throw not(`its ${bytes.length} bytes (starting ${bytes.subarray(0, 8).toString('hex') || 'with nothing'}) do not decode as a record of any Fanion version`);
  }
  if (rec.lsn !== seq) throw not(`it says it is record ${rec.lsn}`);
  const unknown = rec.ops.find((op) => !isKnownOp(op));
  if (unknown !== undefined) {
    const name = (unknown as { o?: unknown } | null)?.o;
    throw not(`it holds an op this version does not know (${typeof name === 'string' ? `"${name.slice(0, 60)}"` : 'without a name'}); was it written by a newer Fanion?`);
  }
  return rec;
}
