//! The index definitions the CLI declares and the store configuration they make.

use serde::{Deserialize, Serialize};
use sortpath::KeyPath;
use sortpath_store::{ConfigError, IndexDecl, IndexSource, RootPlace, StoreConfig};

use super::failure::{bad, failure_text};
use crate::Failure;

/// A secondary index declared for the CLI's JSON items.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct IndexDef {
    pub(super) name: String,
    /// The item type whose items the index takes (as stored in each item's header, which
    /// need not be its key's last namespace).
    pub(super) item_type: String,
    pub(super) field: String,
    pub(super) group: IndexGroup,
}

impl IndexDef {
    /// The item type whose items the index takes.
    #[cfg(feature = "dynamodb")]
    pub(crate) fn item_type(&self) -> &str {
        &self.item_type
    }

    /// The declaration in the store's configuration.
    fn to_decl(&self) -> IndexDecl {
        IndexDecl::field(
            &self.name,
            &self.item_type,
            &self.field,
            &self.group.to_string(),
        )
    }
}

/// The group of an index's entries: one component, with a fixed ID (`/board-1`) or the ID
/// taken from a field of the item (`/board-{board}`). Kept in the configuration as that text.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(try_from = "String", into = "String")]
pub(crate) enum IndexGroup {
    Fixed(KeyPath),
    FromField { namespace: String, field: String },
}

impl std::str::FromStr for IndexGroup {
    type Err = String;

    fn from_str(text: &str) -> Result<IndexGroup, String> {
        let one = "GROUP must be one component with an ID, such as /board-1 or /board-{board}";
        if let Some((namespace, field)) = text
            .strip_prefix('/')
            .and_then(|t| t.strip_suffix('}'))
            .and_then(|t| t.split_once("-{"))
            .filter(|(namespace, _)| !namespace.contains('/'))
        {
            KeyPath::new()
                .push_namespace(namespace)
                .map_err(|e| format!("bad GROUP namespace: {e}"))?;
            KeyPath::new()
                .push_namespace(field)
                .map_err(|e| format!("bad GROUP field {{{field}}}: {e}"))?;
            return Ok(IndexGroup::FromField {
                namespace: namespace.to_owned(),
                field: field.to_owned(),
            });
        }
        if let Some((_, id)) = text.split_once('-') {
            if id.starts_with('{') {
                return Err(format!(
                    "GROUP {text:?} has an unbalanced '{{': write /NAMESPACE-{{FIELD}} to take the \
                     ID from a field, or %7B for a literal '{{'"
                ));
            }
        }
        let group: KeyPath = text.parse().map_err(|e| format!("bad GROUP: {e}"))?;
        if group.len() != 1
            || group
                .segments()
                .next()
                .is_none_or(|c| c.id_type().is_none())
        {
            return Err(one.to_owned());
        }
        Ok(IndexGroup::Fixed(group))
    }
}

impl std::fmt::Display for IndexGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexGroup::Fixed(path) => {
                // A string ID printed as `{...}` would read back as a field, and one that only
                // starts with '{' is refused as unbalanced: escape its '{'.
                let text = path.to_string();
                match text.split_once("-{") {
                    Some((namespace, rest)) => write!(f, "{namespace}-%7B{rest}"),
                    None => f.write_str(&text),
                }
            }
            IndexGroup::FromField { namespace, field } => write!(f, "/{namespace}-{{{field}}}"),
        }
    }
}

impl TryFrom<String> for IndexGroup {
    type Error = String;

    fn try_from(text: String) -> Result<IndexGroup, String> {
        text.parse()
    }
}

impl From<IndexGroup> for String {
    fn from(group: IndexGroup) -> String {
        group.to_string()
    }
}

/// A store's configuration as the CLI uses it: the store's record, with its field indexes
/// read into definitions the CLI can compute.
#[derive(Debug, Default, Clone)]
pub(crate) struct Config {
    pub(crate) indexes: Vec<IndexDef>,
    /// The record as read (program indexes included).
    pub(crate) store: StoreConfig,
}

impl Config {
    /// A new store's configuration with the field indexes `indexes`.
    pub(crate) fn new(indexes: Vec<IndexDef>) -> Config {
        let store = StoreConfig::new(indexes.iter().map(IndexDef::to_decl).collect());
        Config { indexes, store }
    }

    /// This configuration with group version counters kept or not.
    pub(crate) fn with_group_versions(mut self, on: bool) -> Config {
        self.store = self.store.with_group_versions(on);
        self
    }

