/**
 * The binary form of key paths (docs/FORMAT.md, "Binary form"):
 *
 * ```text
 * {segment} 01 {segment} 01 ... {segment} 00 {varint} {varint} ... {varint}
 * ```
 *
 * Segments are the namespaces and IDs in order; each varint is `(length << 3) | type` of one
 * segment (7 bits a byte, least significant group first). The metadata sits after the
 * terminator so it never decides the order. Decoding reads the metadata backwards from the
 * end until segment bytes, separators, terminator and metadata account for every byte.
 */

import { KeyPathError, hexByte, quote } from "./errors.js";
import { type HeldComponent, type HeldId, Uuid } from "./id.js";
import { readInt, writeInt } from "./int.js";
import { utf8Decode } from "./utf8.js";

/** Separates segments (a namespace from its ID, and one component from the next). */
export const SEPARATOR = 0x01;
/** Ends the segment section; the metadata follows. */
export const TERMINATOR = 0x00;
/** Metadata type of a namespace segment. */
export const TYPE_NAMESPACE = 0;
/** Metadata type of an integer ID segment. */
export const TYPE_INT = 1;
/** Metadata type of a string ID segment. */
export const TYPE_STRING = 2;
/** Metadata type of a byte-string ID segment. */
export const TYPE_BYTES = 3;
/** Metadata type of a UUID ID segment. */
export const TYPE_UUID = 4;
/** Escape byte for content bytes `00..=10`; also the empty string on its own. */
export const ESCAPE = 0x10;
/** Added to an escaped byte so the second byte is never `00` or `01`. */
export const ESCAPE_OFFSET = 0x02;
/** First byte of every byte-string ID (UTF-8 never has `FF`). */
export const BYTES_MARKER = 0xff;

const VARINT_MAX_LEN = 10;

/** The encoder's working buffer, grown as needed; every result is a copy of part of it. */
let scratch = new Uint8Array(512);
/** Metadata values of the segments being encoded (`metaCount` of them), grown as needed. */
let metas = new Float64Array(64);
let metaCount = 0;

function pushMeta(v: number): void {
  if (metaCount === metas.length) {
    const bigger = new Float64Array(metas.length * 2);
    bigger.set(metas);
    metas = bigger;
  }
  metas[metaCount++] = v;
}

function ensure(pos: number, extra: number): void {
  if (pos + extra > scratch.length) {
    const bigger = new Uint8Array(Math.max(scratch.length * 2, pos + extra + 64));
    bigger.set(scratch.subarray(0, pos));
    scratch = bigger;
  }
}

function idType(id: HeldId): number {
  if (typeof id === "number" || typeof id === "bigint") return TYPE_INT;
  if (typeof id === "string") return TYPE_STRING;
  if (id instanceof Uuid) return TYPE_UUID;
  return TYPE_BYTES;
}

