// The cross-language test driver of the DynamoDB table client: a long-running process that
// reads one JSON request a line on stdin and answers one JSON line each on stdout (the
// protocol: requests put/update/delete/get/batch_get/list/index, answers {"ok": ...} or
// {"error": {"kind", "message"}}, each with the DynamoDB operations sent for it in
// "requests"). Diagnostics go to stderr; it exits 0 at the end of stdin.
//
//   node dist-test/test/driver.js --table T --endpoint http://127.0.0.1:PORT
//   (or dist-test/driver.js: this module; test/test/driver.ts is the entry point at the path
//   the cross-language test starts, and the tests of this module's JSON when the test runner
//   runs it without arguments)
//
// Values are what `sortpath db put` would store for the same JSON: objects as maps with their
// keys sorted (serde_json's map), integers as integers (up to 64 bits, exactly), numbers with
// a fraction or an exponent as float64; bytes print as {"$bytes": "<base64>"}, and an object
// of that one key is read as a byte string, so that answers can be written back.

import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

import { KeyPath, KeyPathError } from "../dist/esm/index.js";
import {
  DynamoDbTable,
  Float,
  type TableItem,
  TableError,
  type Value,
} from "../dist/esm/dynamodb-table.js";

class BadRequest extends Error {}

// ---------------------------------------------------------------------------------------------
// JSON in: objects as Maps with sorted keys, exact integers, floats tagged.

export function parseJson(text: string): Value {
  let at = 0;
  const ws = (): void => {
    while (at < text.length && " \t\n\r".includes(text[at]!)) at++;
  };
  const fail = (what: string): never => {
    throw new BadRequest(`expected JSON: at column ${at + 1}: ${what}`);
  };
  const value = (depth: number): Value => {
    if (depth > 200) fail("nested too deep");
    ws();
    const c = text[at];
    if (c === "{") {
      at++;
      const entries: [string, Value][] = [];
      ws();
      if (text[at] === "}") {
        at++;
        return sortedMap(entries);
      }
      for (;;) {
        ws();
        if (text[at] !== '"') fail("a string key");
        const k = string();
        ws();
        if (text[at] !== ":") fail("':'");
        at++;
        entries.push([k, value(depth + 1)]);
        ws();
        if (text[at] === ",") {
          at++;
          continue;
        }
        if (text[at] === "}") {
          at++;
          return sortedMap(entries);
        }
        fail("',' or '}'");
      }
    }
    if (c === "[") {
      at++;
      const out: Value[] = [];
      ws();
      if (text[at] === "]") {
        at++;
        return out;
      }
      for (;;) {
        out.push(value(depth + 1));
        ws();
        if (text[at] === ",") {
          at++;
          continue;
        }
        if (text[at] === "]") {
          at++;
          return out;
        }
        fail("',' or ']'");
      }
    }
    if (c === '"') return string();
    if (text.startsWith("true", at)) return ((at += 4), true);
    if (text.startsWith("false", at)) return ((at += 5), false);
    if (text.startsWith("null", at)) return ((at += 4), null);
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(at));
    if (m === null) return fail("a JSON value");
    at += m[0].length;
    if (m[2] === undefined && m[3] === undefined) {
      const v = BigInt(m[0]);
      if (v < -(1n << 63n) || v > (1n << 64n) - 1n) {
        fail(`the integer ${m[0]} does not fit in 64 bits`);
      }
      return Number.isSafeInteger(Number(v)) ? Number(v) : v;
    }
    return new Float(Number(m[0]));
  };
  const string = (): string => {
    const start = at;
    at++;
    let out = "";
    for (;;) {
      if (at >= text.length) fail("the end of a string");
      const c = text[at]!;
      if (c === '"') {
        at++;
        return out;
      }
      if (c === "\\") {
        const e = text[at + 1];
        const simple: Record<string, string> = {
          '"': '"',
          "\\": "\\",
          "/": "/",
          b: "\b",
          f: "\f",
          n: "\n",
          r: "\r",
          t: "\t",
        };
        if (e !== undefined && e in simple) {
          out += simple[e];
          at += 2;
        } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) {
          out += String.fromCharCode(parseInt(text.slice(at + 2, at + 6), 16));
          at += 6;
        } else fail(`a string escape at ${start}`);
        continue;
      }
      if (c.charCodeAt(0) < 0x20) fail("no control character in a string");
      out += c;
      at++;
    }
  };
  const v = value(0);
  ws();
  if (at !== text.length) fail("the end of the line");
  return v;
}

function utf8Compare(a: string, b: string): number {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return Buffer.compare(x, y);
}

