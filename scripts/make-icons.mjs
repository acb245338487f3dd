// Draws the app icons (a ">_" prompt on the accent colour) as PNG files in public/icons/.
// Run once when the design changes: node scripts/make-icons.mjs
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
function png(size, pixel) {
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) raw.set(pixel(x / size, y / size), y * (size * 4 + 1) + 1 + x * 4);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
const distToSegment = (px, py, ax, ay, bx, by) => {
  const t = Math.max(
    0,
    Math.min(1, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)),
  );
  return Math.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay)));
};
function icon({ maskable }) {
  const inset = maskable ? 0.2 : 0.1;
  const scale = (v) => inset + v * (1 - 2 * inset);
  return (x, y) => {
    const r = maskable ? 0 : 0.2;
    const dx = Math.max(0, Math.abs(x - 0.5) - (0.5 - r)),
      dy = Math.max(0, Math.abs(y - 0.5) - (0.5 - r));
    if (Math.hypot(dx, dy) > r) return [0, 0, 0, 0];
    const w = 0.06 * (1 - 2 * inset) * 1.6;
    const stroke =
      distToSegment(x, y, scale(0.22), scale(0.3), scale(0.45), scale(0.5)) < w ||
      distToSegment(x, y, scale(0.45), scale(0.5), scale(0.22), scale(0.7)) < w ||
      distToSegment(x, y, scale(0.52), scale(0.72), scale(0.8), scale(0.72)) < w;
    return stroke ? [255, 255, 255, 255] : [52, 81, 209, 255];
  };
}
const dir = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'public', 'icons');
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'icon-192.png'), png(192, icon({ maskable: false })));
fs.writeFileSync(path.join(dir, 'icon-512.png'), png(512, icon({ maskable: false })));
fs.writeFileSync(path.join(dir, 'maskable-512.png'), png(512, icon({ maskable: true })));
console.log('icons written to', dir);
