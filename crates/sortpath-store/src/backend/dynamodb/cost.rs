//! What the requests a [`DynamoDbBackend`](super::DynamoDbBackend) sends cost, by AWS's
//! published capacity rules (on-demand mode), counted from the requests themselves rather
//! than from the server's `ConsumedCapacity` (DynamoDB Local reports a flat figure for
//! transactions and nothing for absent keys).
//!
//! The rules applied, per successful request:
//! - `PutItem`: one write unit per KB (1,024 bytes, rounded up) of the item written;
//!   `DeleteItem`: one write unit (exact for items up to 1 KB: the deleted item's size is
//!   not in the request).
//! - `TransactWriteItems`: two write units per KB of each item put, two for each delete
//!   and each condition check (again exact up to 1 KB).
//! - `GetItem`, and each key of a `BatchGetItem`: one read unit per 4 KB (rounded up) of
//!   the item, at least one, absent keys included; half that when eventually consistent.
//! - `Query`: one read unit per 4 KB of the sum of the items returned by each page
//!   (rounded up once per page), at least one; half that when eventually consistent.
//! - Price: $0.625 per million write units and $0.125 per million read units
//!   ([`WRITE_PRICE`], [`READ_PRICE`]).
//!
//! Item sizes are DynamoDB's: attribute names plus values, numbers at one byte per two
//! digits plus one (taken here as the digits plus one, an upper bound).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::types::AttributeValue;

/// US dollars per million on-demand write request units.
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::cost::WRITE_PRICE, 0.625);
/// ```
pub const WRITE_PRICE: f64 = 0.625;
/// US dollars per million on-demand read request units.
///
/// ```
/// assert_eq!(sortpath_store::backend::dynamodb::cost::READ_PRICE, 0.125);
/// ```
pub const READ_PRICE: f64 = 0.125;

/// Requests, write units and read units: the cost of some requests.
///
/// ```
/// use sortpath_store::backend::dynamodb::cost::Cost;
/// let c = Cost { requests: 1, write_units: 2.0, read_units: 1.0 };
/// assert_eq!(c.dollars_per_million(), 1.375);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    /// Requests sent.
    pub requests: u64,
    /// Write request units.
    pub write_units: f64,
    /// Read request units.
    pub read_units: f64,
}

impl Cost {
    /// US dollars per million of these requests, on-demand.
    ///
    /// ```
    /// use sortpath_store::backend::dynamodb::cost::Cost;
    /// assert_eq!(Cost { requests: 1, write_units: 1.0, read_units: 0.0 }.dollars_per_million(), 0.625);
    /// ```
    pub fn dollars_per_million(&self) -> f64 {
        self.write_units * WRITE_PRICE + self.read_units * READ_PRICE
    }
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, o: Cost) -> Cost {
        Cost {
            requests: self.requests + o.requests,
            write_units: self.write_units + o.write_units,
            read_units: self.read_units + o.read_units,
        }
    }
}

/// One request sent, with its cost (what [`CostMeter::take`] returns).
///
/// ```
/// let meter = sortpath_store::backend::dynamodb::cost::CostMeter::default();
/// let sent: Vec<sortpath_store::backend::dynamodb::cost::Sent> = meter.take();
/// assert!(sent.iter().all(|s| s.cost.requests == 1));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Sent {
    /// The DynamoDB operation (`"PutItem"`, `"Query"`, ...).
    pub operation: &'static str,
    /// Its cost (one request).
    pub cost: Cost,
}

/// Records what each request a backend sends costs (see the module documentation); attach
/// it with [`DynamoDbBackend::metered`](super::DynamoDbBackend::metered).
///
/// ```
/// use sortpath_store::backend::dynamodb::cost::CostMeter;
/// let meter = CostMeter::default();
/// assert_eq!(meter.take().len(), 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct CostMeter {
    sent: Arc<Mutex<Vec<Sent>>>,
}

impl CostMeter {
    /// The requests recorded since the last `take`, in order, and forgets them.
    ///
    /// ```
    /// let meter = sortpath_store::backend::dynamodb::cost::CostMeter::default();
    /// assert!(meter.take().is_empty());
    /// ```
    pub fn take(&self) -> Vec<Sent> {
        std::mem::take(&mut *self.sent.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The total cost of the requests recorded since the last `take`, and forgets them.
    ///
    /// ```
    /// let meter = sortpath_store::backend::dynamodb::cost::CostMeter::default();
    /// assert_eq!(meter.take_total().requests, 0);
    /// ```
    pub fn take_total(&self) -> Cost {
        self.take()
            .into_iter()
            .fold(Cost::default(), |a, s| a + s.cost)
    }

    /// Records units that no request of their own stands for (a GSI's writes).
    pub(crate) fn record_units(&self, operation: &'static str, write_units: f64, read_units: f64) {
        let cost = Cost {
            requests: 0,
            write_units,
            read_units,
        };
        self.sent
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Sent { operation, cost });
    }

    pub(crate) fn record(&self, operation: &'static str, write_units: f64, read_units: f64) {
        let cost = Cost {
            requests: 1,
            write_units,
            read_units,
        };
        self.sent
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Sent { operation, cost });
    }
}

/// Write units of writing an item of `size` bytes outside a transaction (1 per KB).
///
/// ```
/// use sortpath_store::backend::dynamodb::cost::write_units;
/// assert_eq!((write_units(1), write_units(1024), write_units(1025)), (1.0, 1.0, 2.0));
/// ```
pub fn write_units(size: usize) -> f64 {
    size.max(1).div_ceil(1024) as f64
}

/// Read units of reading `bytes` bytes in one item or one query page (1 per 4 KB, at least
/// 1; half when eventually consistent).
///
/// ```
/// use sortpath_store::backend::dynamodb::cost::read_units;
/// assert_eq!(read_units(0, true), 1.0);
/// assert_eq!(read_units(4097, true), 2.0);
/// assert_eq!(read_units(4097, false), 1.0);
/// ```
pub fn read_units(bytes: usize, consistent: bool) -> f64 {
    let units = bytes.max(1).div_ceil(4096) as f64;
    if consistent {
        units
    } else {
        units / 2.0
    }
}

/// DynamoDB's billed size of an item by its documented rule: attribute names plus values,
/// a number one byte per two significant digits (leading and trailing zeros trimmed) plus
/// one.
///
/// ```
/// use std::collections::HashMap;
/// use aws_sdk_dynamodb::types::AttributeValue;
/// let item = HashMap::from([("pk".to_owned(), AttributeValue::S("USER#1".into()))]);
/// assert_eq!(sortpath_store::backend::dynamodb::cost::item_size(&item), 8);
/// // `1700000005`: 10 significant digits, 5 bytes, plus 1; `-1200`: "12", 1 + 1 + 1 (sign).
/// let n = |v: &str| HashMap::from([("n".to_owned(), AttributeValue::N(v.into()))]);
/// assert_eq!(sortpath_store::backend::dynamodb::cost::item_size(&n("1700000005")), 1 + 6);
/// assert_eq!(sortpath_store::backend::dynamodb::cost::item_size(&n("-1200")), 1 + 3);
/// ```
pub fn item_size(item: &HashMap<String, AttributeValue>) -> usize {
    super::attrs::billed_size(item)
}
