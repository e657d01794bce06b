/**
 * The hashes an archive import has seen, and where: a table of 64-bit fingerprints (the first 8
 * bytes of each 32-byte hash) with the height of its block, in typed arrays. Mainnet's history is
 * some ten million block and transaction hashes: as strings in a Set that is over a gigabyte; here
 * it is 12 bytes a slot. A fingerprint seen before gives the earlier height, and the caller compares
 * the whole hashes there (two different hashes share a fingerprint with a chance of about one in
 * a million over mainnet's hashes, and then the full comparison clears them).
 */
const EMPTY = 0;

export class SeenHashes {
  private keys: Uint32Array;
  /** Height + 1 of the block holding each slot's hash (0: the slot is free). */
  private heights: Uint32Array;
  private mask: number;
  private count = 0;

  constructor(capacity = 1 << 16) {
    let slots = 1 << 10;
    while (slots < capacity * 2) slots *= 2;
    this.keys = new Uint32Array(slots * 2);
    this.heights = new Uint32Array(slots);
    this.mask = slots - 1;
  }

  get size(): number {
    return this.count;
  }

  /**
   * Adds `hash` (hex) seen at `height`: returns the heights of earlier hashes with its fingerprint
   * (usually none); the hash is added either way.
   */
  add(hash: string, height: number): number[] {
    const hi = Number.parseInt(hash.slice(0, 8), 16) >>> 0;
    const lo = Number.parseInt(hash.slice(8, 16), 16) >>> 0;
    const earlier: number[] = [];
    let slot = (Math.imul(lo ^ hi, 0x9e3779b1) >>> 0) & this.mask;
    while (this.heights[slot] !== EMPTY) {
      if (this.keys[slot * 2] === hi && this.keys[slot * 2 + 1] === lo) earlier.push(this.heights[slot]! - 1);
      slot = (slot + 1) & this.mask;
    }
    this.keys[slot * 2] = hi;
    this.keys[slot * 2 + 1] = lo;
    this.heights[slot] = height + 1;
    if (++this.count * 10 > (this.mask + 1) * 7) this.grow();
    return earlier;
  }

  private grow(): void {
    const { keys, heights } = this;
    const slots = (this.mask + 1) * 2;
    this.keys = new Uint32Array(slots * 2);
    this.heights = new Uint32Array(slots);
    this.mask = slots - 1;
    for (let old = 0; old < heights.length; old++) {
      if (heights[old] === EMPTY) continue;
      const hi = keys[old * 2]!;
      const lo = keys[old * 2 + 1]!;
      let slot = (Math.imul(lo ^ hi, 0x9e3779b1) >>> 0) & this.mask;
      while (this.heights[slot] !== EMPTY) slot = (slot + 1) & this.mask;
      this.keys[slot * 2] = hi;
      this.keys[slot * 2 + 1] = lo;
      this.heights[slot] = heights[old]!;
    }
  }
}
