// A stand-in for DynamoDB behind a real DynamoDBClient: a middleware at the SDK's build step
// captures each request body as the SDK serialized it (binary values in base64), answers from
// an in-memory table and stops the request before it is signed or sent. Conditions are not
// checked unless a test queues a failure; Query keeps DynamoDB's order, bounds, Limit and
// LastEvaluatedKey.

import { type AttributeValue, DynamoDBClient } from "@aws-sdk/client-dynamodb";

type Attrs = Record<string, AttributeValue>;

export interface Sent {
  operation: string;
  body: Record<string, unknown>;
}

function keyId(pk: Uint8Array, sk: Uint8Array): string {
  return Buffer.from(pk).toString("hex") + "|" + Buffer.from(sk).toString("hex");
}

function cmp(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function keyOf(item: Attrs): string {
  return keyId(item["pk"]!.B!, item["sk"]!.B!);
}

export class StubTable {
  readonly records = new Map<string, Attrs>();
  readonly sent: Sent[] = [];
  /** Errors the next writes throw instead of applying (one each). */
  readonly failures: Error[] = [];
  /**
   * How many of the next writes are applied and then answered as DynamoDB answers the same
   * request sent again (the SDK's retry after a lost answer): each condition fails against
   * the record the write left.
   */
  lostAnswers = 0;
  /**
   * The attempts the SDK reports (`$metadata.attempts`) in such an answer: 2, a retry; 1
   * makes it what a write meets when another writer wrote the same record first.
   */
  lostAnswerAttempts = 2;
  readonly client: DynamoDBClient;
  /** What DescribeTable answers: keys pk/sk (binary); tests add GSIs. */
  description: Record<string, unknown> = {
    KeySchema: [
      { AttributeName: "pk", KeyType: "HASH" },
      { AttributeName: "sk", KeyType: "RANGE" },
    ],
    AttributeDefinitions: [
      { AttributeName: "pk", AttributeType: "B" },
      { AttributeName: "sk", AttributeType: "B" },
    ],
  };

  constructor() {
    this.client = new DynamoDBClient({
      region: "us-east-1",
      endpoint: "http://127.0.0.1:9",
      credentials: { accessKeyId: "stub", secretAccessKey: "stub" },
    });
    this.client.middlewareStack.add(
      (_next, context) => async (args) => {
        const operation = String(context.commandName).replace(/Command$/, "");
        const raw = (args.request as { body?: string | Uint8Array }).body ?? "{}";
        const text = typeof raw === "string" ? raw : new TextDecoder().decode(raw);
        const body = JSON.parse(text) as Record<string, unknown>;
        this.sent.push({ operation, body });
        const output = this.#answer(operation, args.input as Record<string, unknown>);
        return { output: { $metadata: {}, ...output }, response: {} } as never;
      },
      { step: "build", name: "stubTable" },
    );
  }

  put(item: Attrs): void {
    this.records.set(keyOf(item), item);
  }

  operations(): string[] {
    return this.sent.map((s) => s.operation);
  }

  #answer(op: string, input: Record<string, unknown>): Record<string, unknown> {
    switch (op) {
      case "GetItem": {
        const key = input["Key"] as Attrs;
        const item = this.records.get(keyId(key["pk"]!.B!, key["sk"]!.B!));
        return item === undefined ? {} : { Item: item };
      }
      case "BatchGetItem": {
        const out: Record<string, Attrs[]> = {};
        for (const [table, ka] of Object.entries(
          input["RequestItems"] as Record<string, { Keys: Attrs[] }>,
        )) {
          out[table] = ka.Keys.map((k) => this.records.get(keyId(k["pk"]!.B!, k["sk"]!.B!))).filter(
            (x): x is Attrs => x !== undefined,
          );
        }
        return { Responses: out };
      }
      case "Query":
        return this.#query(input);
      case "Scan":
        return { Items: [...this.records.values()].map((r) => ({ pk: r["pk"] })) };
      case "DescribeTable":
        return { Table: this.description };
      case "PutItem":
      case "DeleteItem":
      case "TransactWriteItems": {
        const failure = this.failures.shift();
        if (failure !== undefined) throw failure;
        if (this.lostAnswers > 0) {
          this.lostAnswers--;
          this.#answer(op, input);
          throw this.#resentFailure(op, input);
        }
        if (op === "PutItem") this.put(input["Item"] as Attrs);
        else if (op === "DeleteItem") {
          const k = input["Key"] as Attrs;
          this.records.delete(keyId(k["pk"]!.B!, k["sk"]!.B!));
        } else {
          for (const m of input["TransactItems"] as Record<string, Record<string, unknown>>[]) {
            if (m["Put"] !== undefined) this.put(m["Put"]["Item"] as Attrs);
            if (m["Delete"] !== undefined) {
              const k = m["Delete"]["Key"] as Attrs;
              this.records.delete(keyId(k["pk"]!.B!, k["sk"]!.B!));
            }
          }
        }
        return {};
      }
      default:
        throw new Error(`the stub does not answer ${op}`);
    }
  }

  /** What a write applied already gets when it is sent again: its conditions fail. */
  #resentFailure(op: string, input: Record<string, unknown>): Error {
    const current = (k: Attrs): Attrs | undefined =>
      this.records.get(keyId(k["pk"]!.B!, k["sk"]!.B!));
    if (op !== "TransactWriteItems") {
      const k = (op === "PutItem" ? input["Item"] : input["Key"]) as Attrs;
      return Object.assign(new Error("The conditional request failed"), {
        name: "ConditionalCheckFailedException",
        Item: current(k),
        $metadata: { attempts: this.lostAnswerAttempts },
      });
    }
    const members = input["TransactItems"] as Record<string, Record<string, unknown>>[];
    const reasons = members.map((m) => {
      const w = (m["Put"] ?? m["Delete"])!;
      if (w["ConditionExpression"] === undefined) return { Code: "None" };
      const k = (m["Put"] !== undefined ? w["Item"] : w["Key"]) as Attrs;
      return { Code: "ConditionalCheckFailed", Item: current(k) };
    });
    return Object.assign(new Error("Transaction cancelled"), {
      name: "TransactionCanceledException",
      CancellationReasons: reasons,
      $metadata: { attempts: this.lostAnswerAttempts },
    });
  }

  #query(input: Record<string, unknown>): Record<string, unknown> {
    const values = input["ExpressionAttributeValues"] as Attrs;
    const expr = String(input["KeyConditionExpression"]);
    const g = values[":g"]!.B!;
    if (input["IndexName"] !== undefined) return { Items: [] };
    const lo = values[":lo"]?.B;
    const hi = values[":hi"]?.B;
    const inRange = (sk: Uint8Array): boolean => {
      if (/BETWEEN/.test(expr)) return cmp(sk, lo!) >= 0 && cmp(sk, hi!) <= 0;
      if (/sk >= :lo/.test(expr)) return cmp(sk, lo!) >= 0;
      if (/sk > :lo/.test(expr)) return cmp(sk, lo!) > 0;
      if (/sk <= :hi/.test(expr)) return cmp(sk, hi!) <= 0;
      if (/sk < :hi/.test(expr)) return cmp(sk, hi!) < 0;
      return true;
    };
    const forward = input["ScanIndexForward"] !== false;
    let rows = [...this.records.values()]
      .filter((r) => cmp(r["pk"]!.B!, g) === 0 && inRange(r["sk"]!.B!))
      .sort((a, b) => cmp(a["sk"]!.B!, b["sk"]!.B!) * (forward ? 1 : -1));
    const start = input["ExclusiveStartKey"] as Attrs | undefined;
    if (start !== undefined) {
      const s = start["sk"]!.B!;
      rows = rows.filter((r) => (forward ? cmp(r["sk"]!.B!, s) > 0 : cmp(r["sk"]!.B!, s) < 0));
    }
    const limit = (input["Limit"] as number | undefined) ?? rows.length;
    const page = rows.slice(0, limit);
    const out: Record<string, unknown> = { Items: page };
    if (page.length === limit && limit > 0) {
      const last = page[page.length - 1]!;
      out["LastEvaluatedKey"] = { pk: last["pk"], sk: last["sk"] };
    }
    return out;
  }
}