function sortedMap(entries: [string, Value][]): Value {
  // {"$bytes": "<base64>"} is a byte string, as answers print one.
  if (entries.length === 1 && entries[0]![0] === "$bytes" && typeof entries[0]![1] === "string") {
    const text = entries[0]![1];
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
      throw new BadRequest(
        `expected {"$bytes": "<base64>"} with standard padded base64, found ${JSON.stringify(text)}`,
      );
    }
    return new Uint8Array(Buffer.from(text, "base64"));
  }
  const m = new Map<Value, Value>();
  for (const [k, v] of entries) m.set(k, v);
  return new Map([...m.entries()].sort((a, b) => utf8Compare(a[0] as string, b[0] as string)));
}

// ---------------------------------------------------------------------------------------------
// JSON out

function floatJson(v: number): string {
  if (!Number.isFinite(v)) return "null";
  const s = String(v);
  return /[.eE]/.test(s) ? s : s + ".0";
}

export function toJson(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : floatJson(v);
  if (typeof v === "string") return JSON.stringify(v);
  if (v instanceof Float) return floatJson(v.value);
  if (v instanceof Uint8Array)
    return `{"$bytes":${JSON.stringify(Buffer.from(v).toString("base64"))}}`;
  if (Array.isArray(v)) return `[${v.map(toJson).join(",")}]`;
  if (v instanceof Map) {
    return `{${[...v.entries()].map(([k, x]) => `${JSON.stringify(typeof k === "string" ? k : toJson(k))}:${toJson(x)}`).join(",")}}`;
  }
  if (typeof v === "object") {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`)
      .join(",")}}`;
  }
  return "null";
}

function itemJson(item: TableItem | undefined): unknown {
  if (item === undefined) return null;
  return new Map<string, unknown>([
    ["key", item.key.toString()],
    ["version", item.version],
    ["value", item.value],
  ]);
}

// ---------------------------------------------------------------------------------------------
// Requests

function field(req: Map<Value, Value>, name: string): Value | undefined {
  return req.get(name);
}

function str(req: Map<Value, Value>, name: string, optional = false): string | undefined {
  const v = field(req, name);
  if (v === undefined || v === null) {
    if (optional) return undefined;
    throw new BadRequest(`expected "${name}" (a string) in the request`);
  }
  if (typeof v !== "string") throw new BadRequest(`expected "${name}" as a string`);
  return v;
}

function keyOf(req: Map<Value, Value>, name = "key"): KeyPath {
  const text = str(req, name)!;
  try {
    return KeyPath.parse(text);
  } catch (e) {
    throw new TableError("invalid", `${name} ${JSON.stringify(text)}: ${(e as Error).message}`);
  }
}

function version(v: Value | undefined, name: string): bigint | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "bigint" && v >= 0n) return v;
  throw new BadRequest(`expected "${name}" as a non-negative integer`);
}

function listOptions(req: Map<Value, Value>): Parameters<DynamoDbTable["list"]>[1] {
  const reverse = field(req, "reverse");
  if (reverse !== undefined && reverse !== null && typeof reverse !== "boolean")
    throw new BadRequest(`expected "reverse" as a boolean`);
  const limit = field(req, "limit");
  let lim: number | undefined;
  if (limit !== undefined && limit !== null) {
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0)
      throw new BadRequest(`expected "limit" as a non-negative integer`);
    lim = limit;
  }
  return {
    reverse: reverse === true,
    limit: lim,
    cursor: str(req, "cursor", true),
    gt: str(req, "gt", true),
    gte: str(req, "gte", true),
    lt: str(req, "lt", true),
    lte: str(req, "lte", true),
    fromRoot: field(req, "from_root") === true,
    toRoot: field(req, "to_root") === true,
  };
}

