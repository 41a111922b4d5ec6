// Estimated sizes of what the SDK-metrics stores keep, for their byte budgets. V8 keeps a string as
// a header plus one or two bytes a character (two is assumed: names may be any Unicode), a Map
// entry costs a few words plus its hash-table slot, an object its header and one word per field.
// Estimates, not measurements, but they grow with what a client sends, which is what a budget has
// to bound (bench/hostile.ts compares with RSS).

/** A string, or nothing for null. */
export const strBytes = (s: string | null) => (s === null ? 0 : 24 + 2 * s.length);
/** One entry of a Map or Set. */
export const ENTRY_BYTES = 48;
/** An object of `fields` fields. */
export const objectBytes = (fields: number) => 16 + 8 * fields;
