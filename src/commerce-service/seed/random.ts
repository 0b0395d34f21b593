/**
 * The seed's source of every value: a small PRNG seeded by a string (so two seeds of the same
 * store draw the same stream), and seeded timestamps, which count from SEED_EPOCH and never read
 * the clock.
 */
import { createHash } from 'node:crypto';

/** Every seeded timestamp is derived from this instant, never from the clock. */
export const SEED_EPOCH = Date.parse('2025-01-06T09:00:00.000Z');

/** sfc32: small, fast, 128-bit state; good enough for demo data and fully reproducible. */
export interface Random {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(values: readonly T[]): T;
  /** A lowercase uuid in v4 form whose bits come from this generator. */
  uuid(): string;
}

export function createRandom(seed: string): Random {
  const h = createHash('sha256').update(seed).digest();
  let a = h.readUInt32LE(0);
  let b = h.readUInt32LE(4);
  let c = h.readUInt32LE(8);
  let d = h.readUInt32LE(12);
  const u32 = (): number => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  // Warm up: the first outputs of sfc32 correlate with the seed words.
  for (let i = 0; i < 15; i++) u32();
  return {
    next: () => u32() / 4294967296,
    int(min, max) {
      return min + Math.floor((u32() / 4294967296) * (max - min + 1));
    },
    pick<T>(values: readonly T[]): T {
      const value = values[Math.floor((u32() / 4294967296) * values.length)];
      if (value === undefined) throw new RangeError('pick from an empty list');
      return value;
    },
    uuid() {
      // Same layout as ids.ts's uuidFromBytes (v4 version and variant bits), built from
      // strings: seeding makes hundreds of thousands of these.
      const w0 = u32();
      const w1 = u32();
      const w2 = u32();
      const w3 = u32();
      const h1 = hex8(w1);
      const h2 = hex8(((w2 & 0x3fffffff) | 0x80000000) >>> 0);
      return `${hex8(w0)}-${h1.slice(0, 4)}-4${h1.slice(5)}-${h2.slice(0, 4)}-${h2.slice(4)}${hex8(w3)}`;
    },
  };
}

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

let isoDay = Number.NaN;
let isoPrefix = '';
/**
 * `new Date(ms).toISOString()`, with the date part cached per UTC day: the seed formats one or
 * two timestamps per order, and order timestamps move through few distinct days.
 */
export function iso(ms: number): string {
  const day = Math.floor(ms / 86_400_000);
  if (day !== isoDay) {
    isoDay = day;
    isoPrefix = new Date(day * 86_400_000).toISOString().slice(0, 11);
  }
  let rest = ms - day * 86_400_000;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const sec = Math.floor(rest / 1000);
  const milli = rest - sec * 1000;
  const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
  return `${isoPrefix}${two(h)}:${two(m)}:${two(sec)}.${milli < 10 ? `00${milli}` : milli < 100 ? `0${milli}` : milli}Z`;
}
