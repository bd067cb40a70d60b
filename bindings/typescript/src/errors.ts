/**
 * The one error type of this package: what was expected, what was found, and where.
 */

/** The problems a {@link KeyPathError} reports. */
export type KeyPathErrorKind =
  // Text form (KeyPath.parse); position = UTF-8 byte offset in the text.
  | "missing-slash"
  | "namespace"
  | "id-required"
  | "int-range"
  | "base64"
  | "base64-not-canonical"
  | "percent"
  | "lone-surrogate"
  // Binary form (KeyPath.decode, KeyPath.fromGroup); position = byte offset in the input.
  | "empty"
  | "metadata"
  | "separator"
  | "segment-type"
  | "int"
  | "escape"
  | "utf8"
  | "bytes-marker"
  | "uuid-length"
  | "not-a-group-key"
  // Not a Uint8Array where bytes are expected (from JavaScript); position 0.
  | "not-bytes"
  // Building in code (push, pushNamespace, ranges, Uuid); no position.
  | "invalid-namespace"
  | "invalid-id"
  | "invalid-uuid"
  | "no-group-key"
  | "invalid-bound"
  | "not-a-key-condition";

/**
 * Why text, bytes or a value are not a key path (or part of one).
 *
 * `position` is the byte offset where the problem starts: in the UTF-8 bytes of the text for
 * {@link KeyPath.parse}, in the input for {@link KeyPath.decode}; `undefined` for values given
 * in code. `problem` says what was expected and what was found; `message` is
 * `at byte ${position}: ${problem}` when there is a position, as the Rust crate says it.
 *
 * ```ts
 * try {
 *   KeyPath.parse("/user-1/post-%zz");
 * } catch (e) {
 *   if (e instanceof KeyPathError) {
 *     e.position; // 13
 *     e.message; // 'at byte 13: expected \'%/\', \'%%\' or \'%\' and two hex digits 00-7F, found "%zz"'
 *   }
 * }
 * ```
 */
export class KeyPathError extends Error {
  override readonly name = "KeyPathError";
  /** What kind of problem it is. */
  readonly kind: KeyPathErrorKind;
  /** Byte offset where the problem starts, or `undefined` for values given in code. */
  readonly position: number | undefined;
  /** The problem, without the position. */
  readonly problem: string;

  constructor(kind: KeyPathErrorKind, position: number | undefined, problem: string) {
    super(position === undefined ? problem : `at byte ${position}: ${problem}`);
    this.kind = kind;
    this.position = position;
    this.problem = problem;
  }
}

/**
 * A string quoted for a message as the Rust crate quotes it (Rust's `{:?}`): `"` and `\\`
 * escaped, `\0 \t \n \r`, other control characters as `\u{hex}`, the rest as is.
 */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (c === 0) out += "\\0";
    else if (c === 9) out += "\\t";
    else if (c === 10) out += "\\n";
    else if (c === 13) out += "\\r";
    else if (c < 0x20 || (c >= 0x7f && c < 0xa0) || (c >= 0xd800 && c <= 0xdfff)) {
      out += `\\u{${c.toString(16)}}`;
    } else out += ch;
  }
  return out + '"';
}

/** `0xAB`: a byte for a message, as the Rust crate prints it. */
export function hexByte(b: number): string {
  return "0x" + b.toString(16).toUpperCase().padStart(2, "0");
}
