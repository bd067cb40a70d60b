/**
 * `sortpath/dynamodb-table`: a client for the DynamoDB table layout of sortpath-store
 * (docs/DYNAMODB_LAYOUT.md in the sortpath repository), over the AWS SDK v3
 * (`@aws-sdk/client-dynamodb`, a peer dependency this module alone needs).
 *
 * It reads what the Rust store writes (items in either value form, lists and exact index
 * queries with the Rust store's cursors) and writes items as data, as `sortpath db put` does,
 * keeping `"kind": "field"` indexes exact. See {@link DynamoDbTable}.
 *
 * ```ts
 * import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
 * import { DynamoDbTable } from "sortpath/dynamodb-table";
 *
 * const table = new DynamoDbTable(new DynamoDBClient({}), "sortpath");
 * const version = await table.put("/board-1/ticket-7", { board: 1, title: "Fix", updated: 20 });
 * const item = await table.get("/board-1/ticket-7"); // { key, version, type: "ticket", value, payload }
 * const page = await table.list("/board-1", { limit: 10 }); // { items, cursor }
 * const newest = await table.queryIndex("by_updated", "/board-1", { reverse: true, limit: 2 });
 * ```
 */

import {
  type AttributeValue,
  BatchGetItemCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  type TransactWriteItem,
  TransactWriteItemsCommand,
} from "@aws-sdk/client-dynamodb";

import { quote } from "./errors.js";
import { KeyPath, compareBytes } from "./key-path.js";
import {
  type DecodeOptions,
  type Tv,
  type Value,
  fromTv,
  readTvAll,
  toTv,
  tvBytes,
} from "./msgpack.js";
import {
  type Attr,
  type ByteBound,
  CONFIG_KEY,
  type Header,
  type RecordKey,
  type StoreConfig,
  absentConfig,
  concat,
  configJson,
  cursorText,
  describeKey,
  encodeHeader,
  entryItem,
  entryKey,
  escapeRest,
  fieldIndexEntries,
  fingerprint,
  hex,
  indexGroupKey,
  isIndexName,
  isPlacedRoot,
  itemKey,
  keyError,
  nativeToTv,
  parseConfig,
  parseCursor,
  parseHeader,
  placeOf,
  plan as planQuery,
  rootSortKey,
  sameBytes,
  splitEntry,
  toNative,
  toPath,
  type Plan,
  withIndexPaths,
} from "./table-format.js";
import { TableError } from "./table-error.js";
import { utf8Encode } from "./utf8.js";

export { TableError, type TableErrorKind } from "./table-error.js";
export type { StoreConfig, IndexDecl, RootPlace } from "./table-format.js";
export {
  Float,
  encodeValue,
  decodeValue,
  type Value,
  type ValueObject,
  type DecodeOptions,
} from "./msgpack.js";

/** An item read from the table. */
export interface TableItem {
  /** The item's key path. */
  readonly key: KeyPath;
  /** The record's version (`ver`), a u64. */
  readonly version: bigint;
  /** The item type (from the envelope header). */
  readonly type: string;
  /** The payload, decoded (see the client's `decode` option). */
  readonly value: Value;
  /** The payload's MessagePack bytes as stored. */
  readonly payload: Uint8Array;
}

/** A page of a list or an index query. */
export interface Page {
  /** The items, in the query's order. */
  readonly items: TableItem[];
  /** The cursor to resume after this page (the Rust store's cursor text), or `undefined` at the end. */
  readonly cursor: string | undefined;
}

/** Options of {@link DynamoDbTable.list} and {@link DynamoDbTable.queryIndex}. */
export interface ListOptions {
  /** Paths after this one (within the prefix's group). */
  readonly gt?: KeyPath | string | undefined;
  /** Paths from this one on. */
  readonly gte?: KeyPath | string | undefined;
  /** Paths before this one. */
  readonly lt?: KeyPath | string | undefined;
  /** Paths up to this one. */
  readonly lte?: KeyPath | string | undefined;
  /** Newest last: `true` lists in reverse key order. */
  readonly reverse?: boolean | undefined;
  /** At most this many items (a page has a cursor when more follow). */
  readonly limit?: number | undefined;
  /** Resume after the page that returned this cursor (same query only). */
  readonly cursor?: string | undefined;
  /** Strongly consistent reads (the default) or not. */
  readonly consistentRead?: boolean | undefined;
  /**
   * Lists only: the group's root item and what sorts after it, wherever the configuration
   * places it (the Rust store's `Query::from_root`; with the root placed first, the whole
   * group; with the root placed last, the root alone).
   */
  readonly fromRoot?: boolean | undefined;
  /**
   * Lists only: what sorts before the group's root item, and the root (`Query::to_root`);
   * with the root placed last and `reverse`, the root and then the newest children, in one
   * `Query`.
   */
  readonly toRoot?: boolean | undefined;
}

/** Options of {@link DynamoDbTable.put}. */
export interface PutOptions {
  /** Write only if no item is at the key (else `condition_failed`). */
  readonly ifAbsent?: boolean | undefined;
  /** Write only if the item is at this version (else `condition_failed`). */
  readonly ifVersion?: bigint | number | undefined;
  /** A new item gets this version (1 to 2^52-1) instead of a random one (the Rust store's `PutMode::Restore`). */
  readonly restore?: bigint | number | undefined;
}

/** Options of a {@link DynamoDbTable}. */
export interface TableOptions {
  /** How payloads decode into values (default: maps as plain objects, floats as numbers). */
  readonly decode?: DecodeOptions;
  /** Attempts of a write whose condition fails because of a concurrent write: an integer of 1 or more (default 1000, as the Rust store; else the constructor throws `invalid`). */
  readonly maxAttempts?: number;
}

type Attrs = Record<string, AttributeValue>;

// The two host functions used, declared here so that the package compiles without DOM or
// Node.js types (Node.js 20 and later have both as globals).
declare const setTimeout: (f: (...args: never[]) => void, ms: number) => unknown;
declare const crypto: { getRandomValues<T extends Uint32Array>(array: T): T };

/** A record as read: its key, version and value bytes (the envelope, rebuilt from the native form if need be). */
interface RawRecord {
  readonly pk: Uint8Array;
  readonly sk: Uint8Array;
  readonly version: bigint;
  readonly value: Uint8Array;
  /** The attributes as read. */
  readonly attrs: Attrs;
}

/** An index the table keeps as the GSI `kp_NAME` (section 5): its key attributes and projection. */
export interface KeptIndex {
  /** The index name (the GSI is `kp_` ++ name). */
  readonly name: string;
  /** The GSI's partition key attribute: enc(the index key path's group). */
  readonly pk: string;
  /** The GSI's sort key attribute: the sort key the exact entry would have. */
  readonly sk: string;
  /** A `KEYS_ONLY` GSI (else `ALL`). */
  readonly keysOnly: boolean;
}

const RESERVED_ATTRS = ["pk", "sk", "ver", "val", "type", "hdr", "item", "shape"];

const U64_MAX = (1n << 64n) - 1n;
const SCAN_BATCH = 1000;
const MAX_BATCH_GET = 100;
const MAX_ITEM_BYTES = 400 * 1024;

function b(bytes: Uint8Array): AttributeValue {
  return { B: bytes };
}

function n(v: bigint): AttributeValue {
  return { N: v.toString() };
}

function keyAttrs(k: RecordKey): Attrs {
  return { pk: b(k.pk), sk: b(k.sk) };
}

function keyId(k: { pk: Uint8Array; sk: Uint8Array }): string {
  return hex(k.pk) + "|" + hex(k.sk);
}

/** Reads a record's key, version and value; throws `foreign` naming it (section 10). */
function readRecord(attrs: Attrs, where?: string): RawRecord {
  const pk = attrs["pk"]?.B;
  const sk = attrs["sk"]?.B;
  if (!(pk instanceof Uint8Array))
    throw new TableError("foreign", `${where ?? "a record"}: no binary pk`);
  if (!(sk instanceof Uint8Array))
    throw new TableError("foreign", `${where ?? `a record of pk ${hex(pk)}`}: no binary sk`);
  const at = where ?? describeKey(pk, sk);
  const ver = attrs["ver"]?.N;
  if (typeof ver !== "string" || !/^[0-9]+$/.test(ver) || BigInt(ver) > U64_MAX) {
    throw new TableError(
      "foreign",
      `${at}: expected ver, an N holding a u64, found ${ver === undefined ? "none" : quote(String(ver))}`,
    );
  }
  return { pk, sk, version: BigInt(ver), value: readValue(attrs, at), attrs };
}

/** A record's value: `hdr` ++ the payload rebuilt from `item` and `shape`, else `val`, else empty. */
function readValue(attrs: Attrs, at: string): Uint8Array {
  let value: Uint8Array;
  const item = attrs["item"];
  if (item !== undefined) {
    const hdr = attrs["hdr"]?.B;
    const shape = attrs["shape"]?.B;
    if (!(hdr instanceof Uint8Array) || !(shape instanceof Uint8Array)) {
      throw new TableError("foreign", `${at}: an item attribute without binary hdr and shape`);
    }
    value = concat(hdr, tvBytes(nativeToTv(item as Attr, shape, at)));
  } else if (attrs["val"] !== undefined) {
    const val = attrs["val"].B;
    if (!(val instanceof Uint8Array)) throw new TableError("foreign", `${at}: val is not binary`);
    value = val;
  } else {
    value = new Uint8Array(0);
  }
  return value;
}

