/**
 * A main image for every demo product, drawn at seed time (nothing downloaded): a small PNG
 * whose colours and pattern come from a hash of the product's name, so each product looks its
 * own and two seeds draw the same bytes. The images are public files (files/routes.ts), so
 * their `link.href` loads in a browser with no token, and each is the product's main_image in
 * PXM and in the releases already published.
 *
 * Fast by construction: 1-bit palette PNGs, whose pixel data (the compressed IDAT) depends on
 * the pattern alone and is deflated once per pattern; a product's own part is its palette.
 */
import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import type { Db } from '../db.ts';
import { uuidFromBytes } from '../ids.ts';

/** Pixels per side. */
const SIZE = 128;
const PATTERNS = 8;

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** Whether pixel (x, y) of pattern `p` is in the foreground colour. */
function foreground(p: number, x: number, y: number): boolean {
  const cx = x - SIZE / 2;
  const cy = y - SIZE / 2;
  switch (p) {
    case 0:
      return Math.floor(y / 16) % 2 === 0; // stripes
    case 1:
      return Math.floor((x + y) / 16) % 2 === 0; // diagonals
    case 2:
      return (Math.floor(x / 16) + Math.floor(y / 16)) % 2 === 0; // checks
    case 3:
      return cx * cx + cy * cy < 40 * 40; // disc
    case 4:
      return Math.floor(Math.sqrt(cx * cx + cy * cy) / 12) % 2 === 0; // rings
    case 5:
      return Math.abs(cx) + Math.abs(cy) < 44; // diamond
    case 6:
      return Math.abs(cx) < 12 || Math.abs(cy) < 12; // cross
    default:
      return x % 24 < 12 !== y % 24 < 12 && (x + y) % 6 < 3; // weave
  }
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const IHDR = (() => {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(SIZE, 0);
  data.writeUInt32BE(SIZE, 4);
  data[8] = 1; // bit depth
  data[9] = 3; // palette
  return chunk('IHDR', data);
})();
const IEND = chunk('IEND', Buffer.alloc(0));

/** The IDAT chunk of each pattern, made on first use. */
const idats = new Map<number, Buffer>();
function idatOf(p: number): Buffer {
  let idat = idats.get(p);
  if (idat === undefined) {
    const stride = SIZE / 8 + 1;
    const raw = Buffer.alloc(stride * SIZE);
    for (let y = 0; y < SIZE; y++) {
      for (let x = 0; x < SIZE; x++) {
        if (foreground(p, x, y)) {
          const at = y * stride + 1 + (x >> 3);
          raw[at] = (raw[at] ?? 0) | (0x80 >> (x & 7));
        }
      }
    }
    idat = chunk('IDAT', deflateSync(raw, { level: 9 }));
    idats.set(p, idat);
  }
  return idat;
}

/** HSL (h in [0, 360), s and l in [0, 1]) → RGB bytes. */
function rgb(h: number, s: number, l: number): [number, number, number] {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

/** The PNG of a product: its name's hash picks the hue, the pattern and the contrast. */
export function productImage(name: string): Buffer {
  const hash = createHash('sha256').update(name).digest();
  const hue = ((hash[0] ?? 0) * 256 + (hash[1] ?? 0)) % 360;
  const pattern = (hash[2] ?? 0) % PATTERNS;
  const background = rgb(hue, 0.55, 0.82);
  const ink = rgb((hue + 20 + ((hash[3] ?? 0) % 40)) % 360, 0.6, 0.38);
  const palette = chunk('PLTE', Buffer.from([...background, ...ink]));
  return Buffer.concat([SIGNATURE, IHDR, palette, idatOf(pattern), IEND]);
}

interface ProductForImage {
  id: string;
  name: string;
  sku: string | null;
  created_at: string;
}

/**
 * Draws and attaches a main image for every product of the store that has none, then gives the
 * published releases' copies of those products the same image. Returns how many it drew.
 */
export function seedProductImages(db: Db, storeId: string): number {
  const products = db
    .prepare(
      `SELECT id, name, sku, created_at FROM pcm_products
       WHERE store_id = ? AND main_image_id IS NULL ORDER BY created_at, id`,
    )
    .all(storeId) as ProductForImage[];
  const insertFile = db.prepare(
    `INSERT INTO files (id, store_id, file_name, mime_type, file_size, public, created_at,
       updated_at) VALUES (?, ?, ?, 'image/png', ?, 1, ?, ?)`,
  );
  const insertContent = db.prepare('INSERT INTO file_contents (file_id, content) VALUES (?, ?)');
  const attach = db.prepare('UPDATE pcm_products SET main_image_id = ? WHERE id = ?');
  for (const product of products) {
    const id = uuidFromBytes(
      createHash('sha256').update(`commerce-seed-image:${product.id}`).digest(),
    );
    const bytes = productImage(`${product.name} ${product.sku ?? ''}`);
    const fileName = `${(product.sku ?? product.id).toLowerCase()}.png`;
    insertFile.run(id, storeId, fileName, bytes.length, product.created_at, product.created_at);
    insertContent.run(id, bytes);
    attach.run(id, product.id);
  }
  db.prepare(
    `UPDATE release_products SET main_image_id =
       (SELECT p.main_image_id FROM pcm_products p WHERE p.id = release_products.id)
     WHERE store_id = ? AND main_image_id IS NULL`,
  ).run(storeId);
  return products.length;
}
