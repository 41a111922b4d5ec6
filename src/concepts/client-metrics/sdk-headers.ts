// What an SDK says about itself in headers. Unleash 8.1+ reads `unleash-sdk-flavor` and
// `unleash-sdk-flavor-version` (set by integrations built on an SDK, e.g. an OpenFeature provider),
// the connection id from `unleash-connection-id`, else `x-unleash-connection-id`, and SDKs send
// `unleash-sdk` (name:version) and `unleash-interval` (ms) with every request. A body's own field
// wins over its header. Headers are advisory, so a value that cannot be kept is left out rather
// than failing the request: longer than the 255 characters a body field may have, or an interval
// that is not a number (the Node SDK sends the text "undefined" when it has none).
import type { IncomingHttpHeaders } from 'node:http';

export interface SdkDetails {
  connectionId?: string;
  sdkVersion?: string;
  sdkFlavor?: string;
  sdkFlavorVersion?: string;
  /** Milliseconds. */
  interval?: number;
}

const MAX = 255;

function one(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return typeof v === 'string' && v.length > 0 && v.length <= MAX ? v : undefined;
}

export function sdkHeaders(headers: IncomingHttpHeaders): SdkDetails {
  const interval = one(headers, 'unleash-interval');
  return {
    connectionId: one(headers, 'unleash-connection-id') ?? one(headers, 'x-unleash-connection-id'),
    sdkVersion: one(headers, 'unleash-sdk'),
    sdkFlavor: one(headers, 'unleash-sdk-flavor'),
    sdkFlavorVersion: one(headers, 'unleash-sdk-flavor-version'),
    interval: interval !== undefined && /^\d{1,15}$/.test(interval) ? Number(interval) : undefined,
  };
}
