// Requests on one keep-alive connection: for tests of what a server remembers per connection.
import http from 'node:http';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The connection it came on (tests compare them to show it was the same). */
  socket: unknown;
}

/** An agent with one keep-alive socket: every request made with it goes over the same connection. */
export const oneConnection = (): http.Agent => new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One request on `agent`, its whole answer read. */
export function request(agent: http.Agent, url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, headers, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, socket: req.socket }));
    });
    req.on('error', reject);
    req.end();
  });
}