    /// This configuration with the root places `roots` (`NAMESPACE=PLACE` each, as
    /// `init --root` takes them).
    pub(crate) fn with_roots(mut self, roots: &[String]) -> Result<Config, Failure> {
        for text in roots {
            let wrong = |why: String| {
                bad(format!(
                    "--root {text:?}: {why}; expected NAMESPACE=PLACE with PLACE first, last \
                     or before:NAMESPACE, e.g. customer=last or org=before:user"
                ))
            };
            let (namespace, place) = text
                .split_once('=')
                .ok_or_else(|| wrong("no '='".to_owned()))?;
            let place: RootPlace = place
                .parse()
                .map_err(|e: ConfigError| wrong(e.to_string()))?;
            if self.store.roots.contains_key(namespace) {
                return Err(wrong(format!("namespace {namespace} is placed twice")));
            }
            self.store = self.store.with_root(namespace, place);
            self.store.validate().map_err(|e| wrong(e.to_string()))?;
        }
        Ok(self)
    }

    /// Reads a store's record; an index the CLI cannot read is an error naming it.
    pub(crate) fn from_store(store: StoreConfig) -> Result<Config, Failure> {
        let mut indexes = Vec::new();
        for decl in &store.indexes {
            if let IndexSource::Field { field, group } = &decl.source {
                let text = format!("{}={}.{}@{}", decl.name, decl.item_type, field, group);
                indexes.push(parse_index_def(&text).map_err(|e| {
                    Failure::Store(format!(
                        "the store declares index {} in a form this release cannot read: {}",
                        decl.name,
                        failure_text(e)
                    ))
                })?);
            }
        }
        Ok(Config { indexes, store })
    }

    /// Every declared index name (field and program ones), for `index NAME`.
    pub(super) fn index_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.store.indexes.iter().map(|d| d.name.as_str()).collect();
        names.dedup();
        names
    }

    /// The definitions as `init --index` takes them, for messages.
    pub(crate) fn describe(&self) -> Vec<String> {
        self.store
            .indexes
            .iter()
            .map(|d| match &d.source {
                IndexSource::Field { field, group } => {
                    format!("{}={}.{}@{}", d.name, d.item_type, field, group)
                }
                _ => format!("{} (type {}, computed by a program)", d.name, d.item_type),
            })
            .collect()
    }
}

pub(crate) fn parse_index_def(text: &str) -> Result<IndexDef, Failure> {
    let err = |why: &str| {
        bad(format!("--index {text:?}: {why}; expected NAME=NAMESPACE.FIELD@GROUP, e.g. by_updated=ticket.updated_at@/board-1"))
    };
    let (name, rest) = text.split_once('=').ok_or_else(|| err("no '='"))?;
    let (target, group) = rest.split_once('@').ok_or_else(|| err("no '@'"))?;
    let (namespace, field) = target.split_once('.').ok_or_else(|| err("no '.'"))?;
    let group: IndexGroup = group.parse().map_err(|e: String| err(&e))?;
    // Namespace and field must be valid namespaces: check by building a path.
    KeyPath::new()
        .push_namespace(namespace)
        .map_err(|e| err(&format!("bad NAMESPACE: {e}")))?;
    KeyPath::new()
        .push_namespace(field)
        .map_err(|e| err(&format!("bad FIELD: {e}")))?;
    if name.is_empty()
        || name.len() > 64
        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Err(err("NAME must be 1 to 64 ASCII letters, digits or '_'"));
    }
    Ok(IndexDef {
        name: name.to_owned(),
        item_type: namespace.to_owned(),
        field: field.to_owned(),
        group,
    })
}

/// Parses the `--index` definitions of `init` or `create-table`; two with one name are an
/// error (an item could not be written with both).
pub(crate) fn parse_index_defs(texts: &[String]) -> Result<Vec<IndexDef>, Failure> {
    let mut defs: Vec<IndexDef> = Vec::with_capacity(texts.len());
    for text in texts {
        let def = parse_index_def(text)?;
        if defs.iter().any(|d| d.name == def.name) {
            return Err(bad(format!(
                "--index {text:?}: index {} is defined twice; each index needs its own name",
                def.name
            )));
        }
        defs.push(def);
    }
    Ok(defs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_groups_read_back_from_their_text() {
        for text in [
            "/board-1",
            "/board--7",
            "/board-{board}",
            "/g-%7Bg}",
            "/g-%7B",
            "/g-a{b}",
            "/g-abc",
            "/g-4c9d36e5-6b19-4e6a-828c-226ed667458a",
        ] {
            let group: IndexGroup = text.parse().unwrap();
            let printed = group.to_string();
            assert_eq!(printed.parse::<IndexGroup>(), Ok(group.clone()), "{text}");
            let json = serde_json::to_string(&group).unwrap();
            assert_eq!(serde_json::from_str::<IndexGroup>(&json).unwrap(), group);
        }
        assert!(matches!(
            "/g-{g}".parse::<IndexGroup>(),
            Ok(IndexGroup::FromField { .. })
        ));
        assert!(matches!(
            "/g-%7Bg}".parse::<IndexGroup>(),
            Ok(IndexGroup::Fixed(_))
        ));
    }
}