/** Whether no byte string lies within the bounds (the Rust backend's `Scan::is_empty_range`): then no request is sent. */
function isEmptyRange(start: ByteBound, end: ByteBound): boolean {
  if (end !== undefined && "excluded" in end && end.excluded.length === 0) return true;
  if (start === undefined || end === undefined) return false;
  const s = "included" in start ? start.included : start.excluded;
  const e = "included" in end ? end.included : end.excluded;
  const c = compareBytes(s, e);
  if ("included" in start && "included" in end) return c > 0;
  if ("included" in start || "included" in end) return c >= 0;
  return (
    c >= 0 ||
    (e.length === s.length + 1 &&
      compareBytes(e.subarray(0, s.length), s) === 0 &&
      e[s.length] === 0)
  );
}

/**
 * An item read from a GSI as an index entry (the Rust backend's `gsi_entry_record`): keys-only
 * (no `ver`: the `KEYS_ONLY` projection) or projected (type and payload from the item).
 */
function gsiEntry(
  attrs: Attrs,
  gsi: KeptIndex,
): { sk: Uint8Array; version: bigint; value: Uint8Array } {
  const sk = attrs[gsi.sk]!.B as Uint8Array;
  if (attrs["ver"] === undefined) return { sk, version: 0n, value: Uint8Array.of(0x01) };
  const r = readRecord(attrs);
  const header = parseHeader(r.value, `${describeKey(r.pk, r.sk)} (from the GSI kp_${gsi.name})`);
  const t = utf8Encode(header.type);
  return {
    sk,
    version: r.version,
    value: concat(Uint8Array.of(0x02, t.length), t, r.value.subarray(header.payloadStart)),
  };
}

/** The attributes of the table item of an envelope: natively when exact (section 4.1), else `val`. */
function itemAttrs(
  key: RecordKey,
  version: bigint,
  header: Uint8Array,
  type: string,
  payload: Uint8Array,
  gsi: Attrs,
): Attrs {
  const isMap =
    payload.length > 0 &&
    ((payload[0]! >= 0x80 && payload[0]! <= 0x8f) || payload[0] === 0xde || payload[0] === 0xdf);
  const native = isMap ? toNative(payload) : undefined;
  if (native !== undefined) {
    const attrs: Attrs = {
      pk: b(key.pk),
      sk: b(key.sk),
      ver: n(version),
      ...gsi,
      type: { S: type },
      hdr: b(header),
      item: native.item as AttributeValue,
      shape: b(native.shape),
    };
    if (itemSize(attrs) <= MAX_ITEM_BYTES) return attrs;
  }
  const attrs: Attrs = {
    pk: b(key.pk),
    sk: b(key.sk),
    ver: n(version),
    ...gsi,
    val: b(concat(header, payload)),
  };
  if (itemSize(attrs) > MAX_ITEM_BYTES) {
    throw new TableError(
      "invalid",
      `the item ${describeKey(key.pk, key.sk)} is over DynamoDB's 400 KB item limit`,
    );
  }
  return attrs;
}

/** An upper bound of DynamoDB's size of an item (names and values). */
function itemSize(attrs: Record<string, unknown>): number {
  let size = 0;
  for (const [name, v] of Object.entries(attrs)) size += utf8Encode(name).length + valueSize(v);
  return size;
}

function valueSize(v: unknown): number {
  const a = v as Record<string, unknown>;
  if (a["B"] instanceof Uint8Array) return a["B"].length;
  if (typeof a["S"] === "string") return utf8Encode(a["S"]).length;
  if (typeof a["N"] === "string") return a["N"].length + 1;
  if (a["BOOL"] !== undefined || a["NULL"] !== undefined) return 1;
  if (Array.isArray(a["L"]))
    return 3 + a["L"].reduce((s: number, x: unknown) => s + 1 + valueSize(x), 0);
  if (typeof a["M"] === "object" && a["M"] !== null)
    return 3 + itemSize(a["M"] as Record<string, unknown>) + Object.keys(a["M"]).length;
  return 0;
}

function isConditionFailure(e: unknown): boolean {
  const name = (e as { name?: string } | null)?.name;
  // A single write that met a transaction in progress on its item: read again and retry too.
  if (name === "ConditionalCheckFailedException" || name === "TransactionConflictException")
    return true;
  if (name === "TransactionCanceledException") {
    const reasons = (e as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    return reasons.some(
      (r) => r.Code === "ConditionalCheckFailed" || r.Code === "TransactionConflict",
    );
  }
  return false;
}

/**
 * Whether a write that failed its conditions had been applied by an earlier attempt whose
 * answer was lost (a connection cut after DynamoDB applied it, or an `InternalServerError`,
 * which may or may not have been applied): the SDK sent the request again (more than one
 * attempt), every conditional put failed against exactly the record it puts, every
 * conditional delete against no record, and there was at least one such put. Without this
 * the failure would read as another writer's and the write be planned again (an update
 * applied twice, an only-if-absent put refused after it wrote). Without a retry it is
 * another writer's, even if equal: two updates that compute the same record from the same
 * version (two increments) write identical records, and the loser must read again.
 */
function appliedBefore(members: readonly Member[], e: unknown): boolean {
  const attempts = (e as { $metadata?: { attempts?: number } } | null)?.$metadata?.attempts;
  if (attempts === undefined || attempts < 2) return false;
  const name = (e as { name?: string } | null)?.name;
  let reasons: { Code?: string | undefined; Item?: Attrs | undefined }[];
  if (name === "ConditionalCheckFailedException" && members.length === 1) {
    reasons = [{ Code: "ConditionalCheckFailed", Item: (e as { Item?: Attrs }).Item }];
  } else if (name === "TransactionCanceledException") {
    reasons = (e as { CancellationReasons?: { Code?: string; Item?: Attrs }[] })
      .CancellationReasons ?? [];
  } else {
    return false;
  }
  if (reasons.length !== members.length) return false;
  let puts = 0;
  for (const [i, m] of members.entries()) {
    const r = reasons[i]!;
    if (m.condition === undefined) continue;
    if (r.Code !== "ConditionalCheckFailed") return false;
    if (m.op === "Delete") {
      if (r.Item !== undefined) return false;
      continue;
    }
    if (r.Item === undefined || !sameRecord(m.item, r.Item)) return false;
    puts++;
  }
  return puts > 0;
}

/** Whether two items are the same record: version and value bytes. */
function sameRecord(a: Attrs, b: Attrs): boolean {
  try {
    const x = readRecord(a);
    const y = readRecord(b);
    return x.version === y.version && sameBytes(x.value, y.value);
  } catch {
    return false;
  }
}

function sdkError(op: string, e: unknown): TableError {
  if (e instanceof TableError) return e;
  const name = (e as { name?: string } | null)?.name ?? "Error";
  const message = e instanceof Error ? e.message : String(e);
  return new TableError("other", `${op}: ${name}: ${message}`, { cause: e });
}

/**
 * The refusal of a write to a table that holds items but no configuration record (the Rust
 * store's `ConfigError::Unrecorded`, with its message): what, where, and how to recover.
 */
function unrecordedError(table: string, path: KeyPath): TableError {
  return new TableError(
    "unrecorded",
    `${path}: table ${JSON.stringify(table)}: store configuration: the store holds items but no configuration record, so nothing was written: its record may have been lost to damage, and writing a new one would drop the indexes and settings it declared. If the record was lost, restore the table from a backup or an export (or take its items over as below, export them, and import them into a new store created with its indexes); if an earlier release wrote the table without a record, record a configuration for its items explicitly with DynamoDbTable.createConfigOverItems (\`sortpath db --dynamodb TABLE init --over-items\`)`,
  );
}

function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(attempt + 1, 5) * Math.random()));
}

function toVersion(v: bigint | number, what: string): bigint {
  const x = typeof v === "bigint" ? v : Number.isInteger(v) ? BigInt(v) : -1n;
  if (x < 0n || x > U64_MAX)
    throw new TableError(
      "invalid",
      `${what}: expected a version from 0 to 2^64-1, found ${String(v)}`,
    );
  return x;
}

function freshVersion(): bigint {
  const r = crypto.getRandomValues(new Uint32Array(2));
  const v = ((BigInt(r[0]! & 0xfffff) << 32n) | BigInt(r[1]!)) % ((1n << 52n) - 1n);
  return v + 1n;
}

/** A write of the batch (section 6.2), in order. */
type Member =
  | { op: "Put"; item: Attrs; condition?: { notExists: true } | { version: bigint } }
  | { op: "Delete"; key: RecordKey; condition?: { notExists: true } | { version: bigint } };

