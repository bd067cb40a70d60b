/**
 * The text form of key paths (docs/FORMAT.md, "Text form"):
 *
 * ```text
 * path      = "/" component *( "/" component )      ; or "/" alone: the empty path
 * component = namespace [ "-" id ]
 * namespace = 1*( ALPHA / "_" )
 * id        = int / uuid / bytes / string            ; tried in this order, on the raw text
 * int       = "0" / [ "-" ] %x31-39 *DIGIT           ; out of range is an error
 * uuid      = 8HEXDIG "-" 4HEXDIG "-" 4HEXDIG "-" 4HEXDIG "-" 12HEXDIG
 * bytes     = "~" base64url without padding
 * string    = anything else; "%/" is "/", "%%" is "%", "%" 2HEXDIG (00-7F) is that character
 * ```
 *
 * Positions in errors are UTF-8 byte offsets in the text, as the Rust crate reports them.
 */

import { KeyPathError, quote } from "./errors.js";
import { type HeldComponent, type HeldId, Uuid, isNamespace, parseUuidText } from "./id.js";
import { isIntText, parseIntText } from "./int.js";
import { loneSurrogateAt, utf8Length } from "./utf8.js";

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** Prefix of a byte-string ID in text form. */
export const BYTES_PREFIX = "~";

function base64Value(c: number): number {
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 97 && c <= 122) return c - 71;
  if (c >= 48 && c <= 57) return c + 4;
  if (c === 45) return 62;
  if (c === 95) return 63;
  return -1;
}

