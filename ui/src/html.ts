// htm bound to Preact: JSX-like templates in plain tagged strings, so the console needs no JSX step.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
