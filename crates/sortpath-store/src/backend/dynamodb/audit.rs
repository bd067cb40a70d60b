//! The GSI key attributes as stored, for the consistency check
//! ([`Backend::maintained_index_keys`](crate::backend::Backend::maintained_index_keys)): a
//! read of a record does not show them, and an item whose header keeps an index key path
//! but lacks them reads whole while the GSI never lists it.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::attrs::{self, PK, SK};
use super::{sdk_error, DynamoDbBackend};
use crate::backend::{BackendError, Key, MaintainedKey, MaintainedKeys};

impl DynamoDbBackend {
    /// Every item of the table that has a key attribute of one of the kept GSIs, with those
    /// attributes: one strongly consistent `Scan` of the whole table (paged), projecting the
    /// primary key and the GSI key attributes. `None` when the backend keeps no GSI.
    pub(crate) async fn stored_gsi_keys(&self) -> Result<Option<MaintainedKeys>, BackendError> {
        if self.kept.is_empty() {
            return Ok(None);
        }
        // Placeholders for every name: a key schema may name attributes with reserved words.
        let mut names = HashMap::from([
            ("#p".to_owned(), PK.to_owned()),
            ("#s".to_owned(), SK.to_owned()),
        ]);
        let mut projection = vec!["#p".to_owned(), "#s".to_owned()];
        for (i, index) in self.kept.iter().enumerate() {
            for (j, attribute) in [&index.pk, &index.sk].into_iter().enumerate() {
                let placeholder = format!("#k{i}_{j}");
                names.insert(placeholder.clone(), attribute.clone());
                projection.push(placeholder);
            }
        }
        let projection = projection.join(", ");
        let mut found = MaintainedKeys::new();
        let mut start: Option<HashMap<String, AttributeValue>> = None;
        loop {
            let out = self
                .client
                .scan()
                .table_name(self.table.as_ref())
                .projection_expression(&projection)
                .set_expression_attribute_names(Some(names.clone()))
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| sdk_error("Scan", e))?;
            for item in out.items() {
                let keys = self.gsi_keys_of(item);
                if keys.is_empty() {
                    continue;
                }
                let group = match item.get(PK) {
                    Some(AttributeValue::B(g)) => g.as_ref().to_vec(),
                    _ => return Err(BackendError::storage("Scan: item without binary pk")),
                };
                found.insert(Key::new(group, attrs::sort_key(item)?), keys);
            }
            match out.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => return Ok(Some(found)),
            }
        }
    }

    /// The GSI key attributes `item` has, per kept GSI that it has any of. A key attribute
    /// of another type than B counts as absent (DynamoDB refuses to store one, as the GSI
    /// key's type is B).
    fn gsi_keys_of(&self, item: &HashMap<String, AttributeValue>) -> Vec<MaintainedKey> {
        let blob = |name: &str| match item.get(name) {
            Some(AttributeValue::B(b)) => Some(b.as_ref().to_vec()),
            _ => None,
        };
        self.kept
            .iter()
            .filter(|k| item.contains_key(&k.pk) || item.contains_key(&k.sk))
            .map(|k| MaintainedKey {
                index: k.name.clone(),
                attributes: (k.pk.clone(), k.sk.clone()),
                partition: blob(&k.pk),
                sort: blob(&k.sk),
            })
            .collect()
    }
}
