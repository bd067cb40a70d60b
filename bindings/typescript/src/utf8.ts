/**
 * UTF-8 by hand: strict (as Rust's `str`), with no dependency on TextEncoder/TextDecoder
 * (whose decoder drops a leading byte order mark unless told not to, and whose encoder
 * replaces lone surrogates silently), and fast for the short strings of key paths.
 */

/** Index of the first lone surrogate in `s` (which UTF-8 cannot hold), or -1. */
export function loneSurrogateAt(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return i;
  }
  return -1;
}

/** Number of UTF-8 bytes of `s.slice(0, end)` (a lone surrogate counts 3, as WTF-8 has it). */
export function utf8Length(s: string, end: number = s.length): number {
  let n = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** The UTF-8 bytes of a well-formed string. */
export function utf8Encode(s: string): Uint8Array {
  const out = new Uint8Array(utf8Length(s));
  let p = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      out[p++] = c;
    } else if (c < 0x800) {
      out[p++] = 0xc0 | (c >> 6);
      out[p++] = 0x80 | (c & 63);
    } else if (c >= 0xd800 && c <= 0xdbff) {
      c = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
      out[p++] = 0xf0 | (c >> 18);
      out[p++] = 0x80 | ((c >> 12) & 63);
      out[p++] = 0x80 | ((c >> 6) & 63);
      out[p++] = 0x80 | (c & 63);
    } else {
      out[p++] = 0xe0 | (c >> 12);
      out[p++] = 0x80 | ((c >> 6) & 63);
      out[p++] = 0x80 | (c & 63);
    }
  }
  return out;
}

/** Builds a string from UTF-16 code units, in chunks small enough for `apply`. */
export function fromCodeUnits(units: ArrayLike<number>, start: number, end: number): string {
  if (end - start <= 8192) {
    return String.fromCharCode.apply(null, Array.prototype.slice.call(units, start, end));
  }
  let s = "";
  for (let i = start; i < end; i += 8192) {
    s += String.fromCharCode.apply(
      null,
      Array.prototype.slice.call(units, i, Math.min(end, i + 8192)),
    );
  }
  return s;
}

/**
 * Decodes strict UTF-8 (no overlong forms, surrogates or values above U+10FFFF; a byte order
 * mark is kept as U+FEFF). Returns `undefined` for invalid input, or with `lossy` replaces
 * each maximal invalid subpart with U+FFFD (as Rust's `String::from_utf8_lossy` and the
 * WHATWG decoder do).
 */
export function utf8Decode(
  b: Uint8Array,
  start: number,
  end: number,
  lossy = false,
): string | undefined {
  let ascii = true;
  for (let i = start; i < end; i++) {
    if (b[i]! >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return fromCodeUnits(b, start, end);
  const units: number[] = [];
  let i = start;
  outer: while (i < end) {
    const b0 = b[i]!;
    if (b0 < 0x80) {
      units.push(b0);
      i++;
      continue;
    }
    let need: number;
    let cp: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      need = 1;
      cp = b0 & 0x1f;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      need = 2;
      cp = b0 & 0x0f;
      if (b0 === 0xe0) lo = 0xa0;
      else if (b0 === 0xed) hi = 0x9f;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      need = 3;
      cp = b0 & 0x07;
      if (b0 === 0xf0) lo = 0x90;
      else if (b0 === 0xf4) hi = 0x8f;
    } else {
      if (!lossy) return undefined;
      units.push(0xfffd);
      i++;
      continue;
    }
    for (let k = 1; k <= need; k++) {
      const c = i + k < end ? b[i + k]! : -1;
      if (c < lo || c > hi) {
        if (!lossy) return undefined;
        units.push(0xfffd);
        i += k;
        continue outer;
      }
      lo = 0x80;
      hi = 0xbf;
      cp = (cp << 6) | (c & 63);
    }
    i += need + 1;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      units.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
    } else {
      units.push(cp);
    }
  }
  return fromCodeUnits(units, 0, units.length);
}