/**
 * A table of sortpath-store's layout, read and written through an AWS SDK v3
 * `DynamoDBClient`.
 *
 * What it does (docs/DYNAMODB_LAYOUT.md's sections in brackets):
 * - reads: {@link get}, {@link batchGet}, {@link list} and {@link queryIndex} (exact
 *   entries, keys-only or projected), items in either value form [4], placed root items
 *   [2.1], cursors that resume in the Rust store and back [7.3];
 * - writes of items as data, as `sortpath db put` writes them: {@link put}, {@link update},
 *   {@link delete}, keeping `"kind": "field"` indexes [2.4.1] exact, with the requests and
 *   conditions of the Rust store [6.2] and its retries on a concurrent write.
 *
 * With `group_versions`, writes read and put the group's counter, whose new value is the
 * item's version [2.3]. Indexes the table keeps as `kp_` GSIs [5] are read (headers restored
 * from the GSI key attributes, queries on the GSI, eventually consistent) and written (the
 * GSI key attributes instead of entries).
 *
 * What it refuses, writing nothing (`unsupported`): items of a type that a `"program"` index
 * indexes, or a type with an index being built; records it does not understand are `foreign`
 * errors naming their key, never skipped.
 *
 * ```ts
 * const table = new DynamoDbTable(client, "sortpath");
 * await table.put("/board-1/ticket-7", { board: 1, title: "Fix", updated: 20 }, { ifAbsent: true });
 * await table.update("/board-1/ticket-7", (v) => ({ ...(v as object), title: "Fixed" }));
 * await table.delete("/board-1/ticket-7"); // true
 * ```
 */
/** What a caller gave where an object or an array was expected, for messages. */
function describeArg(x: unknown): string {
  if (x === null) return "null";
  if (typeof x === "string") return `the string ${quote(x)}`;
  if (typeof x === "bigint") return `the bigint ${x}n`;
  return Array.isArray(x) ? "an array" : typeof x;
}

/** Options are an object (or left out): JavaScript callers can pass anything. */
function checkOptions(options: unknown): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TableError("invalid", `expected options as an object, found ${describeArg(options)}`);
  }
}

export class DynamoDbTable {
  /** The SDK client every request goes through. */
  readonly client: DynamoDBClient;
  /** The table's name. */
  readonly tableName: string;
  readonly #decode: DecodeOptions;
  readonly #maxAttempts: number;
  /** The configuration, once read and found (its places never change). */
  #config: { config: StoreConfig; version: bigint } | undefined;
  /** Whether the store keeps group counters, once known. */
  #groupVersions: boolean | undefined;
  /** Indexes checked not to be building. */
  readonly #ready = new Set<string>();
  /** The indexes the table keeps as GSIs, once the table was described. */
  #kept: KeptIndex[] | undefined;

  /**
   * A client of table `tableName` through `client`; no request is sent until the first call.
   *
   * ```ts
   * const local = new DynamoDBClient({ endpoint: "http://127.0.0.1:8000", region: "us-east-1" });
   * const table = new DynamoDbTable(local, "sortpath", { decode: { maps: "map" } });
   * ```
   */
  constructor(client: DynamoDBClient, tableName: string, options: TableOptions = {}) {
    this.client = client;
    this.tableName = tableName;
    this.#decode = options.decode ?? {};
    const attempts = options.maxAttempts ?? 1000;
    if (!Number.isSafeInteger(attempts) || attempts < 1) {
      // 0 or NaN gave no attempt or endless ones under contention.
      throw new TableError(
        "invalid",
        `maxAttempts: expected an integer of 1 or more, found ${String(attempts)}`,
      );
    }
    this.#maxAttempts = attempts;
  }

  // ---------------------------------------------------------------------------------------------
  // The table and its configuration

  /**
   * Describes the table (one `DescribeTable`) and keeps what it learns: refuses a table whose
   * keys are not `pk`/`sk` of type `B`, and returns the indexes it keeps as `kp_` GSIs
   * (section 5). Calls that need it (an item whose header has an index key path kept by a
   * GSI, a write with index entries, an index query) describe the table once by themselves.
   *
   * ```ts
   * const kept = await table.loadIndexes(); // [{ name: "by_updated", pk: "gp1", sk: "gs1", keysOnly: false }]
   * ```
   */
  async loadIndexes(): Promise<readonly KeptIndex[]> {
    let out;
    try {
      out = await this.client.send(new DescribeTableCommand({ TableName: this.tableName }));
    } catch (e) {
      throw sdkError("DescribeTable", e);
    }
    const d = out.Table ?? {};
    const binary = (name: string): boolean =>
      (d.AttributeDefinitions ?? []).some(
        (a) => a.AttributeName === name && a.AttributeType === "B",
      );
    const schema = (d.KeySchema ?? []).map((k) => `${k.AttributeName}:${k.KeyType}`).join(",");
    if (schema !== "pk:HASH,sk:RANGE" || !binary("pk") || !binary("sk")) {
      const typeOf = (name: string | undefined): string => {
        const t = (d.AttributeDefinitions ?? []).find((a) => a.AttributeName === name)?.AttributeType;
        return t === "B" ? "binary" : t === "S" ? "string" : t === "N" ? "number" : String(t);
      };
      const found = (d.KeySchema ?? [])
        .map((k) => `${k.AttributeName} (${typeOf(k.AttributeName)}, ${k.KeyType})`)
        .join(" and ");
      throw new TableError(
        "unsupported",
        `DynamoDB table ${this.tableName}: expected the key schema pk (binary, HASH) and sk (binary, RANGE), found ${found || "none"}`,
      );
    }
    const kept: KeptIndex[] = [];
    for (const g of d.GlobalSecondaryIndexes ?? []) {
      const name = g.IndexName?.startsWith("kp_") ? g.IndexName.slice(3) : undefined;
      if (name === undefined || !isIndexName(name)) continue;
      const keys = (g.KeySchema ?? []).map(
        (k) => [k.AttributeName ?? "", k.KeyType ?? ""] as const,
      );
      const taken = (a: string): boolean =>
        RESERVED_ATTRS.includes(a) || kept.some((k) => k.pk === a || k.sk === a);
      if (
        keys.length !== 2 ||
        keys[0]![1] !== "HASH" ||
        keys[1]![1] !== "RANGE" ||
        keys[0]![0] === keys[1]![0] ||
        !binary(keys[0]![0]) ||
        !binary(keys[1]![0]) ||
        taken(keys[0]![0]) ||
        taken(keys[1]![0])
      ) {
        throw new TableError(
          "other",
          `GSI ${g.IndexName} of table ${this.tableName} has the key schema ${JSON.stringify(keys)}, expected two binary attributes of its own (HASH, then RANGE)`,
        );
      }
      const projection = g.Projection?.ProjectionType;
      if (projection !== "ALL" && projection !== "KEYS_ONLY") {
        throw new TableError(
          "other",
          `GSI ${g.IndexName} of table ${this.tableName} projects ${String(projection)}, expected ALL or KEYS_ONLY`,
        );
      }
      kept.push({ name, pk: keys[0]![0], sk: keys[1]![0], keysOnly: projection === "KEYS_ONLY" });
    }
    this.#kept = kept;
    return kept;
  }