/** Writes an ID segment at `pos` into the scratch buffer; returns the end. */
function writeId(id: HeldId, pos: number): number {
  if (typeof id === "number" || typeof id === "bigint") {
    ensure(pos, 9);
    return writeInt(id, scratch, pos);
  }
  if (typeof id === "string") {
    if (id.length === 0) {
      ensure(pos, 1);
      scratch[pos] = ESCAPE;
      return pos + 1;
    }
    ensure(pos, 3 * id.length); // at most 3 bytes per UTF-16 unit, escapes included
    const out = scratch;
    for (let i = 0; i < id.length; i++) {
      let c = id.charCodeAt(i);
      if (c < 0x80) {
        if (c <= ESCAPE) {
          out[pos++] = ESCAPE;
          out[pos++] = c + ESCAPE_OFFSET;
        } else out[pos++] = c;
      } else if (c < 0x800) {
        out[pos++] = 0xc0 | (c >> 6);
        out[pos++] = 0x80 | (c & 63);
      } else if (c >= 0xd800 && c <= 0xdbff) {
        // Held strings are well-formed: a low surrogate follows.
        c = 0x10000 + ((c - 0xd800) << 10) + (id.charCodeAt(++i) - 0xdc00);
        out[pos++] = 0xf0 | (c >> 18);
        out[pos++] = 0x80 | ((c >> 12) & 63);
        out[pos++] = 0x80 | ((c >> 6) & 63);
        out[pos++] = 0x80 | (c & 63);
      } else {
        out[pos++] = 0xe0 | (c >> 12);
        out[pos++] = 0x80 | ((c >> 6) & 63);
        out[pos++] = 0x80 | (c & 63);
      }
    }
    return pos;
  }
  if (id instanceof Uuid) {
    ensure(pos, 16);
    const u = id._bytes;
    for (let i = 0; i < 16; i++) scratch[pos + i] = u[i]!;
    return pos + 16;
  }
  ensure(pos, 1 + 2 * id.length);
  const out = scratch;
  out[pos++] = BYTES_MARKER;
  for (let i = 0; i < id.length; i++) {
    const b = id[i]!;
    if (b <= ESCAPE) {
      out[pos++] = ESCAPE;
      out[pos++] = b + ESCAPE_OFFSET;
    } else out[pos++] = b;
  }
  return pos;
}

/** Writes the segment section (segments joined by separators, no terminator) from `pos`. */
function writeSegments(components: readonly HeldComponent[], pos: number): number {
  metaCount = 0;
  for (let i = 0; i < components.length; i++) {
    const c = components[i]!;
    const ns = c.namespace;
    ensure(pos, ns.length + 2);
    if (i > 0) scratch[pos++] = SEPARATOR;
    for (let j = 0; j < ns.length; j++) scratch[pos++] = ns.charCodeAt(j);
    pushMeta(ns.length * 8 + TYPE_NAMESPACE);
    if (c.id !== undefined) {
      scratch[pos++] = SEPARATOR;
      const start = pos;
      pos = writeId(c.id, pos);
      pushMeta((pos - start) * 8 + idType(c.id));
    }
  }
  return pos;
}

