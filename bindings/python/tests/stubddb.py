"""An in-memory stand-in for boto3's low-level DynamoDB client, enough for the table
client's requests: it records every request body and answers as DynamoDB would (conditions,
transactions, ordered queries with Limit and LastEvaluatedKey, BatchGetItem). No server."""

from __future__ import annotations

import base64
import copy
import re
from typing import Any, Callable, Dict, List, Optional, Tuple

Attrs = Dict[str, Any]


class StubError(Exception):
    """An error with a botocore-like ``response``."""

    def __init__(
        self,
        code: str,
        reasons: Optional[List[Dict[str, Any]]] = None,
        item: Optional[Attrs] = None,
        retries: int = 0,
    ) -> None:
        super().__init__(code)
        self.response: Dict[str, Any] = {"Error": {"Code": code, "Message": code}}
        if reasons is not None:
            self.response["CancellationReasons"] = reasons
        if item is not None:
            self.response["Item"] = item
        self.response["ResponseMetadata"] = {"RetryAttempts": retries}


def to_json_body(value: Any) -> Any:
    """A request body as DynamoDB's JSON protocol has it: binary values in base64."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        return {k: to_json_body(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_json_body(v) for v in value]
    return value


class StubDynamoDB:
    """One table's records by ``(pk, sk)``, and the requests sent, as (operation, body)."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.records: Dict[Tuple[bytes, bytes], Attrs] = {}
        self.requests: List[Tuple[str, Dict[str, Any]]] = []
        self.page_size: Optional[int] = None  # DynamoDB's own page break, for tests
        # How many of the next writes are applied and then answered as DynamoDB answers the
        # same request sent again (botocore's retry after a lost answer): each condition
        # fails against the record the write left (returned, as with ALL_OLD).
        self.lost_answers = 0
        # The retries botocore reports (ResponseMetadata.RetryAttempts) in such an answer:
        # 1, a retry; 0 makes it what a write meets when another writer wrote the same
        # record first.
        self.lost_answer_retries = 1
        self.description: Dict[str, Any] = {
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "B"},
                {"AttributeName": "sk", "AttributeType": "B"},
            ],
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
        }

    def keep(self, index: str, n: int, keys_only: bool = False) -> None:
        """Describes the table with the GSI ``kp_<index>`` on ``gp<n>``/``gs<n>``; its
        items are the records that have those attributes (the stand-in does not copy)."""
        pk, sk = f"gp{n}", f"gs{n}"
        self.description["AttributeDefinitions"] += [
            {"AttributeName": pk, "AttributeType": "B"},
            {"AttributeName": sk, "AttributeType": "B"},
        ]
        self.description.setdefault("GlobalSecondaryIndexes", []).append(
            {
                "IndexName": f"kp_{index}",
                "KeySchema": [
                    {"AttributeName": pk, "KeyType": "HASH"},
                    {"AttributeName": sk, "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY" if keys_only else "ALL"},
            }
        )

    def _log(self, op: str, body: Dict[str, Any]) -> None:
        self.requests.append((op, copy.deepcopy(body)))

    def operations(self) -> List[str]:
        return [op for op, _ in self.requests]

    @staticmethod
    def _key(key: Attrs) -> Tuple[bytes, bytes]:
        return bytes(key["pk"]["B"]), bytes(key["sk"]["B"])

    def _check(self, body: Dict[str, Any], key: Tuple[bytes, bytes]) -> bool:
        condition = body.get("ConditionExpression")
        current = self.records.get(key)
        if condition is None:
            return True
        if condition == "attribute_not_exists(pk)":
            return current is None
        if condition == "ver = :kp_ver":
            want = body["ExpressionAttributeValues"][":kp_ver"]["N"]
            return current is not None and int(current["ver"]["N"]) == int(want)
        raise AssertionError(f"unexpected condition {condition}")

    def get_item(self, **body: Any) -> Dict[str, Any]:
        self._log("GetItem", body)
        found = self.records.get(self._key(body["Key"]))
        return {} if found is None else {"Item": copy.deepcopy(found)}

    def batch_get_item(self, **body: Any) -> Dict[str, Any]:
        self._log("BatchGetItem", body)
        ((table, request),) = body["RequestItems"].items()
        assert table == self.table and request["ConsistentRead"] in (True, False)
        assert len(request["Keys"]) <= 100
        keys = [self._key(k) for k in request["Keys"]]
        assert len(set(keys)) == len(keys), "BatchGetItem refuses duplicate keys"
        found = [copy.deepcopy(self.records[k]) for k in keys if k in self.records]
        return {"Responses": {table: found}, "UnprocessedKeys": {}}

    def _resent(self, operation: str, body: Dict[str, Any]) -> None:
        """Raises what a write applied already gets when it is sent again, if asked to."""
        if self.lost_answers == 0:
            return
        self.lost_answers -= 1

        def current(key: Attrs) -> Optional[Attrs]:
            found = self.records.get(self._key(key))
            return None if found is None else copy.deepcopy(found)

        retries = self.lost_answer_retries
        if operation == "PutItem":
            raise StubError("ConditionalCheckFailedException", item=current(body["Item"]), retries=retries)
        if operation == "DeleteItem":
            raise StubError("ConditionalCheckFailedException", item=current(body["Key"]), retries=retries)
        reasons = []
        for m in body["TransactItems"]:
            ((kind, inner),) = m.items()
            if "ConditionExpression" not in inner:
                reasons.append({"Code": "None"})
                continue
            found = current(inner["Item"] if kind == "Put" else inner["Key"])
            reason: Dict[str, Any] = {"Code": "ConditionalCheckFailed"}
            if found is not None:
                reason["Item"] = found
            reasons.append(reason)
        raise StubError("TransactionCanceledException", reasons, retries=retries)

    def put_item(self, **body: Any) -> Dict[str, Any]:
        self._log("PutItem", body)
        key = self._key(body["Item"])
        if not self._check(body, key):
            raise StubError("ConditionalCheckFailedException")
        self.records[key] = copy.deepcopy(body["Item"])
        self._resent("PutItem", body)
        return {}

    def delete_item(self, **body: Any) -> Dict[str, Any]:
        self._log("DeleteItem", body)
        key = self._key(body["Key"])
        if not self._check(body, key):
            raise StubError("ConditionalCheckFailedException")
        self.records.pop(key, None)
        self._resent("DeleteItem", body)
        return {}

    def transact_write_items(self, **body: Any) -> Dict[str, Any]:
        self._log("TransactWriteItems", body)
        members = body["TransactItems"]
        assert 2 <= len(members) <= 100
        reasons = []
        for m in members:
            ((kind, inner),) = m.items()
            key = self._key(inner["Item"] if kind == "Put" else inner["Key"])
            reasons.append({"Code": "None" if self._check(inner, key) else "ConditionalCheckFailed"})
        if any(r["Code"] != "None" for r in reasons):
            raise StubError("TransactionCanceledException", reasons)
        for m in members:
            ((kind, inner),) = m.items()
            if kind == "Put":
                self.records[self._key(inner["Item"])] = copy.deepcopy(inner["Item"])
            else:
                self.records.pop(self._key(inner["Key"]), None)
        self._resent("TransactWriteItems", body)
        return {}

    def query(self, **body: Any) -> Dict[str, Any]:
        self._log("Query", body)
        values = body["ExpressionAttributeValues"]
        group = bytes(values[":g"]["B"])
        condition = body["KeyConditionExpression"]
        m = re.fullmatch(r"(\w+) = :g(?: AND (\w+) (?:(BETWEEN) :lo AND :hi|(>=|>|<=|<) :(lo|hi)))?", condition)
        assert m, condition
        pk_name, sk_name, between, op, name = m.groups()
        if body.get("IndexName") is None:
            assert (pk_name, sk_name or "sk") == ("pk", "sk")
        else:
            assert body["ConsistentRead"] is False, "a GSI reads only eventually consistent"
        tests: List[Callable[[bytes], bool]] = []
        if between:
            lo, hi = bytes(values[":lo"]["B"]), bytes(values[":hi"]["B"])
            tests.append(lambda s: lo <= s <= hi)
        elif op:
            b = bytes(values[f":{name}"]["B"])
            compare: Dict[str, Callable[[bytes], bool]] = {
                ">=": lambda s: s >= b,
                ">": lambda s: s > b,
                "<=": lambda s: s <= b,
                "<": lambda s: s < b,
            }
            tests.append(compare[op])
        sk_name = sk_name or "sk"
        forward = body["ScanIndexForward"]
        rows = sorted(
            (
                (bytes(r[sk_name]["B"]), r)
                for r in self.records.values()
                if pk_name in r and sk_name in r and bytes(r[pk_name]["B"]) == group
                and all(t(bytes(r[sk_name]["B"])) for t in tests)
            ),
            key=lambda row: row[0],
            reverse=not forward,
        )
        start = body.get("ExclusiveStartKey")
        if start is not None:
            at = bytes(start[sk_name]["B"])
            rows = [row for row in rows if (row[0] > at if forward else row[0] < at)]
        limit = body.get("Limit")
        if self.page_size is not None:
            limit = self.page_size if limit is None else min(limit, self.page_size)
        out: Dict[str, Any] = {}
        if limit is not None and len(rows) >= limit and rows:
            rows = rows[:limit]
            last = rows[-1][1]
            out["LastEvaluatedKey"] = {k: last[k] for k in {"pk", "sk", pk_name, sk_name}}
        out["Items"] = [copy.deepcopy(r) for _, r in rows]
        return out

    def scan(self, **body: Any) -> Dict[str, Any]:
        self._log("Scan", body)
        assert body.get("ProjectionExpression") == "pk"
        keys = sorted(self.records)
        start = body.get("ExclusiveStartKey")
        if start is not None:
            keys = [k for k in keys if k > self._key(start)]
        out: Dict[str, Any] = {}
        if self.page_size is not None and len(keys) > self.page_size:
            keys = keys[: self.page_size]
            out["LastEvaluatedKey"] = {"pk": {"B": keys[-1][0]}, "sk": {"B": keys[-1][1]}}
        out["Items"] = [{"pk": {"B": pk}} for pk, _ in keys]
        return out

    def describe_table(self, **body: Any) -> Dict[str, Any]:
        self._log("DescribeTable", body)
        return {"Table": copy.deepcopy(self.description)}
