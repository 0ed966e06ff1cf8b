// Draws the extension icon (images/icon.png, 128x128): three nodes joined by edges on a dark
// rounded square. Plain Node, no image library: pixels are computed with 4x4 supersampling and
// written as an RGBA PNG. `node client/scripts/drawIcon.mjs`.
import { writeFileSync, mkdirSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const SAMPLES = 4;

const background = [30, 36, 48];
const edgeColour = [140, 150, 170];
const nodes = [
  { x: 64, y: 30, r: 15, colour: [177, 128, 215] }, // model node
  { x: 34, y: 94, r: 15, colour: [55, 148, 255] }, // tool node
  { x: 94, y: 94, r: 15, colour: [137, 209, 133] }, // function node
];
const edges = [
  [0, 1],
  [0, 2],
  [1, 2],
];

function insideRoundedSquare(x, y) {
  const radius = 22;
  const cx = Math.min(Math.max(x, radius), SIZE - radius);
  const cy = Math.min(Math.max(y, radius), SIZE - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

function distanceToSegment(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** The colour of one sample point, or undefined outside the icon. */
function sample(x, y) {
  if (!insideRoundedSquare(x, y)) return undefined;
  for (const node of nodes) {
    const d = Math.hypot(x - node.x, y - node.y);
    if (d <= node.r - 3) return node.colour;
    if (d <= node.r) return [240, 244, 250];
  }
  for (const [a, b] of edges) {
    if (distanceToSegment(x, y, nodes[a].x, nodes[a].y, nodes[b].x, nodes[b].y) <= 3) return edgeColour;
  }
  return background;
}

const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
for (let y = 0; y < SIZE; y++) {
  raw[y * (SIZE * 4 + 1)] = 0; // filter: none
  for (let x = 0; x < SIZE; x++) {
    let r = 0,
      g = 0,
      b = 0,
      a = 0;
    for (let sy = 0; sy < SAMPLES; sy++) {
      for (let sx = 0; sx < SAMPLES; sx++) {
        const colour = sample(x + (sx + 0.5) / SAMPLES, y + (sy + 0.5) / SAMPLES);
        if (colour === undefined) continue;
        r += colour[0];
        g += colour[1];
        b += colour[2];
        a += 1;
      }
    }
    const offset = y * (SIZE * 4 + 1) + 1 + x * 4;
    // Colours are averaged over covered samples only (straight alpha), alpha over all samples.
    raw[offset] = a ? Math.round(r / a) : 0;
    raw[offset + 1] = a ? Math.round(g / a) : 0;
    raw[offset + 2] = a ? Math.round(b / a) : 0;
    raw[offset + 3] = Math.round((a / (SAMPLES * SAMPLES)) * 255);
  }
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header[8] = 8; // bit depth
header[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
const out = new URL('../../images/icon.png', import.meta.url);
mkdirSync(new URL('.', out), { recursive: true });
writeFileSync(out, png);
console.log(`wrote ${out.pathname} (${png.length} bytes)`);