/** The binary form of a path. */
export function encodeComponents(components: readonly HeldComponent[]): Uint8Array {
  let pos = writeSegments(components, 0);
  ensure(pos, 1 + 10 * metaCount);
  const out = scratch;
  out[pos++] = TERMINATOR;
  for (let i = 0; i < metaCount; i++) {
    let v = metas[i]!;
    while (v >= 0x80) {
      out[pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    out[pos++] = v;
  }
  return out.slice(0, pos);
}

/** The segment section of a path followed by `tail` bytes (for ranges). */
export function segmentsWith(components: readonly HeldComponent[], ...tail: number[]): Uint8Array {
  let pos = writeSegments(components, 0);
  ensure(pos, tail.length);
  for (const b of tail) scratch[pos++] = b;
  return scratch.slice(0, pos);
}

/** The encoding of one ID segment. */
export function encodeIdSegment(id: HeldId): Uint8Array {
  const end = writeId(id, 0);
  return scratch.slice(0, end);
}

// ---- decoding ----

function metadataError(position: number, what: string): KeyPathError {
  return new KeyPathError(
    "metadata",
    position,
    `expected segment metadata (varints) that accounts for every byte, found ${what}`,
  );
}

// Results of the varint readers and of findLayout, returned through these instead of arrays
// (an allocation per varint is most of a decode's time otherwise).
let varintValue = 0;
let varintLength = 0;
let varintStart = 0;
let layoutCount = 0;
let layoutMetadataStart = 0;

/**
 * Reads one varint forwards from `start` into `varintValue` (exact below 2^53) and
 * `varintLength`.
 */
function varintAt(b: Uint8Array, start: number): void {
  const first = b[start]!;
  if (first < 0x80) {
    varintValue = first;
    varintLength = 1;
    return;
  }
  let value = 0;
  const n = Math.min(VARINT_MAX_LEN, b.length - start);
  for (let i = 0; i < n; i++) {
    const byte = b[start + i]!;
    const chunk = byte & 0x7f;
    // The tenth byte holds bit 63 only.
    if (i === 9 && chunk > 1) throw metadataError(start, "a varint above 2^64");
    value += chunk * 2 ** (7 * i);
    if (byte < 0x80) {
      if (i > 0 && byte === 0) throw metadataError(start, "an overlong varint");
      varintValue = value;
      varintLength = i + 1;
      return;
    }
  }
  throw metadataError(start, "an unterminated varint");
}

/** Reads one varint that ends at `end` (exclusive), backwards, into `varintValue` and `varintStart`. */
function varintEndingAt(b: Uint8Array, end: number): void {
  if (end >= 2 && b[end - 1]! < 0x80 && b[end - 2]! < 0x80) {
    varintValue = b[end - 1]!;
    varintStart = end - 1;
    return;
  }
  const at = Math.max(end - 1, 0);
  if (end === 0 || b[end - 1]! >= 0x80) {
    throw metadataError(at, "a varint whose last byte has the continuation bit");
  }
  let start = end - 1;
  while (start > 0 && b[start - 1]! >= 0x80) {
    start--;
    if (end - start > VARINT_MAX_LEN) throw metadataError(at, "a varint longer than 10 bytes");
  }
  varintAt(b, start);
  varintStart = start;
}

/** How many segments an encoding has (`layoutCount`) and where its metadata starts. */
function findLayout(b: Uint8Array): void {
  if (b.length === 0) {
    throw new KeyPathError("empty", 0, "expected a key path encoding, found no bytes");
  }
  if (b.length === 1 && b[0] === TERMINATOR) {
    layoutCount = 0; // the empty path
    layoutMetadataStart = 1;
    return;
  }
  const total = b.length;
  let segBytes = 0;
  let count = 0;
  let end = total;
  for (;;) {
    varintEndingAt(b, end);
    const start = varintStart;
    segBytes += Math.floor(varintValue / 8);
    count++;
    // segments + (count - 1) separators + terminator + metadata
    const needed = segBytes + count + (total - start);
    if (needed === total) {
      layoutCount = count;
      layoutMetadataStart = start;
      return;
    }
    if (needed > total || start === 0) {
      throw metadataError(start, "lengths that do not add up to the input length");
    }
    end = start;
  }
}

const NO_ESCAPE = -1;

/**
 * Undoes the escaping of `b[start..end)`: the raw bytes (a view of `b` when nothing is
 * escaped), or throws at the first bad byte, with its offset in `b`.
 */
function unescape(b: Uint8Array, start: number, end: number): Uint8Array {
  let first = NO_ESCAPE;
  for (let i = start; i < end; i++) {
    if (b[i]! <= ESCAPE) {
      first = i;
      break;
    }
  }
  if (first === NO_ESCAPE) return b.subarray(start, end);
  const out = new Uint8Array(end - start);
  out.set(b.subarray(start, first));
  let p = first - start;
  for (let i = first; i < end; ) {
    const x = b[i]!;
    if (x === ESCAPE) {
      const e = i + 1 < end ? b[i + 1]! : -1;
      if (e >= ESCAPE_OFFSET && e <= ESCAPE + ESCAPE_OFFSET) {
        out[p++] = e - ESCAPE_OFFSET;
        i += 2;
      } else {
        throw escapeError(i, e >= 0 ? e : x);
      }
    } else if (x < ESCAPE) {
      throw escapeError(i, x);
    } else {
      out[p++] = x;
      i++;
    }
  }
  return out.subarray(0, p);
}

function escapeError(position: number, found: number): KeyPathError {
  return new KeyPathError(
    "escape",
    position,
    `expected an escaped ID byte (0x10 then 0x02..=0x12, or a byte >= 0x11), found ${hexByte(found)}`,
  );
}

function segmentTypeError(position: number, expected: string, found: number): KeyPathError {
  return new KeyPathError(
    "segment-type",
    position,
    `expected ${expected} segment, found type code ${found}`,
  );
}

function decodeId(b: Uint8Array, offset: number, len: number, type: number): HeldId {
  const end = offset + len;
  switch (type) {
    case TYPE_INT: {
      const r = readInt(b, offset, end);
      if ("problem" in r) throw new KeyPathError("int", offset, `invalid integer ID: ${r.problem}`);
      if (r.used !== len) throw metadataError(offset, "an integer shorter than its segment");
      return r.value;
    }
    case TYPE_STRING: {
      if (len === 1 && b[offset] === ESCAPE) return "";
      const raw = unescape(b, offset, end);
      if (raw.length === 0) throw metadataError(offset, "an empty string segment");
      const s = utf8Decode(raw, 0, raw.length);
      if (s === undefined) {
        throw new KeyPathError("utf8", offset, "expected a UTF-8 string ID, found invalid UTF-8");
      }
      return s;
    }
    case TYPE_BYTES: {
      if (len === 0 || b[offset] !== BYTES_MARKER) {
        const found = len === 0 ? "an empty segment" : hexByte(b[offset]!);
        throw new KeyPathError(
          "bytes-marker",
          offset,
          `expected the byte-string marker 0xFF, found ${found}`,
        );
      }
      return unescape(b, offset + 1, end).slice();
    }
    case TYPE_UUID:
      if (len !== 16) {
        throw new KeyPathError("uuid-length", offset, `expected a 16-byte UUID, found ${len} bytes`);
      }
      return Uuid._own(b.slice(offset, end));
    default:
      throw segmentTypeError(offset, "an ID", type);
  }
}

/** Bytes shown in a message as text (invalid UTF-8 as U+FFFD). */
function lossy(b: Uint8Array): string {
  return utf8Decode(b, 0, b.length, true)!;
}

/**
 * Decodes a binary form into components. Only canonical encodings decode, so whatever
 * decodes re-encodes to the same bytes; anything else throws a {@link KeyPathError} with
 * the byte offset of the problem.
 */
export function decodeComponents(b: Uint8Array): HeldComponent[] {
  findLayout(b);
  const count = layoutCount;
  const metadataStart = layoutMetadataStart;
  const components: HeldComponent[] = [];
  let index = 0;
  let offset = 0;
  let metaAt = metadataStart;
  // The next segment's offset, length and type; checks the byte after it.
  let segOffset = 0;
  let segLen = 0;
  let segType = 0;
  const next = (): boolean => {
    if (index === count) return false;
    varintAt(b, metaAt);
    segType = b[metaAt]! & 7;
    metaAt += varintLength;
    segOffset = offset;
    segLen = Math.floor(varintValue / 8);
    index++;
    offset += segLen;
    const expected = index === count ? TERMINATOR : SEPARATOR;
    // The layout accounts for every byte, so the byte after a segment is in the input.
    const found = b[offset]!;
    if (found !== expected) {
      throw new KeyPathError(
        "separator",
        offset,
        `expected separator ${hexByte(expected)} after a segment, found ${hexByte(found)}`,
      );
    }
    offset++;
    return true;
  };
  while (next()) {
    if (segType !== TYPE_NAMESPACE) throw segmentTypeError(segOffset, "a namespace", segType);
    let valid = segLen > 0;
    for (let i = segOffset; i < segOffset + segLen; i++) {
      const c = b[i]!;
      if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) {
        valid = false;
        break;
      }
    }
    if (!valid) {
      throw new KeyPathError(
        "namespace",
        segOffset,
        `expected a namespace of ASCII letters or '_', found ${quote(lossy(b.subarray(segOffset, segOffset + segLen)))}`,
      );
    }
    let namespace = "";
    for (let i = segOffset; i < segOffset + segLen; i++) namespace += String.fromCharCode(b[i]!);
    const id = next() ? decodeId(b, segOffset, segLen, segType) : undefined;
    components.push({ namespace, id });
  }
  return components;
}
