// A webhook receiver for Fanion: checks each request's signature, prints the event, answers 204.
//   FANION_WEBHOOK_SECRET=<the addon's signingSecret> PORT=8080 node examples/webhook-receiver.mjs
// Fanion delivers at least once: after a crash an event may come twice, with the same
// X-Fanion-Delivery header, which a receiver that must act once can remember and skip.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const secret = process.env.FANION_WEBHOOK_SECRET;
if (!secret) throw new Error('set FANION_WEBHOOK_SECRET to the signingSecret Fanion showed when the addon was created');
const seen = new Set();

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    const given = Buffer.from(String(req.headers['x-fanion-signature'] ?? ''));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      console.log('refused: bad signature');
      res.writeHead(401).end();
      return;
    }
    const delivery = String(req.headers['x-fanion-delivery']);
    if (!seen.has(delivery)) {
      seen.add(delivery);
      const event = JSON.parse(body.toString());
      console.log(`event ${event.id} ${event.type} ${event.featureName ?? ''} by ${event.createdBy}`);
    }
    res.writeHead(204).end();
  });
});
server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => console.log(`listening on ${server.address().port}`));
