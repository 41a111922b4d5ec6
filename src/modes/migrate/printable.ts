// Text from an Unleash (flag and token names, its version, its error messages) reaches the
// operator's terminal and logs. A hostile or broken source can put escape sequences in it that
// clear the screen, set the window title, hide or reorder what follows (CR, bidi controls): every
// such character is shown as a `\uXXXX` escape instead, so what is printed is what was sent.

/**
 * C0 and C1 controls (ESC, CSI, OSC, BEL, CR, …), format characters (the bidi embeddings,
 * overrides and isolates, zero-width ones), the line and paragraph separators, lone surrogates.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const UNPRINTABLE_BUT_NEWLINE = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with every character that could steer a terminal escaped (line ends too). */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escape);
}

/** The same for lines of output: their line ends are kept. */
export function printableLines(text: string): string {
  return text.replace(UNPRINTABLE_BUT_NEWLINE, escape);
}

/** A name from elsewhere in quotes, unambiguous: its quotes and backslashes escaped too. */
export function quoted(name: string): string {
  return `"${printable(name.replace(/[\\"]/g, (c) => `\\${c}`))}"`;
}
