//! The store on DynamoDB: orders keyed by customer, an exact secondary index by status and
//! total, paging with a cursor, and conditional writes refused with a typed error. Runs
//! against DynamoDB Local (or real DynamoDB) on one table the program creates.
//!
//! Start DynamoDB Local on port 8000, with Docker or with Java 17 and the jar that the npm
//! package `amplify-dynamodb-simulator` ships (the one the DynamoDB tests install), then run:
//!
//! ```sh
//! docker run --rm -p 8000:8000 amazon/dynamodb-local
//! # or: npm install --prefix /tmp/ddb amplify-dynamodb-simulator@2.9.30
//! #     cd /tmp/ddb/node_modules/amplify-dynamodb-simulator/emulator
//! #     java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar -inMemory -port 8000
//! cargo run --release -p sortpath-store --features dynamodb --example dynamodb_local -- orders
//! ```
//!
//! `DYNAMODB_ENDPOINT` (default `http://localhost:8000`) says where the server listens; the
//! argument names the table (default `sortpath-example`), created on the first run and reused
//! after. Against DynamoDB Local, dummy credentials and `us-east-1` are used unless the
//! environment sets others. Set `DYNAMODB_ENDPOINT=` (empty) for real DynamoDB: region and
//! credentials then come from the AWS SDK's usual chain (`AWS_REGION`, `AWS_ACCESS_KEY_ID` /
//! `AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE` and `~/.aws/config`, SSO, an instance role).

use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::dynamodb::{client, DynamoDbBackend, OpenError, RequestCounter};
use sortpath_store::{Index, Item, PutMode, Query, Store, WriteError};

/// An order, at `/customer-{customer}/order-{id}`: one customer's orders are one item
/// collection (one DynamoDB partition), in order ID order (numbers sort as numbers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Order {
    customer: u64,
    id: u64,
    status: String,
    total_cents: i64,
}

impl Item for Order {
    const TYPE: &'static str = "order";
    // An exact index: its entry `/status-{status}/total-{total}/order-{id}` is written in the
    // same DynamoDB transaction as the order, so a query right after a write sees it.
    const INDEXES: &'static [Index<Self>] = &[Index::new("by_status", |o: &Order| {
        Ok(Some(
            KeyPath::new()
                .push("status", o.status.as_str())?
                .push("total", o.total_cents)?
                .push("order", o.id)?,
        ))
    })];

    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("customer", self.customer)?
            .push("order", self.id)
    }
}