  async #keptIndexes(): Promise<readonly KeptIndex[]> {
    return this.#kept ?? (await this.loadIndexes());
  }

  /**
   * The record with the index key paths its header elides (zero-length: kept by a GSI) put
   * back from the GSI key attributes, as the Rust reader does for every record.
   */
  async #restore(r: RawRecord): Promise<RawRecord> {
    if (r.value[0] !== 0x01 || r.pk[0] === 0x00) return r;
    let header: Header;
    try {
      header = parseHeader(r.value, "");
    } catch {
      return r; // not an envelope: reported where an item is wanted
    }
    if (header.indexes.every((ix) => ix.path.length > 0)) return r;
    const where = describeKey(r.pk, r.sk);
    const kept = await this.#keptIndexes();
    const paths: Uint8Array[] = [];
    for (const ix of header.indexes) {
      if (ix.path.length > 0) {
        paths.push(ix.path);
        continue;
      }
      const k = kept.find((x) => x.name === ix.name);
      if (k === undefined) {
        throw new TableError(
          "foreign",
          `${where}: index ${ix.name} has no key path in the item's header and the table keeps no GSI for it`,
        );
      }
      const group = r.attrs[k.pk]?.B;
      const sort = r.attrs[k.sk]?.B;
      if (!(group instanceof Uint8Array) || !(sort instanceof Uint8Array)) {
        throw new TableError(
          "foreign",
          `${where}: index ${ix.name} has no key path in the item's header and the item no GSI key attributes ${k.pk} and ${k.sk}`,
        );
      }
      let path: Uint8Array;
      try {
        path = KeyPath.decode(group).join(splitEntry(sort, where).rest).encode();
      } catch (e) {
        throw keyError(e, "foreign", `${where}: index ${ix.name}'s key path from the GSI keys`);
      }
      if (path.length > 0xffff)
        throw new TableError(
          "foreign",
          `${where}: index ${ix.name}'s key path is over 65535 bytes`,
        );
      paths.push(path);
    }
    return { ...r, value: withIndexPaths(r.value, header, paths) };
  }

  /**
   * The configuration record as last read by this client, or `undefined` before (or without
   * a record).
   *
   * ```ts
   * table.config?.indexes.map((d) => d.name); // ["by_updated"]
   * ```
   */
  get config(): StoreConfig | undefined {
    return this.#config?.config;
  }

  /**
   * Reads the configuration record (one consistent `GetItem`) and keeps it for the client's
   * later calls; the configuration of a table without the record (no indexes) if absent.
   * Calls that need it read it once by themselves.
   *
   * ```ts
   * const config = await table.loadConfig();
   * config.indexes; // [{ name: "by_updated", type: "ticket", kind: "field", field: "updated", group: "/board-{board}" }]
   * ```
   */
  async loadConfig(): Promise<StoreConfig> {
    let out;
    try {
      out = await this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: keyAttrs(CONFIG_KEY),
          ConsistentRead: true,
        }),
      );
    } catch (e) {
      throw sdkError("GetItem", e);
    }
    if (out.Item === undefined) {
      this.#groupVersions ??= false;
      return absentConfig();
    }
    const record = readRecord(out.Item as Attrs, "the store configuration (pk 00 03)");
    const config = parseConfig(record.value);
    this.#config = { config, version: record.version };
    this.#groupVersions = config.groupVersions;
    return config;
  }

  async #places(): Promise<StoreConfig> {
    return this.#config?.config ?? (await this.loadConfig());
  }

  /** The item key of `path`, reading the configuration for a root item's place if need be. */
  async #itemKey(path: KeyPath): Promise<RecordKey> {
    if (path.length === 1) return itemKey(path, placeOf(await this.#places(), path));
    return itemKey(path);
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  /**
   * The item at `key`, or `undefined`: one strongly consistent `BatchGetItem` (and, for a root
   * item, the configuration once).
   *
   * ```ts
   * const item = await table.get("/board-1/ticket-7");
   * item?.value; // { board: 1, title: "Fix", updated: 20 }
   * ```
   */
  async get(key: KeyPath | string): Promise<TableItem | undefined> {
    return (await this.batchGet([key]))[0];
  }

  /**
   * The items at `keys`, one entry (or `undefined`) per key in the order asked:
   * `BatchGetItem`s of up to 100 distinct keys, unprocessed keys retried.
   *
   * ```ts
   * const [a, b] = await table.batchGet(["/board-1/ticket-7", "/board-1/ticket-9"]);
   * a?.version; // 1234n; b is undefined if there is no ticket 9
   * ```
   */
  async batchGet(keys: readonly (KeyPath | string)[]): Promise<(TableItem | undefined)[]> {
    if (!Array.isArray(keys)) {
      throw new TableError(
        "invalid",
        `batchGet: expected an array of keys (KeyPaths or their text), found ${describeArg(keys)}`,
      );
    }
    const paths = keys.map((k) => toPath(k));
    const rkeys: RecordKey[] = [];
    for (const p of paths) rkeys.push(await this.#itemKey(p));
    const found = await this.#batchGetRecords(rkeys, true);
    return paths.map((p, i) => {
      const r = found.get(keyId(rkeys[i]!));
      return r === undefined ? undefined : this.#item(p, r);
    });
  }

  /** The item of a record at `path`; throws `foreign` naming it. */
  #item(path: KeyPath, r: RawRecord): TableItem {
    const where = path.toString();
    const header = parseHeader(r.value, where);
    return this.#itemOf(path, r.version, header, r.value.subarray(header.payloadStart));
  }

  #itemOf(
    path: KeyPath,
    version: bigint,
    header: Pick<Header, "type" | "indexes">,
    payload: Uint8Array,
  ): TableItem {
    for (const ix of header.indexes) {
      if (ix.path.length === 0) {
        throw new TableError(
          "foreign",
          `${path}: its header has no key path for index ${ix.name} (an index kept by a GSI) and none was restored`,
        );
      }
    }
    let tv: Tv;
    try {
      tv = readTvAll(payload);
    } catch (e) {
      throw keyError(e, "foreign", `${path}: the payload`);
    }
    return {
      key: path,
      version,
      type: header.type,
      value: fromTv(tv, this.#decode),
      payload: payload.slice(),
    };
  }

  async #batchGetRecords(
    keys: readonly RecordKey[],
    consistent: boolean,
  ): Promise<Map<string, RawRecord>> {
    const unique = new Map<string, RecordKey>();
    for (const k of keys) {
      if (k.pk.length > 2048 || k.sk.length > 1024) continue; // never stored: absent
      unique.set(keyId(k), k);
    }
    const found = new Map<string, RawRecord>();
    const all = [...unique.values()];
    for (let i = 0; i < all.length; i += MAX_BATCH_GET) {
      let pending: Attrs[] = all.slice(i, i + MAX_BATCH_GET).map(keyAttrs);
      for (let attempt = 0; pending.length > 0; attempt++) {
        let out;
        try {
          out = await this.client.send(
            new BatchGetItemCommand({
              RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: consistent } },
            }),
          );
        } catch (e) {
          throw sdkError("BatchGetItem", e);
        }
        for (const item of out.Responses?.[this.tableName] ?? []) {
          const r = await this.#restore(readRecord(item as Attrs));
          found.set(keyId(r), r);
        }
        pending = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Attrs[];
        if (pending.length > 0) {
          if (attempt >= 10)
            throw new TableError(
              "other",
              `BatchGetItem: keys still unprocessed after ${attempt + 1} attempts`,
            );
          await new Promise((r) => setTimeout(r, Math.min(2 ** attempt * 10, 1000)));
        }
      }
    }
    return found;
  }

  /**
   * A page of the items under `prefix` (its first component is the group; a deeper prefix
   * narrows the range), as `sortpath db list PREFIX` with the same options: the Rust store's
   * ranges, scans and cursors (section 7.2).
   *
   * ```ts
   * let page = await table.list("/board-1/ticket", { limit: 10 });
   * while (page.cursor !== undefined) page = await table.list("/board-1/ticket", { limit: 10, cursor: page.cursor });
   * ```
   */
  async list(prefix: KeyPath | string, options: ListOptions = {}): Promise<Page> {
    checkOptions(options);
    const path = toPath(prefix, "prefix");
    let root: { sort: Uint8Array; from: boolean; to: boolean } | undefined;
    if (options.fromRoot === true || options.toRoot === true) {
      const { group } = planQuery(path, {}, false);
      root = {
        sort: rootSortKey(placeOf(await this.#places(), group)),
        from: options.fromRoot === true,
        to: options.toRoot === true,
      };
    }
    const { group, plan } = planQuery(path, options, false, root);
    const groupBytes = group.encode();
    const reverse = options.reverse === true;
    const fp = fingerprint(undefined, reverse, groupBytes, plan.start, plan.end);
    const consistent = options.consistentRead !== false;
    return this.#paged(options, plan, fp, async (scan, needed) => {
      const records = await this.#scan(groupBytes, scan, reverse, consistent);
      const steps: Step[] = [];
      let items = 0;
      for (const rec of records) {
        const sk = rec["sk"]!.B!;
        if (items === needed) {
          steps.push({ sk, item: undefined, more: true });
          break;
        }
        const item = await this.#listStep(group, plan, rec);
        if (item !== undefined) items++;
        steps.push({ sk, item });
      }
      return { steps, records: records.length };
    });
  }

  async #listStep(group: KeyPath, plan: Plan, rec: Attrs): Promise<TableItem | undefined> {
    const r = await this.#restore(readRecord(rec));
    let path: KeyPath;
    try {
      path = KeyPath.fromGroup(r.pk, r.sk);
    } catch (e) {
      if (!isPlacedRoot(r.sk)) {
        throw new TableError(
          "foreign",
          `the record ${describeKey(r.pk, r.sk)}: its key is not a key path: ${(e as Error).message}`,
        );
      }
      return this.#item(group, r);
    }
    const rest = KeyPath.decode(r.sk);
    if (!plan.matches(rest)) return undefined;
    return this.#item(path, r);
  }

  /**
   * A page of index `name`'s exact entries under `prefix` (the index group, and a narrower
   * range of index key paths), as `sortpath db index NAME PREFIX`: keys-only entries checked
   * against their item's header with one `BatchGetItem` a scan, projected entries as they are.
   * An item that moved to another key of the index between the two reads is returned at its
   * new key when the query has read that part of the range, and each item at most once per
   * page (docs/DYNAMODB_LAYOUT.md section 7.2); a cursor is a position (section 7.3).
   * The client's first query of an index reads the configuration to check that the index is
   * not being built.
   *
   * ```ts
   * const newest = await table.queryIndex("by_updated", "/board-1", { reverse: true, limit: 2 });
   * ```
   */
  async queryIndex(
    name: string,
    prefix: KeyPath | string,
    options: ListOptions = {},
  ): Promise<Page> {
    checkOptions(options);
    if (typeof name !== "string" || !isIndexName(name)) {
      throw new TableError(
        "invalid",
        `invalid index name ${quote(String(name))}: expected 1 to 64 ASCII letters, digits or '_'`,
      );
    }
    if (options.fromRoot === true || options.toRoot === true) {
      throw new TableError(
        "invalid",
        `index ${name}'s entries have no root item to bound them by (fromRoot and toRoot are for item lists)`,
      );
    }
    const { group, plan } = planQuery(toPath(prefix, "prefix"), options, true);
    if (!this.#ready.has(name)) {
      const config = await this.loadConfig();
      if (!config.indexes.some((d) => d.name === name)) {
        const names = [...new Set(config.indexes.map((d) => d.name))];
        throw new TableError(
          "invalid",
          `unknown index ${quote(name)}: expected an index the table's configuration declares, ${names.length === 0 ? "and it declares none" : `one of ${names.map(quote).join(", ")}`}`,
        );
      }
      const building = config.indexes.find((d) => d.name === name && d.building === true);
      if (building !== undefined) {
        throw new TableError(
          "unsupported",
          `index ${name} of type ${building.type} is being built: it cannot answer queries until then`,
        );
      }
      this.#ready.add(name);
    }
    const groupBytes = group.encode();
    const reverse = options.reverse === true;
    const fp = fingerprint(name, reverse, groupBytes, plan.start, plan.end);
    const gsi = (await this.#keptIndexes()).find((k) => k.name === name);
    if (gsi !== undefined && options.consistentRead === true) {
      throw new TableError(
        "invalid",
        `index ${name} is kept by the table (the DynamoDB GSI kp_${name}), which reads only eventually consistent: expected consistentRead false or none, found true`,
      );
    }
    const consistent = gsi === undefined && options.consistentRead !== false;
    const pk = gsi === undefined ? indexGroupKey(name, groupBytes) : groupBytes;
    // What the call has read so far, shared by its scans (store/list.rs `CallMoves`): where
    // it started, and the items its page holds.
    const call: { from: ByteBound | null; returned: Set<string> } = {
      from: null,
      returned: new Set(),
    };
    return this.#paged(options, plan, fp, async (scan, needed) => {
      const records = await this.#scan(pk, scan, reverse, consistent, gsi);
      const entries = records.map((rec) =>
        gsi === undefined ? readRecord(rec) : gsiEntry(rec, gsi),
      );
      if (call.from === null) call.from = reverse ? scan.end : scan.start;
      const reading: Reading = {
        reverse,
        from: call.from,
        start: scan.start,
        end: scan.end,
        last: entries.length === 0 ? undefined : entries[entries.length - 1]!.sk,
        exhausted: records.length < scan.limit,
        returned: call.returned,
      };
      const resolved = await this.#resolveIndex(name, group, plan, entries, consistent, reading);
      const steps: Step[] = [];
      let items = resolved.earlier.length;
      for (const s of resolved.steps) {
        if (items >= needed) {
          steps.push({ sk: s.sk, item: undefined, more: true });
          break;
        }
        steps.push(s);
        if (s.item !== undefined) items++;
      }
      return { earlier: resolved.earlier, steps, records: records.length };
    });
  }

  /**
   * One scan's index entries as their current items (store/list.rs `resolve_index`, and
   * docs/DYNAMODB_LAYOUT.md section 7.2): an entry whose item still has that index key is the
   * item; one whose item moved since to another key of this index that the call has read
   * (`covers`) gives the item at its new place; each item once in the call. Returns the items
   * placed before this scan's range (in scan order), and one step per entry with the moved
   * items among them.
   */
  async #resolveIndex(
    name: string,
    group: KeyPath,
    plan: Plan,
    entries: readonly { sk: Uint8Array; version: bigint; value: Uint8Array }[],
    consistent: boolean,
    reading: Reading,
  ): Promise<{ earlier: Step[]; steps: Step[] }> {
    const steps: Step[] = [];
    const moved: Step[] = [];
    const wanted: { i: number; base: KeyPath; key: RecordKey; full: Uint8Array }[] = [];
    for (const r of entries) {
      const where = `the entry of index ${name} in ${group} at sort key ${hex(r.sk)}`;
      const projected = entryItem(r.value, where);
      const { rest, base } = splitEntry(r.sk, where);
      const i = steps.length;
      steps.push({ sk: r.sk, item: undefined });
      if (!plan.matches(rest)) continue;
      if (projected !== undefined) {
        steps[i]!.item = this.#itemOf(
          base,
          r.version,
          { type: projected.type, indexes: [] },
          projected.payload,
        );
        continue;
      }
      let full: KeyPath;
      try {
        full = group.join(rest);
      } catch (e) {
        throw keyError(e, "foreign", where);
      }
      wanted.push({ i, base, key: await this.#itemKey(base), full: full.encode() });
    }
    if (wanted.length > 0) {
      const found = await this.#batchGetRecords(
        wanted.map((w) => w.key),
        consistent,
      );
      const groupBytes = group.encode();
      for (const w of wanted) {
        const r = found.get(keyId(w.key));
        if (r === undefined) continue;
        const header = parseHeader(r.value, w.base.toString());
        const now = header.indexes.find((ix) => ix.name === name);
        if (now === undefined) continue;
        const item = this.#itemOf(w.base, r.version, header, r.value.subarray(header.payloadStart));
        if (sameBytes(now.path, w.full)) {
          steps[w.i]!.item = item;
          continue;
        }
        // The item moved to another key of this index after its entry was read: it is
        // given at its new place if that place is in the query and the call has read it.
        let sk: Uint8Array;
        try {
          const split = KeyPath.decode(now.path).splitGroup();
          if (!sameBytes(split.group, groupBytes) || !plan.matches(KeyPath.decode(split.sort)))
            continue;
          sk = concat(escapeRest(split.sort), Uint8Array.of(0x00, 0x00), w.base.encode());
        } catch {
          continue; // a key that does not decode is in no query's range
        }
        if (covers(reading, sk)) moved.push({ sk, item });
      }
    }
    return place(reading, steps, moved);
  }

  /** One `Query` range read of up to `scan.limit` records in `[start, end]` (section 7.2). */
  async #scan(
    pk: Uint8Array,
    scan: { start: ByteBound; end: ByteBound; limit: number },
    reverse: boolean,
    consistent: boolean,
    gsi?: KeptIndex,
  ): Promise<Attrs[]> {
    const pkName = gsi?.pk ?? "pk";
    const skName = gsi?.sk ?? "sk";
    const clamp = (bound: ByteBound, lower: boolean): ByteBound | null => {
      if (bound === undefined) return undefined;
      const v = "included" in bound ? bound.included : bound.excluded;
      if (v.length === 0) return lower ? undefined : null;
      if (v.length > 1024)
        return lower ? { excluded: v.slice(0, 1024) } : { included: v.slice(0, 1024) };
      return bound;
    };
    if (
      scan.limit === 0 ||
      pk.length === 0 ||
      pk.length > 2048 ||
      isEmptyRange(scan.start, scan.end)
    )
      return [];
    const lo = clamp(scan.start, true);
    const hi = clamp(scan.end, false);
    if (lo === null || hi === null) return [];
    const val = (x: Exclude<ByteBound, undefined>): Uint8Array =>
      "included" in x ? x.included : x.excluded;
    const values: Attrs = { ":g": b(pk) };
    let condition = `${pkName} = :g`;
    let slack = 0;
    if (lo !== undefined && hi !== undefined) {
      if (compareBytes(val(lo), val(hi)) > 0) return [];
      values[":lo"] = b(val(lo));
      values[":hi"] = b(val(hi));
      condition += ` AND ${skName} BETWEEN :lo AND :hi`;
      slack = ("excluded" in lo ? 1 : 0) + ("excluded" in hi ? 1 : 0);
    } else if (lo !== undefined) {
      values[":lo"] = b(val(lo));
      condition += ` AND ${skName} ${"included" in lo ? ">=" : ">"} :lo`;
    } else if (hi !== undefined) {
      values[":hi"] = b(val(hi));
      condition += ` AND ${skName} ${"included" in hi ? "<=" : "<"} :hi`;
    }
    const inside = (sk: Uint8Array): boolean => {
      if (lo !== undefined) {
        const c = compareBytes(sk, val(lo));
        if ("included" in lo ? c < 0 : c <= 0) return false;
      }
      if (hi !== undefined) {
        const c = compareBytes(sk, val(hi));
        if ("included" in hi ? c > 0 : c >= 0) return false;
      }
      return true;
    };
    const out: Attrs[] = [];
    let start: Attrs | undefined;
    for (;;) {
      let page;
      try {
        page = await this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            ...(gsi === undefined ? {} : { IndexName: `kp_${gsi.name}` }),
            KeyConditionExpression: condition,
            ExpressionAttributeValues: values,
            ScanIndexForward: !reverse,
            ConsistentRead: consistent,
            Limit: Math.min(scan.limit - out.length + slack, 2 ** 31 - 1),
            ...(start === undefined ? {} : { ExclusiveStartKey: start }),
          }),
        );
      } catch (e) {
        throw sdkError("Query", e);
      }
      for (const item of page.Items ?? []) {
        const sk = item[skName]?.B;
        if (!(sk instanceof Uint8Array))
          throw new TableError(
            "foreign",
            `a record of ${pkName} ${hex(pk)} without a binary ${skName}`,
          );
        if (!inside(sk)) continue;
        out.push(item as Attrs);
        if (out.length === scan.limit) return out;
      }
      if (page.LastEvaluatedKey === undefined) return out;
      start = page.LastEvaluatedKey as Attrs;
    }
  }

  /** The Rust store's paging (store/list.rs `paged`): scans of limit+1, cursors, passed-over records. */
  async #paged(
    options: ListOptions,
    plan: Plan,
    fp: bigint,
    resolve: (
      scan: { start: ByteBound; end: ByteBound; limit: number },
      needed: number,
    ) => Promise<{ earlier?: Step[]; steps: Step[]; records: number }>,
  ): Promise<Page> {
    const limit = options.limit ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isInteger(limit) || limit < 0)
      throw new TableError(
        "invalid",
        `expected a limit of 0 or more, found ${typeof limit === "number" ? String(limit) : describeArg(limit)}`,
      );
    const reverse = options.reverse === true;
    let position: Uint8Array | undefined;
    if (options.cursor !== undefined) {
      const c = parseCursor(options.cursor);
      if (c.query !== fp) {
        throw new TableError(
          "invalid",
          "cursor belongs to a different query: resume a list with the query that returned the cursor",
        );
      }
      position = c.position;
    }
    const items: TableItem[] = [];
    const sks: Uint8Array[] = []; // each item's position
    let lastItemSk: Uint8Array | undefined;
    if (limit === 0) return { items, cursor: undefined };
    let atLastItem = false;
    let more: boolean;
    for (;;) {
      if (atLastItem) {
        atLastItem = false;
        position = lastItemSk;
      }
      const batch = Math.min(limit - items.length + 1, SCAN_BATCH);
      let start: ByteBound = { included: plan.start };
      let end: ByteBound = plan.end === undefined ? undefined : { excluded: plan.end };
      if (position !== undefined) {
        if (!reverse && compareBytes(position, plan.start) >= 0) start = { excluded: position };
        if (reverse && (plan.end === undefined || compareBytes(position, plan.end) < 0))
          end = { excluded: position };
      }
      const { earlier, steps, records } = await resolve(
        { start, end, limit: batch },
        limit - items.length,
      );
      const exhausted = records < batch;
      more = false;
      // Items now placed in what an earlier scan of this page read (an index entry that
      // moved behind the scans) go where they are now, keeping the page in order.
      for (const late of earlier ?? []) {
        let at = sks.length;
        while (at > 0 && compareBytes(sks[at - 1]!, late.sk) * (reverse ? -1 : 1) > 0) at--;
        items.splice(at, 0, late.item!);
        sks.splice(at, 0, late.sk);
      }
      let passedAfterLast = false;
      let passed: Uint8Array | undefined;
      let got = 0;
      for (const s of steps) {
        if (s.more === true) {
          more = true;
          break;
        }
        if (s.item !== undefined) {
          items.push(s.item);
          sks.push(s.sk);
          lastItemSk = s.sk;
          got++;
          passedAfterLast = false;
        } else {
          passed = s.sk;
          passedAfterLast = true;
        }
      }
      if (passedAfterLast) position = passed;
      else atLastItem = got > 0;
      if (items.length > limit) {
        // Only those late items overfill the page: it ends at its limit, the cursor at its
        // last item; the items cut are after it, for the next page.
        items.length = limit;
        sks.length = limit;
        lastItemSk = sks[limit - 1];
        atLastItem = true;
        more = true;
      }
      if (more || exhausted) break;
    }
    if (!more) return { items, cursor: undefined };
    if (atLastItem) position = lastItemSk;
    return { items, cursor: position === undefined ? undefined : cursorText(fp, position) };
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  /**
   * Writes `value` at `key` as data, as `sortpath db put` does, and returns the new version:
   * the item type is the namespace of the key's last component, the declared `"kind":
   * "field"` indexes of that type get their entries, the configuration's `types` gains the
   * type with its first item. One consistent `BatchGetItem` (the item and the configuration),
   * then one `PutItem` or `TransactWriteItems`; a concurrent write makes it read and try
   * again. `ifAbsent`/`ifVersion` fail with `condition_failed`.
   *
   * ```ts
   * const v = await table.put("/board-1/ticket-7", { board: 1, title: "Fix", updated: 20 });
   * await table.put("/board-1/ticket-7", { board: 1, title: "Fixed", updated: 30 }, { ifVersion: v });
   * ```
   */
  async put(key: KeyPath | string, value: Value, options: PutOptions = {}): Promise<bigint> {
    checkOptions(options);
    return this.#put(toPath(key), value, options, undefined);
  }

  /**
   * `put`, or with `keepType` the write of an `update`: the item keeps that type, the one read
   * at `options.ifVersion` (an item of another type there fails as `condition_failed`, so the
   * update reads again).
   */
  async #put(
    path: KeyPath,
    value: Value,
    options: PutOptions,
    keepType: string | undefined,
  ): Promise<bigint> {
    itemKey(path); // checked before anything is read: a group and an ID at the end
    const comps = path.components();
    const type = keepType ?? comps[comps.length - 1]!.namespace;
    // A value a field index refuses is refused before anything is read, as `sortpath db put`
    // does with the configuration it has (the commit computes the entries again with the
    // configuration it reads).
    if (this.#config !== undefined) fieldIndexEntries(this.#config.config, path, type, value);
    const payload = tvBytes(toTv(value));
    const ifVersion =
      options.ifVersion === undefined ? undefined : toVersion(options.ifVersion, "ifVersion");
    let restore: bigint | undefined;
    if (options.restore !== undefined) {
      restore = toVersion(options.restore, "restore");
      if (restore < 1n || restore >= 1n << 52n) {
        throw new TableError(
          "invalid",
          `${path}: version ${restore} to restore is not in 1 to 2^52 - 1`,
        );
      }
    }
    return this.#commit(
      path,
      async ({ key: rkey, old, config, configVersion, counter }) => {
        if (options.ifAbsent === true && old !== undefined) {
          throw new TableError(
            "condition_failed",
            `condition failed: ${path} exists (at version ${old.version}), a put only if absent was asked`,
          );
        }
        if (ifVersion !== undefined && old?.version !== ifVersion) {
          throw new TableError(
            "condition_failed",
            `condition failed: ${path} is ${old === undefined ? "absent" : `at version ${old.version}`}, a put at version ${ifVersion} was asked`,
          );
        }
        let oldHeader: Header | undefined;
        if (old !== undefined) {
          try {
            oldHeader = parseHeader(old.value, path.toString());
          } catch (e) {
            throw keyError(
              e,
              "foreign",
              `${path}: a put over a record that is not an item is refused`,
            );
          }
        }
        if (keepType !== undefined && oldHeader?.type !== keepType) {
          throw new TableError(
            "condition_failed",
            `condition failed: ${path} is no longer an item of type ${keepType}, the type the update read`,
          );
        }
        for (const t of new Set([type, ...(oldHeader === undefined ? [] : [oldHeader.type])])) {
          const program = config.indexes
            .filter((d) => d.type === t && d.kind === "program")
            .map((d) => d.name);
          if (program.length > 0) {
            throw new TableError(
              "unsupported",
              `${path}: items of type ${t} are indexed by a program (${program.join(", ")}), which only the Rust type's code computes; nothing was written`,
            );
          }
          const building = config.indexes
            .filter((d) => d.type === t && d.building === true)
            .map((d) => d.name);
          if (building.length > 0) {
            throw new TableError(
              "unsupported",
              `${path}: the index ${building.join(", ")} of type ${t} is being built; nothing was written`,
            );
          }
        }
        const entries = fieldIndexEntries(config, path, type, value);
        // Indexes the table keeps as GSIs get no entries: their key paths go into the GSI's key
        // attributes, and the header keeps their names with zero-length paths (section 5).
        const gsis =
          entries.length > 0 || (oldHeader?.indexes.length ?? 0) > 0
            ? await this.#keptIndexes()
            : [];
        const maintained = new Set(gsis.map((k) => k.name));
        const gsiAttrs: Attrs = {};
        for (const e of entries) {
          const k = gsis.find((x) => x.name === e.name);
          if (k === undefined) continue;
          const entry = entryKey(e.name, e.path, path);
          const group = e.path.splitGroup().group;
          if (group.length > 2048 || entry.sk.length > 1024) {
            throw new TableError(
              "invalid",
              `${path}: index ${e.name}'s GSI keys are over DynamoDB's key limits (${group.length} and ${entry.sk.length} bytes)`,
            );
          }
          gsiAttrs[k.pk] = b(group);
          gsiAttrs[k.sk] = b(entry.sk);
        }
        for (const e of entries) {
          if (maintained.has(e.name)) continue;
          const k = entryKey(e.name, e.path, path);
          if (k.pk.length > 2048 || k.sk.length > 1024) {
            throw new TableError(
              "invalid",
              `${path}: index ${e.name}'s entry key is over DynamoDB's key limits: expected a partition key of at most 2048 bytes and a sort key of at most 1024, found ${k.pk.length} and ${k.sk.length} (the item's fields make its index key path too long); nothing was written`,
            );
          }
        }
        const header = encodeHeader(type, entries, maintained);
        const version =
          counter !== undefined
            ? counter.next
            : old !== undefined
              ? (old.version + 1n) & U64_MAX || 1n
              : (restore ?? freshVersion());
        const members: Member[] = [];
        let configAfter: { config: StoreConfig; version: bigint } | undefined;
        const kept = entries.map(() => false);
        if (oldHeader !== undefined)
          members.push(...this.#staleDeletes(path, oldHeader, entries, kept, maintained));
        entries.forEach((e, i) => {
          if (kept[i] || maintained.has(e.name)) return;
          const k = entryKey(e.name, e.path, path);
          members.push({
            op: "Put",
            item: { pk: b(k.pk), sk: b(k.sk), val: b(Uint8Array.of(0x01)), ver: n(version) },
          });
        });
        members.push({
          op: "Put",
          item: itemAttrs(rkey, version, header, type, payload, gsiAttrs),
          condition: old === undefined ? { notExists: true } : { version: old.version },
        });
        if (counter !== undefined) members.push(counter.put);
        if (config.types !== undefined && !config.types.includes(type)) {
          // The store's first item of its type: the type is listed in the same transaction (the
          // record created, if an empty table has none).
          const next = { ...config, types: [...config.types, type] };
          configAfter = { config: next, version: (configVersion ?? 0n) + 1n };
          members.push({
            op: "Put",
            item: {
              pk: b(CONFIG_KEY.pk),
              sk: b(CONFIG_KEY.sk),
              val: b(configJson(next)),
              ver: n((configVersion ?? 0n) + 1n),
            },
            condition:
              configVersion === undefined ? { notExists: true } : { version: configVersion },
          });
        }
        return { members, result: version, configAfter };
      },
      true,
    );
  }

  /**
   * Deletes of the old item's entries that the new one lacks (but of indexes kept by a GSI);
   * marks in `kept` the new entries it has.
   */
  #staleDeletes(
    path: KeyPath,
    old: Header,
    entries: readonly { name: string; path: KeyPath }[],
    kept: boolean[],
    maintained: ReadonlySet<string>,
  ): Member[] {
    const out: Member[] = [];
    for (const ix of old.indexes) {
      const same = entries.findIndex(
        (e) => e.name === ix.name && sameBytes(e.path.encode(), ix.path),
      );
      if (same >= 0) {
        kept[same] = true;
        continue;
      }
      let indexPath: KeyPath;
      try {
        indexPath = KeyPath.decode(ix.path);
      } catch (e) {
        throw keyError(e, "foreign", `${path}: the key path of index ${ix.name} in its header`);
      }
      if (!maintained.has(ix.name))
        out.push({ op: "Delete", key: entryKey(ix.name, indexPath, path) });
    }
    return out;
  }

  /**
   * Reads the item at `key`, calls `fn` on its value and writes the result only if the item is
   * still at the version read; on a concurrent write, reads again and calls `fn` again. The item
   * keeps its stored type (and so the field indexes of that type). An absent item is
   * `not_found`. Returns the new version.
   *
   * `fn` must return the new value (a function that changes the value in place must also
   * return it): `undefined` fails as `invalid` and writes nothing. `null` is a value, stored.
   *
   * ```ts
   * await table.update("/board-1/ticket-7", (v) => ({ ...(v as object), title: "Fixed" }));
   * ```
   */
  async update(
    key: KeyPath | string,
    fn: (value: Value, item: TableItem) => Value | Promise<Value>,
  ): Promise<bigint> {
    const path = toPath(key);
    for (let attempt = 0; ; attempt++) {
      const item = await this.get(path);
      if (item === undefined) throw new TableError("not_found", `no item at ${path} to update`);
      const value = await fn(item.value, item);
      if (value === undefined) {
        throw new TableError(
          "invalid",
          `${path}: the update function returned undefined; it must return the item's new value (a function that changes the value in place must also return it); nothing was written`,
        );
      }
      try {
        return await this.#put(path, value, { ifVersion: item.version }, item.type);
      } catch (e) {
        if (
          !(e instanceof TableError && e.kind === "condition_failed") ||
          attempt + 1 >= this.#maxAttempts
        )
          throw e;
        await pause(attempt);
      }
    }
  }

  /**
   * Deletes the item at `key` and its index entries; `true` if it existed. One consistent
   * `BatchGetItem`, then `DeleteItem` (or `TransactWriteItems` with its entries); nothing
   * more for an absent item.
   *
   * ```ts
   * await table.delete("/board-1/ticket-7"); // true
   * ```
   */
  async delete(key: KeyPath | string): Promise<boolean> {
    const path = toPath(key);
    return this.#commit(
      path,
      async ({ key: rkey, old, counter }) => {
        if (old === undefined) return { members: [], result: false };
        const members: Member[] = [];
        let header: Header | undefined;
        try {
          header = parseHeader(old.value, path.toString());
        } catch {
          header = undefined; // not an envelope: it has no entries, the delete removes just it
        }
        if (header !== undefined) {
          const gsis = header.indexes.length > 0 ? await this.#keptIndexes() : [];
          members.push(
            ...this.#staleDeletes(path, header, [], [], new Set(gsis.map((k) => k.name))),
          );
        }
        members.push({ op: "Delete", key: rkey, condition: { version: old.version } });
        if (counter !== undefined) members.push(counter.put);
        return { members, result: true };
      },
      false,
    );
  }

  /**
   * The Rust store's commit (store/write.rs): one consistent `BatchGetItem` of the group's
   * counter (with `group_versions`), the item, and the configuration when `withConfig`; the
   * plan; one write. A failed condition reads again and plans again.
   */
  async #commit<T>(
    path: KeyPath,
    planWrite: (read: {
      /** The item's record key. */
      key: RecordKey;
      old: RawRecord | undefined;
      config: StoreConfig;
      configVersion: bigint | undefined;
      /** With group_versions: the counter's next version and the Put that writes it. */
      counter: { next: bigint; put: Member } | undefined;
    }) => Promise<{
      members: Member[];
      result: T;
      configAfter?: { config: StoreConfig; version: bigint } | undefined;
    }>,
    withConfig: boolean,
  ): Promise<T> {
    const rkey = await this.#itemKey(path);
    // Whether the store keeps group counters: known from the configuration, read once.
    if (this.#groupVersions === undefined) await this.loadConfig();
    const counterKey: RecordKey = {
      pk: concat(Uint8Array.of(0x00, 0x01), rkey.pk),
      sk: Uint8Array.of(0x00),
    };
    // Without a configuration record seen yet, whether the table holds items: a write to a
    // table without items creates the record (as the Rust store's first write does); one to a
    // table that holds items but no record is refused (the record may have been lost).
    let holdsItems =
      withConfig && this.#config === undefined ? await this.#holdsItems() : undefined;
    for (let attempt = 0; ; attempt++) {
      const counted = this.#groupVersions === true;
      const keys = [...(counted ? [counterKey] : []), rkey, ...(withConfig ? [CONFIG_KEY] : [])];
      const got = await this.#batchGetRecords(keys, true);
      const old = got.get(keyId(rkey));
      let config = this.#config?.config ?? absentConfig();
      let configVersion: bigint | undefined;
      if (withConfig) {
        const c = got.get(keyId(CONFIG_KEY));
        if (c === undefined) {
          // No record: on an empty table the write creates it, listing the type. Items
          // without a record are refused, writing nothing: the record may have been lost to
          // damage, and a new one would drop the indexes it declared.
          holdsItems ??= await this.#holdsItems();
          if (holdsItems) throw unrecordedError(this.tableName, path);
          config = absentConfig();
          config.types = [];
        } else {
          config = parseConfig(c.value);
          configVersion = c.version;
          this.#config = { config, version: c.version };
          this.#groupVersions = config.groupVersions;
          if (config.groupVersions !== counted) continue; // created meanwhile: read the counter too
        }
      }
      let counter: { next: bigint; put: Member } | undefined;
      if (counted) {
        const c = got.get(keyId(counterKey));
        const next = (c?.version ?? 0n) + 1n;
        if (next > U64_MAX)
          throw new TableError(
            "other",
            `${path}: the group's version counter is at its largest value`,
          );
        counter = {
          next,
          put: {
            op: "Put",
            item: { pk: b(counterKey.pk), sk: b(counterKey.sk), ver: n(next) },
            condition: c === undefined ? { notExists: true } : { version: c.version },
          },
        };
      }
      const { members, result, configAfter } = await planWrite({
        key: rkey,
        old,
        config,
        configVersion,
        counter,
      });
      if (members.length === 0) return result;
      try {
        await this.#send(members);
        if (configAfter !== undefined) this.#config = configAfter;
        return result;
      } catch (e) {
        if (!isConditionFailure(e) || attempt + 1 >= this.#maxAttempts) {
          if (isConditionFailure(e)) {
            throw new TableError(
              "other",
              `${path}: still contended after ${attempt + 1} attempts`,
              { cause: e },
            );
          }
          throw sdkError(members.length === 1 ? `${members[0]!.op}Item` : "TransactWriteItems", e);
        }
        await pause(attempt);
      }
    }
  }

  /**
   * Records a configuration if the table has none, also over items written without one, as the
   * Rust store's `Store::create_config_over_items` (`sortpath db --dynamodb TABLE init
   * --over-items`); `false`, changing nothing, if the table has a record. A write to a table
   * that holds items but no record fails as `unrecorded` instead: the record may have been lost
   * to damage, and a new one would drop the indexes it declared. This is the explicit take-over
   * of a table an earlier release wrote without a record (and the first step of recovering one
   * whose record was lost: take its items over, export them, import them into a new store
   * created with its indexes).
   *
   * Over items the record declares no index and no root place (nothing would give the items
   * there their entries or places) and lists no `types` (unknown: an index declared later is
   * built before it answers); on a table without items it is the record the first write would
   * create, listing the types written. `groupVersions`: the store keeps a version counter per
   * group. One consistent `Scan` (until an item), then one conditional `PutItem`.
   *
   * ```ts
   * try {
   *   await table.put("/board-1/ticket-7", { title: "Fix" });
   * } catch (e) {
   *   if (e instanceof TableError && e.kind === "unrecorded") {
   *     // An earlier release's table (not one whose record was lost): take its items over.
   *     await table.createConfigOverItems(); // true
   *   }
   * }
   * ```
   */
  async createConfigOverItems(options: { groupVersions?: boolean } = {}): Promise<boolean> {
    if (typeof options !== "object" || options === null) {
      throw new TableError("invalid", "createConfigOverItems: options must be an object");
    }
    const groupVersions = options.groupVersions ?? false;
    if (typeof groupVersions !== "boolean") {
      throw new TableError(
        "invalid",
        `createConfigOverItems: groupVersions must be true or false, found ${String(groupVersions)}`,
      );
    }
    const config = absentConfig();
    config.groupVersions = groupVersions;
    if (!(await this.#holdsItems())) config.types = [];
    const member: Member = {
      op: "Put",
      item: {
        pk: b(CONFIG_KEY.pk),
        sk: b(CONFIG_KEY.sk),
        val: b(configJson(config)),
        ver: n(1n),
      },
      condition: { notExists: true },
    };
    try {
      await this.#send([member]);
    } catch (e) {
      if (!isConditionFailure(e)) throw sdkError("PutItem", e);
      await this.loadConfig();
      return false;
    }
    this.#config = { config, version: 1n };
    this.#groupVersions = groupVersions;
    return true;
  }

  /**
   * Whether the table holds any item: a consistent `Scan` of partition keys, page after page
   * until a page has one of an item group (docs/DYNAMODB_LAYOUT.md section 2.4).
   */
  async #holdsItems(): Promise<boolean> {
    let start: Attrs | undefined;
    for (;;) {
      let out;
      try {
        out = await this.client.send(
          new ScanCommand({
            TableName: this.tableName,
            ProjectionExpression: "pk",
            ConsistentRead: true,
            ...(start === undefined ? {} : { ExclusiveStartKey: start }),
          }),
        );
      } catch (e) {
        throw sdkError("Scan", e);
      }
      if (
        (out.Items ?? []).some(
          (i) => i["pk"]?.B instanceof Uint8Array && i["pk"].B.length > 0 && i["pk"].B[0]! >= 1,
        )
      )
        return true;
      if (out.LastEvaluatedKey === undefined) return false;
      start = out.LastEvaluatedKey as Attrs;
    }
  }

  /**
   * One `PutItem`/`DeleteItem` for one member, else one `TransactWriteItems` in order. A
   * write whose conditions fail against exactly what it writes was applied by an earlier
   * attempt whose answer was lost ({@link appliedBefore}): done.
   */
  async #send(members: readonly Member[]): Promise<void> {
    try {
      await this.#sendOnce(members);
    } catch (e) {
      if (appliedBefore(members, e)) return;
      throw e;
    }
  }

  async #sendOnce(members: readonly Member[]): Promise<void> {
    for (const m of members) {
      const pk = m.op === "Put" ? (m.item["pk"]!.B as Uint8Array) : m.key.pk;
      const sk = m.op === "Put" ? (m.item["sk"]!.B as Uint8Array) : m.key.sk;
      if (pk.length === 0 || pk.length > 2048 || sk.length === 0 || sk.length > 1024) {
        throw new TableError(
          "invalid",
          `the record ${describeKey(pk, sk)}: a partition key of 1 to 2048 bytes and a sort key of 1 to 1024 bytes, found ${pk.length} and ${sk.length}`,
        );
      }
    }
    const cond = (
      m: Member,
    ): { ConditionExpression?: string; ExpressionAttributeValues?: Attrs } => {
      if (m.condition === undefined) return {};
      if ("notExists" in m.condition) return { ConditionExpression: "attribute_not_exists(pk)" };
      return {
        ConditionExpression: "ver = :kp_ver",
        ExpressionAttributeValues: { ":kp_ver": n(m.condition.version) },
      };
    };
    if (members.length === 1) {
      const m = members[0]!;
      if (m.op === "Put") {
        await this.client.send(
          new PutItemCommand({
            TableName: this.tableName,
            Item: m.item,
            ...cond(m),
            ReturnValuesOnConditionCheckFailure: "ALL_OLD",
          }),
        );
      } else {
        await this.client.send(
          new DeleteItemCommand({
            TableName: this.tableName,
            Key: keyAttrs(m.key),
            ...cond(m),
            ReturnValuesOnConditionCheckFailure: "ALL_OLD",
          }),
        );
      }
      return;
    }
    if (members.length > 100)
      throw new TableError(
        "invalid",
        `a write of ${members.length} records, over DynamoDB's 100 a transaction`,
      );
    const items: TransactWriteItem[] = members.map((m) =>
      m.op === "Put"
        ? {
            Put: {
              TableName: this.tableName,
              Item: m.item,
              ...cond(m),
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            },
          }
        : {
            Delete: {
              TableName: this.tableName,
              Key: keyAttrs(m.key),
              ...cond(m),
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            },
          },
    );
    await this.client.send(new TransactWriteItemsCommand({ TransactItems: items }));
  }
}

