// GET /favicon.svg and /favicon.ico: the service's icon, a white check mark on the console's
// accent blue. Browsers ask for /favicon.ico on their own (and bookmarks, feed readers and link
// previews do too), so it is answered rather than left a 404. Both files are drawn here from one
// shape: the SVG declares it, the ICO rasterizes it (32 x 32, 32-bit BMP inside the ICO), so no
// binary is kept in the repository.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { RouteDeps } from '../deps.ts';

const SIZE = 32;
const RADIUS = 6;
const ACCENT = [0x0b, 0x5c, 0xad] as const; // --accent of src/console/web/styles.css
const CHECK: ReadonlyArray<readonly [number, number]> = [
  [8.5, 16.5],
  [13.5, 21.5],
  [23.5, 10.5],
];
const STROKE = 4;

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}"><rect width="${SIZE}" height="${SIZE}" rx="${RADIUS}" fill="#${ACCENT.map((c) => c.toString(16).padStart(2, '0')).join('')}"/><polyline points="${CHECK.map((p) => p.join(',')).join(' ')}" fill="none" stroke="#fff" stroke-width="${STROKE}" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

/** Distance from (x, y) to the segment a-b. */
function toSegment(x: number, y: number, [ax, ay]: readonly [number, number], [bx, by]: readonly [number, number]): number {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - (ax + t * dx), y - (ay + t * dy));
}

/** Whether the pixel centre (x, y) lies inside the rounded square. */
function inSquare(x: number, y: number): boolean {
  const cx = Math.min(Math.max(x, RADIUS), SIZE - RADIUS);
  const cy = Math.min(Math.max(y, RADIUS), SIZE - RADIUS);
  return Math.hypot(x - cx, y - cy) <= RADIUS;
}

/** The icon as an ICO file: one 32 x 32 image, a BGRA bitmap stored bottom-up, and its (unused) AND mask. */
export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row++) {
    const y = SIZE - 1 - row + 0.5; // bottom-up
    for (let column = 0; column < SIZE; column++) {
      const x = column + 0.5;
      const at = (row * SIZE + column) * 4;
      if (!inSquare(x, y)) continue; // transparent
      const onCheck = CHECK.slice(1).some((end, i) => toSegment(x, y, CHECK[i], end) <= STROKE / 2);
      const [r, g, b] = onCheck ? [0xff, 0xff, 0xff] : ACCENT;
      pixels.set([b, g, r, 0xff], at);
    }
  }
  const mask = Buffer.alloc((SIZE / 8) * SIZE); // rows of 32 bits, already 4-byte aligned; alpha decides
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0); // BITMAPINFOHEADER
  header.writeInt32LE(SIZE, 4);
  header.writeInt32LE(SIZE * 2, 8); // the XOR image and the AND mask, stacked
  header.writeUInt16LE(1, 12); // planes
  header.writeUInt16LE(32, 14); // bits per pixel
  const image = Buffer.concat([header, pixels, mask]);
  const directory = Buffer.alloc(6 + 16);
  directory.writeUInt16LE(0, 0);
  directory.writeUInt16LE(1, 2); // an icon
  directory.writeUInt16LE(1, 4); // one image
  directory.writeUInt8(SIZE, 6);
  directory.writeUInt8(SIZE, 7);
  directory.writeUInt16LE(1, 10); // planes
  directory.writeUInt16LE(32, 12); // bits per pixel
  directory.writeUInt32LE(image.length, 14);
  directory.writeUInt32LE(directory.length, 18);
  return Buffer.concat([directory, image]);
}

const ICO = faviconIco();

function iconHeaders(reply: FastifyReply) {
  // The icon changes only with a release; a day keeps browsers from asking on every page.
  reply.header('Cache-Control', 'public, max-age=86400');
  reply.header('X-Content-Type-Options', 'nosniff');
}

export default function faviconRoutes(app: FastifyInstance, _deps: RouteDeps) {
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) => {
    iconHeaders(reply);
    return reply.type('image/x-icon').send(ICO);
  });
  app.get('/favicon.svg', { schema: { hide: true } }, async (_request, reply) => {
    iconHeaders(reply);
    return reply.type('image/svg+xml').send(FAVICON_SVG);
  });
}