/// Everything the program does against `endpoint` (`None`: AWS's own) and `table`; returns
/// the lines it prints.
async fn run(
    endpoint: Option<&str>,
    table: &str,
) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    // 1. An SDK client; the counter counts the HTTP requests it sends, per operation.
    let counter = RequestCounter::default();
    let sdk = client(endpoint, Some(&counter)).await;
    // 2. The table: `pk` and `sk` binary keys, on-demand capacity, created if missing.
    let backend = match DynamoDbBackend::open(sdk.clone(), table).await {
        Err(OpenError::Missing { .. }) => DynamoDbBackend::create_table(sdk, table).await?,
        opened => opened?,
    };
    let store = Store::new(backend);
    counter.take();

    // 3. Writes: each put stores the order and its index entry atomically.
    for (customer, id, status, total_cents) in [
        (1, 100, "open", 12_000),
        (1, 9, "shipped", 2_500),
        (1, 42, "open", 900),
        (2, 7, "open", 1_500),
    ] {
        let status = status.to_owned();
        let order = Order {
            customer,
            id,
            status,
            total_cents,
        };
        store.put(&order).await?;
    }

    // 4. One item by its key path, with its version.
    let got = store.get::<Order>(&"/customer-1/order-42".parse()?).await?;
    let got = got.ok_or("order 42 was just written")?;
    out.push(format!("get {}: {:?}", got.key, got.item));

    // 5. A customer's orders, two per page: each full page has a cursor to the next.
    let mut query = Query::children(&"/customer-1".parse()?, "order")?.limit(2);
    loop {
        let page = store.list::<Order>(&query).await?;
        let ids: Vec<u64> = page.items.iter().map(|o| o.item.id).collect();
        out.push(format!("orders of customer 1, a page: {ids:?}"));
        match page.cursor {
            Some(cursor) => query = query.after(cursor),
            None => break,
        }
    }

    // 6. The index: open orders of every customer, smallest total first (900 before 1,500
    //    before 12,000, where string keys would give "12000" < "1500" < "900").
    let open = Query::prefix(&"/status-open".parse()?)?;
    let page = store.query_index::<Order>("by_status", &open).await?;
    let found: Vec<_> = page
        .items
        .iter()
        .map(|o| (o.item.id, o.item.total_cents))
        .collect();
    out.push(format!("open orders by total (order, cents): {found:?}"));

    // 7. Conditional writes. Insert-only: order 42 exists, so the put is refused.
    match store.put_with(&got.item, PutMode::IfAbsent).await {
        Err(WriteError::AlreadyExists { key }) => {
            out.push(format!("insert-only put refused: {key} exists"))
        }
        other => return Err(format!("expected AlreadyExists, got {other:?}").into()),
    }
    // Optimistic concurrency: ship order 42 only if it is still the version read in step 4.
    let shipped = Order {
        status: "shipped".into(),
        ..got.item.clone()
    };
    store
        .put_with(&shipped, PutMode::IfVersion(got.version))
        .await?;
    out.push("order 42 shipped at the version read".to_owned());
    // A second writer holding the same old version is refused: the item moved on.
    match store
        .put_with(&shipped, PutMode::IfVersion(got.version))
        .await
    {
        Err(WriteError::VersionMismatch {
            key,
            found: Some(_),
            ..
        }) => out.push(format!(
            "stale-version put refused: {key} changed since it was read"
        )),
        other => return Err(format!("expected VersionMismatch, got {other:?}").into()),
    }
    // The index followed the status change in the same write.
    let page = store.query_index::<Order>("by_status", &open).await?;
    let ids: Vec<u64> = page.items.iter().map(|o| o.item.id).collect();
    out.push(format!("open orders after shipping 42: {ids:?}"));

    // 8. What it cost: DynamoDB requests per operation (steps 3 to 7).
    out.push(format!("DynamoDB requests: {:?}", counter.take()));
    Ok(out)
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let endpoint = std::env::var("DYNAMODB_ENDPOINT").unwrap_or("http://localhost:8000".into());
    let table = std::env::args().nth(1).unwrap_or("sortpath-example".into());
    let endpoint = Some(endpoint.as_str()).filter(|e| !e.is_empty());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    // An error prints its message: what failed, on which table, and why.
    match rt.block_on(run(endpoint, &table)) {
        Ok(lines) => lines.iter().for_each(|line| println!("{line}")),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
    Ok(())
}

// The test starts DynamoDB Local as the store's DynamoDB tests do (installing it on first use).
#[cfg(test)]
#[path = "../tests/dynamodb_server/mod.rs"]
mod dynamodb_server;

#[cfg(test)]
mod tests {
    use super::dynamodb_server;

    #[tokio::test(flavor = "multi_thread")]
    async fn prints_the_items_pages_index_order_and_refusals() {
        let server = dynamodb_server::server().await;
        let table = dynamodb_server::table_name("example");
        // Twice on one table: the second run opens the table the first created, and prints
        // the same (the writes put every order back as it was).
        for run in 0..2 {
            let lines = super::run(Some(&server.endpoint), &table).await.unwrap();
            let (requests, lines) = lines.split_last().unwrap();
            assert_eq!(
                lines,
                [
                    r#"get /customer-1/order-42: Order { customer: 1, id: 42, status: "open", total_cents: 900 }"#,
                    "orders of customer 1, a page: [9, 42]",
                    "orders of customer 1, a page: [100]",
                    "open orders by total (order, cents): [(42, 900), (7, 1500), (100, 12000)]",
                    "insert-only put refused: /customer-1/order-42 exists",
                    "order 42 shipped at the version read",
                    "stale-version put refused: /customer-1/order-42 changed since it was read",
                    "open orders after shipping 42: [7, 100]",
                ],
                "run {run} on {}",
                server.kind
            );
            assert!(requests.starts_with("DynamoDB requests: {"), "{requests}");
        }
    }
}