async function serve(table: DynamoDbTable, req: Map<Value, Value>): Promise<unknown> {
  const op = str(req, "op");
  switch (op) {
    case "put": {
      const key = keyOf(req);
      if (!req.has("value")) throw new BadRequest(`expected "value" in a put`);
      const ifAbsent = field(req, "if_absent") === true;
      // As `sortpath db put --if-absent --if-version N`: if_absent decides.
      const ifVersion = version(field(req, "if_version"), "if_version");
      const v = await table.put(key, req.get("value")!, ifAbsent ? { ifAbsent } : { ifVersion });
      return new Map<string, unknown>([
        ["key", key.toString()],
        ["version", v],
      ]);
    }
    case "update": {
      const key = keyOf(req);
      const set = field(req, "set");
      if (!(set instanceof Map)) throw new BadRequest(`expected "set" as an object`);
      const v = await table.update(key, (value) => {
        if (!(value instanceof Map)) {
          throw new TableError(
            "invalid",
            `${key}: the item's value is not a map, so it has no fields to set`,
          );
        }
        const next = new Map(value);
        for (const [f, x] of set) {
          if (x === null) next.delete(f);
          else next.set(f, x);
        }
        return new Map([...next.entries()].sort((a, b) => utf8Compare(String(a[0]), String(b[0]))));
      });
      return new Map<string, unknown>([
        ["key", key.toString()],
        ["version", v],
      ]);
    }
    case "delete": {
      const key = keyOf(req);
      const deleted = await table.delete(key);
      return new Map<string, unknown>([
        ["key", key.toString()],
        ["deleted", deleted],
      ]);
    }
    case "get":
      return itemJson(await table.get(keyOf(req)));
    case "batch_get": {
      const keys = field(req, "keys");
      if (!Array.isArray(keys)) throw new BadRequest(`expected "keys" as a list`);
      const paths = keys.map((k, i) => {
        if (typeof k !== "string") throw new BadRequest(`expected keys[${i}] as a string`);
        try {
          return KeyPath.parse(k);
        } catch (e) {
          throw new TableError(
            "invalid",
            `keys[${i}] ${JSON.stringify(k)}: ${(e as Error).message}`,
          );
        }
      });
      return (await table.batchGet(paths)).map(itemJson);
    }
    case "list":
    case "index": {
      const prefix = keyOf(req, "prefix");
      const options = listOptions(req);
      let page;
      if (op === "list") page = await table.list(prefix, options);
      else {
        const name = str(req, "name")!;
        let known = table.config?.indexes.some((d) => d.name === name) ?? false;
        if (!known) known = (await table.loadConfig()).indexes.some((d) => d.name === name);
        if (!known) {
          const names = table.config?.indexes.map((d) => d.name) ?? [];
          throw new TableError(
            "invalid",
            `unknown index ${JSON.stringify(name)}; this store has ${JSON.stringify(names)}`,
          );
        }
        page = await table.queryIndex(name, prefix, options);
      }
      return new Map<string, unknown>([
        ["items", page.items.map(itemJson)],
        ["cursor", page.cursor ?? null],
      ]);
    }
    case "create_config_over_items":
      return new Map<string, unknown>([["created", await table.createConfigOverItems()]]);
    default:
      throw new BadRequest(
        `unknown op ${JSON.stringify(op)}: expected put, update, delete, get, batch_get, list, index or create_config_over_items`,
      );
  }
}

function errorOf(e: unknown): { kind: string; message: string } {
  if (e instanceof BadRequest) return { kind: "invalid", message: e.message };
  if (e instanceof KeyPathError) return { kind: "invalid", message: e.message };
  if (e instanceof TableError) {
    const kind = e.kind === "unsupported" ? "other" : e.kind;
    return { kind, message: e.message };
  }
  return { kind: "other", message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
}

// ---------------------------------------------------------------------------------------------
// Main

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Serves requests from stdin until its end (the arguments: --table T --endpoint URL). */
export async function main(): Promise<void> {
  const tableName = arg("--table");
  const endpoint = arg("--endpoint");
  if (tableName === undefined || endpoint === undefined) {
    process.stderr.write("usage: node driver.js --table TABLE --endpoint URL\n");
    process.exitCode = 2;
    return;
  }
  const env = process.env;
  const client = new DynamoDBClient({
    endpoint,
    region: env["AWS_REGION"] ?? env["AWS_DEFAULT_REGION"] ?? "us-east-1",
    ...(env["AWS_ACCESS_KEY_ID"] === undefined
      ? { credentials: { accessKeyId: "test", secretAccessKey: "test" } }
      : {}),
  });
  let requests: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      requests.push(String(context.commandName ?? "").replace(/Command$/, ""));
      return next(args);
    },
    { step: "finalizeRequest", priority: "low", name: "sortpathRequestAccounting" },
  );
  const table = new DynamoDbTable(client, tableName, { decode: { maps: "map", floats: "tagged" } });
  try {
    // As the `sortpath db` CLI does when it opens a store: the table described (its GSIs) and
    // the configuration read, once; not counted in any answer's requests.
    await table.loadIndexes();
    await table.loadConfig();
  } catch (e) {
    process.stderr.write(`driver: opening the table: ${String(e)}\n`);
  }
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    requests = [];
    let answer: Map<string, unknown>;
    try {
      const req = parseJson(line);
      if (!(req instanceof Map)) throw new BadRequest("expected a JSON object");
      answer = new Map([["ok", await serve(table, req)]]);
    } catch (e) {
      if (!(e instanceof BadRequest || e instanceof TableError || e instanceof KeyPathError)) {
        process.stderr.write(
          `driver: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
        );
      }
      answer = new Map<string, unknown>([["error", errorOf(e)]]);
    }
    answer.set("requests", requests);
    process.stdout.write(toJson(answer) + "\n");
  }
  client.destroy();
}

/** Runs `main`, reporting a failure on stderr with exit code 1. */
export function run(): void {
  main().catch((e: unknown) => {
    process.stderr.write(`driver: ${String(e)}\n`);
    process.exitCode = 1;
  });
}

// Serves when run as the program (`node dist-test/driver.js --table T --endpoint URL`);
// imported (by test/test/driver.ts), it only exports.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) run();