/** Base64url without padding. */
export function base64urlEncode(bytes: Uint8Array): string {
  let s = "";
  let i = 0;
  for (; i + 3 <= bytes.length; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    s += BASE64URL[v >> 18]! + BASE64URL[(v >> 12) & 63]! + BASE64URL[(v >> 6) & 63]! + BASE64URL[v & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const v = bytes[i]!;
    s += BASE64URL[v >> 2]! + BASE64URL[(v & 3) << 4]!;
  } else if (rest === 2) {
    const v = (bytes[i]! << 8) | bytes[i + 1]!;
    s += BASE64URL[v >> 10]! + BASE64URL[(v >> 4) & 63]! + BASE64URL[(v & 15) << 2]!;
  }
  return s;
}

/**
 * Decodes base64url without padding: `undefined` for stray characters or an impossible
 * length; `canonical: false` (with the bytes it spells) when the last digit has unused low
 * bits set, so that each byte string has one text form.
 */
function base64urlDecode(text: string): { bytes: Uint8Array; canonical: boolean } | undefined {
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let p = 0;
  let canonical = true;
  for (let i = 0; i < text.length; i += 4) {
    const n = Math.min(4, text.length - i);
    let acc = 0;
    for (let j = 0; j < n; j++) {
      const d = base64Value(text.charCodeAt(i + j));
      if (d < 0) return undefined;
      acc = acc * 64 + d;
    }
    const bits = n * 6;
    const bytes = Math.floor(bits / 8);
    const spare = bits - bytes * 8;
    const spareMask = (1 << spare) - 1;
    if ((acc & spareMask) !== 0) canonical = false;
    acc = Math.floor(acc / (1 << spare));
    for (let k = bytes - 1; k >= 0; k--) out[p++] = Math.floor(acc / 2 ** (8 * k)) & 0xff;
  }
  return { bytes: out, canonical };
}

/** Index of the first `code` in `text[from..end)`, or -1 (indexOf would search past `end`). */
function indexIn(text: string, code: number, from: number, end: number): number {
  for (let i = from; i < end; i++) if (text.charCodeAt(i) === code) return i;
  return -1;
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/**
 * Parses the text form into components. `"/"` is the empty path. Throws a
 * {@link KeyPathError} whose position is a UTF-8 byte offset in `text`.
 */
export function parseComponents(text: string): HeldComponent[] {
  const at = (index: number) => utf8Length(text, index);
  if (typeof text !== "string" || text.charCodeAt(0) !== 47 /* / */) {
    throw new KeyPathError("missing-slash", 0, "expected '/' at the start of a key path");
  }
  const lone = loneSurrogateAt(text);
  if (lone >= 0) {
    throw new KeyPathError(
      "lone-surrogate",
      at(lone),
      `expected Unicode text, found a lone surrogate U+${text.charCodeAt(lone).toString(16).toUpperCase()}`,
    );
  }
  const components: HeldComponent[] = [];
  if (text.length === 1) return components;
  // Components split at '/' outside "%/" and "%%" (two-character escapes).
  let start = 1;
  for (let i = 1; ; ) {
    const c = i < text.length ? text.charCodeAt(i) : 47;
    if (c === 37 /* % */) {
      i += 2;
      continue;
    }
    if (c !== 47 && i < text.length) {
      i++;
      continue;
    }
    const end = Math.min(i, text.length);
    const last = i >= text.length;
    const dash = indexIn(text, 45 /* - */, start, end);
    const hasId = dash >= 0;
    const namespace = text.slice(start, hasId ? dash : end);
    if (!isNamespace(namespace)) {
      throw new KeyPathError(
        "namespace",
        at(start),
        `expected a namespace of ASCII letters or '_', found ${quote(namespace)}`,
      );
    }
    if (hasId) {
      components.push({ namespace, id: parseId(text, dash + 1, end) });
    } else if (!last) {
      throw new KeyPathError(
        "id-required",
        at(start),
        `expected an ID after namespace ${quote(namespace)}: only the last component may lack one`,
      );
    } else {
      components.push({ namespace, id: undefined });
    }
    if (last) return components;
    i++;
    start = i;
  }
}

/** Parses the ID whose raw text is `text.slice(start, end)`. */
function parseId(text: string, start: number, end: number): HeldId {
  const raw = text.slice(start, end);
  if (isIntText(raw)) {
    const v = parseIntText(raw);
    if (v === undefined) {
      throw new KeyPathError(
        "int-range",
        utf8Length(text, start),
        `integer ID ${raw} is out of range -(2^64-1) ..= 2^64-1`,
      );
    }
    return v;
  }
  const uuid = parseUuidText(raw);
  if (uuid !== undefined) return new Uuid(uuid);
  if (raw.charCodeAt(0) === 126 /* ~ */) {
    const b64 = raw.slice(1);
    const decoded = base64urlDecode(b64);
    const pos = utf8Length(text, start) + 1;
    if (decoded === undefined) {
      throw new KeyPathError(
        "base64",
        pos,
        `expected base64url without padding after '~', found ${quote(b64)}`,
      );
    }
    if (!decoded.canonical) {
      throw new KeyPathError(
        "base64-not-canonical",
        pos,
        `expected base64url whose last digit has its unused low bits zero, found ${quote(b64)} (the same bytes are written ${quote(base64urlEncode(decoded.bytes))})`,
      );
    }
    return decoded.bytes;
  }
  return unescapeString(text, start, end);
}

function unescapeString(text: string, start: number, end: number): string {
  let pct = indexIn(text, 37 /* % */, start, end);
  if (pct < 0) return text.slice(start, end);
  let out = "";
  let from = start;
  while (pct >= 0) {
    out += text.slice(from, pct);
    const a = pct + 1 < end ? text.charCodeAt(pct + 1) : -1;
    if (a === 47 /* / */ || a === 37 /* % */) {
      out += a === 47 ? "/" : "%";
      from = pct + 2;
    } else {
      const b = pct + 2 < end ? text.charCodeAt(pct + 2) : -1;
      const v = isHexDigit(a) && isHexDigit(b) ? parseInt(text.slice(pct + 1, pct + 3), 16) : -1;
      if (v < 0 || v > 0x7f) {
        // "%" and at most two characters after it.
        const shown = Array.from(text.slice(pct + 1, Math.min(end, pct + 5))).slice(0, 2).join("");
        throw new KeyPathError(
          "percent",
          utf8Length(text, pct),
          `expected '%/', '%%' or '%' and two hex digits 00-7F, found ${quote("%" + shown)}`,
        );
      }
      out += String.fromCharCode(v);
      from = pct + 3;
    }
    pct = indexIn(text, 37 /* % */, from, end);
  }
  return out + text.slice(from, end);
}

/**
 * A string ID in canonical text: `/` as `%/`, `%` as `%%`, U+0000-U+001F and U+007F as `%HH`,
 * and the first character as `%HH` when the text would otherwise read as an integer, a UUID
 * or bytes.
 */
function printString(s: string): string {
  const ambiguous =
    isIntText(s) || parseUuidText(s) !== undefined || s.charCodeAt(0) === 126; /* ~ */
  let plain = !ambiguous;
  if (plain) {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c === 0x7f || c === 37 || c === 47) {
        plain = false;
        break;
      }
    }
  }
  if (plain) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 47) out += "%/";
    else if (c === 37) out += "%%";
    else if (c < 0x20 || c === 0x7f || (i === 0 && ambiguous)) {
      out += "%" + c.toString(16).toUpperCase().padStart(2, "0");
    } else out += s[i];
  }
  return out;
}

/** An ID in canonical text, as it appears after `namespace-` in a path. */
export function printId(id: HeldId): string {
  if (typeof id === "number" || typeof id === "bigint") return String(id);
  if (typeof id === "string") return printString(id);
  if (id instanceof Uuid) return id.toString();
  return BYTES_PREFIX + base64urlEncode(id);
}

/** The canonical text of a path; `parse(print(p))` is `p`. */
export function printComponents(components: readonly HeldComponent[]): string {
  if (components.length === 0) return "/";
  let s = "";
  for (const c of components) {
    s += "/" + c.namespace;
    if (c.id !== undefined) s += "-" + printId(c.id);
  }
  return s;
}