/** One record of a scan: an item, or a record passed over, or the first record past a full page. */
interface Step {
  sk: Uint8Array;
  item: TableItem | undefined;
  more?: boolean;
}

/** One scan of an index query, as placing an item whose entry moved needs it (store/list.rs `Reading`). */
interface Reading {
  reverse: boolean;
  /** Where the call's first scan started, in scan order. */
  from: ByteBound;
  /** The scan's bounds. */
  start: ByteBound;
  end: ByteBound;
  /** The sk of the last entry the scan read. */
  last: Uint8Array | undefined;
  /** Whether the scan read its range to the end. */
  exhausted: boolean;
  /** The items (their key path text) the page holds so far; `place` adds to it. */
  returned: Set<string>;
}

/** Whether `sk` is inside lower bound `b`. */
function above(b: ByteBound, sk: Uint8Array): boolean {
  if (b === undefined) return true;
  return "included" in b ? compareBytes(sk, b.included) >= 0 : compareBytes(sk, b.excluded) > 0;
}

/** Whether `sk` is inside upper bound `b`. */
function below(b: ByteBound, sk: Uint8Array): boolean {
  if (b === undefined) return true;
  return "included" in b ? compareBytes(sk, b.included) <= 0 : compareBytes(sk, b.excluded) < 0;
}

