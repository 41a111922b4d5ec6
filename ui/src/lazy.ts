// Pages a person opens now and then (definitions, people, webhooks, templates, …) are fetched the
// first time they are shown, so the first load carries only what the flags list and a flag's page
// need. A page's module is asked for once; until it arrives the place shows "Loading…", and if it
// cannot be fetched (the server was upgraded and the old hashed file is gone) the person is told
// to reload.
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';

export function lazy<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let page: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  return function Lazy(props: P) {
    const [, setReady] = useState(false);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (page) return undefined;
      let current = true;
      loading ??= load();
      loading.then(
        (p) => ((page = p), current && setReady(true)),
        () => ((loading = null), current && setFailed(true)),
      );
      return () => {
        current = false;
      };
    }, []);
    if (page) return html`<${page} ...${props} />`;
    return failed
      ? html`<p class="error-text" role="alert">This page could not be fetched; the server may have been upgraded. Reload the page.</p>`
      : html`<p class="loading">Loading…</p>`;
  };
}