/**
 * Whether the call has read the part of the range where `sk` is: after where it started, up to
 * the last entry this scan read (to the end of the range if the scan read it all).
 */
function covers(r: Reading, sk: Uint8Array): boolean {
  if (!r.reverse) {
    if (!above(r.from, sk)) return false;
    if (r.exhausted) return below(r.end, sk);
    return r.last !== undefined && compareBytes(sk, r.last) <= 0;
  }
  if (!below(r.from, sk)) return false;
  if (r.exhausted) return above(r.start, sk);
  return r.last !== undefined && compareBytes(sk, r.last) >= 0;
}

/**
 * The scan's steps (one per entry) with the moved items (each at its new sk) put in place:
 * those before the scan's range apart, the others among the steps in scan order. Each item
 * is given once in the call: one already returned, or given earlier in scan order, is not
 * given again (an entry of it becomes a step passed over).
 */
function place(r: Reading, steps: Step[], moved: Step[]): { earlier: Step[]; steps: Step[] } {
  const dir = r.reverse ? -1 : 1;
  const precedes = (a: Uint8Array, b: Uint8Array): boolean => compareBytes(a, b) * dir < 0;
  moved.sort((a, b) => compareBytes(a.sk, b.sk) * dir);
  const before = (sk: Uint8Array): boolean => (r.reverse ? !below(r.end, sk) : !above(r.start, sk));
  const give = (out: Step[], s: Step, entry: boolean): void => {
    const key = hex(s.item!.key.encode());
    if (!r.returned.has(key)) {
      r.returned.add(key);
      out.push(s);
    } else if (entry) {
      out.push({ sk: s.sk, item: undefined });
    }
  };
  const earlier: Step[] = [];
  let m = 0;
  while (m < moved.length && before(moved[m]!.sk)) give(earlier, moved[m++]!, false);
  const out: Step[] = [];
  for (const s of steps) {
    while (m < moved.length && precedes(moved[m]!.sk, s.sk)) give(out, moved[m++]!, false);
    if (s.item === undefined) out.push(s);
    else give(out, s, true);
  }
  while (m < moved.length) give(out, moved[m++]!, false);
  return { earlier, steps: out };
}
