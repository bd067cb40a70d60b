//! The public surface of one crate, from its rustdoc JSON, as sorted lines.
//!
//! Every line is `PATH  DECLARATION`: the public path an item is reached at, two spaces,
//! then the item as its declaration reads (its name, generics, signature, fields,
//! `#[non_exhaustive]` and `#[deprecated]` markers). Members (fields, variants, methods,
//! trait items) have a line of their own under `Type::member`; a type's trait impls are
//! lines under the type's path (`impl Trait for Type`), and a local trait's impls for
//! foreign types are lines under the trait's path.
//!
//! An item reachable at several paths (a `pub use` beside its definition) is described in
//! full once, at its canonical path: the path it is defined at when that module is public,
//! else the shortest public path. Each other path has one line `pub use CANONICAL`. Types
//! named inside signatures are written with the same canonical paths, foreign ones with
//! the path rustdoc records for them (`alloc::vec::Vec`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rustdoc_types::{
    Abi, AssocItemConstraint, AssocItemConstraintKind, Attribute, Crate, FunctionHeader,
    FunctionPointer, FunctionSignature, GenericArg, GenericArgs, GenericBound, GenericParamDef,
    GenericParamDefKind, Generics, Id, Impl, Item, ItemEnum, Path, PreciseCapturingArg, StructKind,
    Term, TraitBoundModifier, Type, VariantKind, Visibility, WherePredicate,
};

/// Renders the public surface of `krate` as sorted, unique lines (no trailing newline on
/// any line).
///
/// ```
/// // The rustdoc JSON of a crate `demo` holding `pub const ANSWER: u8 = 42;`.
/// let json = format!(
///     r#"{{"root": 0, "crate_version": null, "includes_private": false,
///         "index": {{
///           "0": {{"id": 0, "crate_id": 0, "name": "demo", "span": null,
///                  "visibility": "public", "docs": null, "links": {{}}, "attrs": [],
///                  "deprecation": null,
///                  "inner": {{"module": {{"is_crate": true, "items": [1], "is_stripped": false}}}}}},
///           "1": {{"id": 1, "crate_id": 0, "name": "ANSWER", "span": null,
///                  "visibility": "public", "docs": null, "links": {{}}, "attrs": [],
///                  "deprecation": null,
///                  "inner": {{"constant": {{"type": {{"primitive": "u8"}},
///                            "const": {{"expr": "42", "value": "42u8", "is_literal": true}}}}}}}}
///         }},
///         "paths": {{}}, "external_crates": {{}},
///         "target": {{"triple": "x86_64-unknown-linux-gnu", "target_features": []}},
///         "format_version": {}}}"#,
///     rustdoc_types::FORMAT_VERSION
/// );
/// let krate = sortpath_api::parse(&json)?;
/// assert_eq!(
///     sortpath_api::render(&krate),
///     ["demo  crate demo", "demo::ANSWER  pub const ANSWER: u8 = 42"]
/// );
/// # Ok::<(), String>(())
/// ```
pub fn render(krate: &Crate) -> Vec<String> {
    let mut r = Renderer::new(krate);
    r.collect_paths();
    r.render_all();
    r.lines.into_iter().collect()
}

struct Renderer<'a> {
    krate: &'a Crate,
    /// Every (public path, item) pair reached from the crate root.
    reached: Vec<(Vec<String>, Id)>,
    /// The canonical public path of each reached item.
    canonical: HashMap<Id, Vec<String>>,
    lines: BTreeSet<String>,
}

impl<'a> Renderer<'a> {
    fn new(krate: &'a Crate) -> Self {
        Renderer {
            krate,
            reached: Vec::new(),
            canonical: HashMap::new(),
            lines: BTreeSet::new(),
        }
    }

    fn item(&self, id: &Id) -> Option<&'a Item> {
        self.krate.index.get(id)
    }

    // ---- pass 1: the public paths -------------------------------------------------------

    fn collect_paths(&mut self) {
        let root = self.krate.root;
        let Some(root_item) = self.item(&root) else {
            return;
        };
        let name = root_item.name.clone().unwrap_or_default();
        let mut stack = vec![root];
        self.reached.push((vec![name.clone()], root));
        self.walk_module(&root, &[name], &mut stack);
        // Canonical path: the definition path (rustdoc's `paths`) when it is reached, else
        // the shortest reached path, ties broken by text.
        let mut by_id: BTreeMap<Id, Vec<Vec<String>>> = BTreeMap::new();
        for (path, id) in &self.reached {
            by_id.entry(*id).or_default().push(path.clone());
        }
        for (id, mut paths) in by_id {
            paths.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
            let defined = self.krate.paths.get(&id).map(|s| &s.path);
            let pick = match defined {
                Some(d) if paths.contains(d) => d.clone(),
                _ => paths[0].clone(),
            };
            self.canonical.insert(id, pick);
        }
    }

    fn walk_module(&mut self, module: &Id, path: &[String], stack: &mut Vec<Id>) {
        let Some(ItemEnum::Module(m)) = self.item(module).map(|i| &i.inner) else {
            return;
        };
        for id in &m.items {
            let Some(item) = self.item(id) else { continue };
            match &item.inner {
                ItemEnum::Use(u) => {
                    let target = u.id.filter(|t| self.krate.index.contains_key(t));
                    match (u.is_glob, target) {
                        (true, Some(t)) => {
                            if let Some(ItemEnum::Module(_)) = self.item(&t).map(|i| &i.inner) {
                                if !stack.contains(&t) {
                                    stack.push(t);
                                    self.walk_module(&t, path, stack);
                                    stack.pop();
                                }
                            } else if let Some(ItemEnum::Enum(e)) = self.item(&t).map(|i| &i.inner)
                            {
                                for v in &e.variants {
                                    if let Some(vi) = self.item(v) {
                                        let mut p = path.to_vec();
                                        p.push(vi.name.clone().unwrap_or_default());
                                        self.reached.push((p, *v));
                                    }
                                }
                            }
                        }
                        (false, Some(t)) => {
                            let mut p = path.to_vec();
                            p.push(u.name.clone());
                            self.reach(t, p, stack);
                        }
                        // A re-export of a foreign item (or a glob of one): one line of its own.
                        (glob, None) => {
                            let shown = self.foreign_path(u.id.as_ref(), &u.source);
                            let (p, decl) = if glob {
                                (path.join("::"), format!("pub use {shown}::*"))
                            } else {
                                (
                                    format!("{}::{}", path.join("::"), u.name),
                                    format!("pub use {shown}"),
                                )
                            };
                            self.lines.insert(format!("{p}  {decl}"));
                        }
                    }
                }
                _ => {
                    if let Some(name) = &item.name {
                        let mut p = path.to_vec();
                        p.push(name.clone());
                        self.reach(*id, p, stack);
                    }
                }
            }
        }
    }

    fn reach(&mut self, id: Id, path: Vec<String>, stack: &mut Vec<Id>) {
        let Some(item) = self.item(&id) else { return };
        if !matches!(item.visibility, Visibility::Public) {
            return;
        }
        self.reached.push((path.clone(), id));
        if let ItemEnum::Module(_) = item.inner {
            if !stack.contains(&id) {
                stack.push(id);
                self.walk_module(&id, &path, stack);
                stack.pop();
            }
        }
    }

    fn foreign_path(&self, id: Option<&Id>, source: &str) -> String {
        id.and_then(|id| self.krate.paths.get(id))
            .map(|s| s.path.join("::"))
            .unwrap_or_else(|| source.to_string())
    }

    // ---- pass 2: the lines --------------------------------------------------------------

    fn render_all(&mut self) {
        let reached = std::mem::take(&mut self.reached);
        let mut done: BTreeSet<Id> = BTreeSet::new();
        for (path, id) in &reached {
            let p = path.join("::");
            let canonical = self.canonical.get(id).cloned().unwrap_or_default();
            if *path != canonical {
                let line = format!("{p}  pub use {}", canonical.join("::"));
                self.lines.insert(line);
                continue;
            }
            if !done.insert(*id) {
                continue;
            }
            self.render_item(&p, id);
        }
        self.reached = reached;
    }

    fn push(&mut self, path: &str, decl: String) {
        self.lines.insert(format!("{path}  {decl}"));
    }

    fn render_item(&mut self, p: &str, id: &Id) {
        let Some(item) = self.item(id) else { return };
        let name = item.name.clone().unwrap_or_default();
        let marks = markers(item);
        match &item.inner {
            ItemEnum::Module(_) => {
                if p.contains("::") {
                    self.push(p, format!("{marks}pub mod {name}"));
                } else {
                    self.push(p, format!("{marks}crate {name}"));
                }
            }
            ItemEnum::Struct(s) => {
                let g = self.generics_params(&s.generics);
                let w = self.where_clause(&s.generics, &[]);
                let body = match &s.kind {
                    StructKind::Unit => ";".to_string(),
                    StructKind::Tuple(fields) => format!("({})", self.tuple_fields(fields)),
                    StructKind::Plain {
                        fields,
                        has_stripped_fields,
                    } => {
                        for f in fields {
                            self.render_field(p, f, true);
                        }
                        if *has_stripped_fields {
                            " { /* private fields */ }".to_string()
                        } else {
                            " { .. }".to_string()
                        }
                    }
                };
                self.push(p, format!("{marks}pub struct {name}{g}{body}{w}"));
                self.render_impls(p, &s.impls);
            }
            ItemEnum::Union(u) => {
                let g = self.generics_params(&u.generics);
                let w = self.where_clause(&u.generics, &[]);
                for f in &u.fields {
                    self.render_field(p, f, true);
                }
                let stripped = if u.has_stripped_fields {
                    " { /* private fields */ }"
                } else {
                    " { .. }"
                };
                self.push(p, format!("{marks}pub union {name}{g}{stripped}{w}"));
                self.render_impls(p, &u.impls);
            }
            ItemEnum::Enum(e) => {
                let g = self.generics_params(&e.generics);
                let w = self.where_clause(&e.generics, &[]);
                let stripped = if e.has_stripped_variants {
                    " { /* private variants */ }"
                } else {
                    ""
                };
                self.push(p, format!("{marks}pub enum {name}{g}{w}{stripped}"));
                for v in &e.variants {
                    self.render_variant(p, v);
                }
                self.render_impls(p, &e.impls);
            }
            ItemEnum::Function(f) => {
                let sig = self.function(&name, f, &[], &[]);
                self.push(p, format!("{marks}pub {sig}"));
            }
            ItemEnum::Trait(t) => {
                let g = self.generics_params(&t.generics);
                let w = self.where_clause(&t.generics, &[]);
                let bounds = if t.bounds.is_empty() {
                    String::new()
                } else {
                    format!(": {}", self.bounds(&t.bounds))
                };
                let unsafety = if t.is_unsafe { "unsafe " } else { "" };
                let auto = if t.is_auto { "auto " } else { "" };
                let dyn_ = if t.is_dyn_compatible {
                    ""
                } else {
                    " /* not dyn-compatible */"
                };
                self.push(
                    p,
                    format!("{marks}pub {unsafety}{auto}trait {name}{g}{bounds}{w}{dyn_}"),
                );
                for it in &t.items {
                    self.render_trait_item(p, it);
                }
                // Impls for local public types are listed under those types.
                for i in &t.implementations {
                    if let Some(Item {
                        inner: ItemEnum::Impl(imp),
                        ..
                    }) = self.item(i)
                    {
                        let local = match &imp.for_ {
                            Type::ResolvedPath(tp) => self.canonical.contains_key(&tp.id),
                            _ => false,
                        };
                        if !local && imp.blanket_impl.is_none() {
                            let line = self.impl_line(imp);
                            self.push(p, line);
                        }
                    }
                }
            }
            ItemEnum::TraitAlias(t) => {
                let g = self.generics_params(&t.generics);
                let w = self.where_clause(&t.generics, &[]);
                let b = self.bounds(&t.params);
                self.push(p, format!("{marks}pub trait {name}{g} = {b}{w}"));
            }
            ItemEnum::TypeAlias(t) => {
                let g = self.generics_params(&t.generics);
                let w = self.where_clause(&t.generics, &[]);
                let ty = self.ty(&t.type_);
                self.push(p, format!("{marks}pub type {name}{g} = {ty}{w}"));
            }
            ItemEnum::Constant { type_, const_ } => {
                let ty = self.ty(type_);
                let value = match (&const_.value, const_.expr.as_str()) {
                    (Some(v), "_") => v.clone(),
                    _ => const_.expr.clone(),
                };
                self.push(p, format!("{marks}pub const {name}: {ty} = {value}"));
            }
            ItemEnum::Static(s) => {
                let ty = self.ty(&s.type_);
                let m = if s.is_mutable { "mut " } else { "" };
                let u = if s.is_unsafe { "unsafe " } else { "" };
                self.push(p, format!("{marks}pub {u}static {m}{name}: {ty}"));
            }
            ItemEnum::Macro(_) => {
                self.push(p, format!("{marks}macro_rules! {name}"));
            }
            ItemEnum::ProcMacro(pm) => {
                let kind = match pm.kind {
                    rustdoc_types::MacroKind::Bang => "proc_macro",
                    rustdoc_types::MacroKind::Attr => "proc_macro_attribute",
                    rustdoc_types::MacroKind::Derive => "proc_macro_derive",
                };
                let helpers = if pm.helpers.is_empty() {
                    String::new()
                } else {
                    format!(", attributes({})", pm.helpers.join(", "))
                };
                self.push(p, format!("{marks}#[{kind}({name}{helpers})]"));
            }
            ItemEnum::ExternCrate { name: n, rename } => {
                let r = rename
                    .as_ref()
                    .map(|r| format!(" as {r}"))
                    .unwrap_or_default();
                self.push(p, format!("{marks}pub extern crate {n}{r}"));
            }
            ItemEnum::ExternType => self.push(p, format!("{marks}pub type {name}")),
            // Reached only through members or std's own docs.
            ItemEnum::Use(_)
            | ItemEnum::StructField(_)
            | ItemEnum::Variant(_)
            | ItemEnum::Impl(_)
            | ItemEnum::Primitive(_)
            | ItemEnum::AssocConst { .. }
            | ItemEnum::AssocType { .. } => {}
        }
    }

    fn tuple_fields(&self, fields: &[Option<Id>]) -> String {
        fields
            .iter()
            .map(|f| match f.and_then(|f| self.item(&f)) {
                Some(Item {
                    inner: ItemEnum::StructField(t),
                    visibility,
                    ..
                }) => {
                    let v = if matches!(visibility, Visibility::Public) {
                        "pub "
                    } else {
                        ""
                    };
                    format!("{v}{}", self.ty(t))
                }
                _ => "_".to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn render_field(&mut self, p: &str, id: &Id, needs_pub: bool) {
        let Some(item) = self.item(id) else { return };
        let ItemEnum::StructField(t) = &item.inner else {
            return;
        };
        if needs_pub && !matches!(item.visibility, Visibility::Public) {
            return;
        }
        let name = item.name.clone().unwrap_or_default();
        let decl = format!("{}pub {name}: {}", markers(item), self.ty(t));
        self.push(&format!("{p}::{name}"), decl);
    }

    fn render_variant(&mut self, p: &str, id: &Id) {
        let Some(item) = self.item(id) else { return };
        let ItemEnum::Variant(v) = &item.inner else {
            return;
        };
        let name = item.name.clone().unwrap_or_default();
        let body = match &v.kind {
            VariantKind::Plain => String::new(),
            VariantKind::Tuple(fields) => format!("({})", self.tuple_fields(fields)),
            VariantKind::Struct {
                fields,
                has_stripped_fields,
            } => {
                let mut parts: Vec<String> = fields
                    .iter()
                    .filter_map(|f| self.item(f))
                    .filter_map(|f| match &f.inner {
                        ItemEnum::StructField(t) => Some(format!(
                            "{}{}: {}",
                            markers(f),
                            f.name.clone().unwrap_or_default(),
                            self.ty(t)
                        )),
                        _ => None,
                    })
                    .collect();
                if *has_stripped_fields {
                    parts.push("..".to_string());
                }
                format!(" {{ {} }}", parts.join(", "))
            }
        };
        let discr = v
            .discriminant
            .as_ref()
            .map(|d| format!(" = {}", d.value))
            .unwrap_or_default();
        let decl = format!("{}{name}{body}{discr}", markers(item));
        self.push(&format!("{p}::{name}"), decl);
    }

    fn render_trait_item(&mut self, p: &str, id: &Id) {
        let Some(item) = self.item(id) else { return };
        let name = item.name.clone().unwrap_or_default();
        let marks = markers(item);
        let path = format!("{p}::{name}");
        match &item.inner {
            ItemEnum::Function(f) => {
                let sig = self.function(&name, f, &[], &[]);
                let provided = if f.has_body { " { .. }" } else { ";" };
                self.push(&path, format!("{marks}{sig}{provided}"));
            }
            ItemEnum::AssocType {
                generics,
                bounds,
                type_,
            } => {
                let g = self.generics_params(generics);
                let b = if bounds.is_empty() {
                    String::new()
                } else {
                    format!(": {}", self.bounds(bounds))
                };
                let d = type_
                    .as_ref()
                    .map(|t| format!(" = {}", self.ty(t)))
                    .unwrap_or_default();
                let w = self.where_clause(generics, &[]);
                self.push(&path, format!("{marks}type {name}{g}{b}{d}{w};"));
            }
            ItemEnum::AssocConst { type_, value } => {
                let d = value
                    .as_ref()
                    .map(|v| format!(" = {v}"))
                    .unwrap_or_default();
                self.push(
                    &path,
                    format!("{marks}const {name}: {}{d};", self.ty(type_)),
                );
            }
            _ => {}
        }
    }

    fn render_impls(&mut self, p: &str, impls: &[Id]) {
        for id in impls {
            let Some(Item {
                inner: ItemEnum::Impl(imp),
                ..
            }) = self.item(id)
            else {
                continue;
            };
            if imp.blanket_impl.is_some() || !self.stable_impl(imp) {
                continue;
            }
            if imp.trait_.is_some() {
                let line = self.impl_line(imp);
                self.push(p, line);
                continue;
            }
            // Inherent impl: its public items are members of the type. The impl's own
            // generic bounds and where clauses are part of every member's where clause.
            let extra_params = imp.generics.params.clone();
            let extra_where = imp.generics.where_predicates.clone();
            for it in &imp.items {
                let Some(item) = self.item(it) else { continue };
                if !matches!(item.visibility, Visibility::Public) {
                    continue;
                }
                let name = item.name.clone().unwrap_or_default();
                let marks = markers(item);
                let path = format!("{p}::{name}");
                match &item.inner {
                    ItemEnum::Function(f) => {
                        let sig = self.function(&name, f, &extra_params, &extra_where);
                        self.push(&path, format!("{marks}pub {sig}"));
                    }
                    ItemEnum::AssocConst { type_, value } => {
                        let d = value
                            .as_ref()
                            .map(|v| format!(" = {v}"))
                            .unwrap_or_default();
                        self.push(
                            &path,
                            format!("{marks}pub const {name}: {}{d}", self.ty(type_)),
                        );
                    }
                    ItemEnum::AssocType { type_, .. } => {
                        let d = type_
                            .as_ref()
                            .map(|t| format!(" = {}", self.ty(t)))
                            .unwrap_or_default();
                        self.push(&path, format!("{marks}pub type {name}{d}"));
                    }
                    _ => {}
                }
            }
        }
    }

    /// Whether a trait impl is part of the stable surface: auto trait impls only for the
    /// stable auto traits, and no impls of the compiler's unstable marker traits (both vary
    /// with the toolchain, not with the crate).
    fn stable_impl(&self, imp: &Impl) -> bool {
        let Some(t) = &imp.trait_ else { return true };
        let path = self
            .krate
            .paths
            .get(&t.id)
            .map(|s| s.path.join("::"))
            .unwrap_or_else(|| t.path.clone());
        const AUTO: &[&str] = &[
            "core::marker::Send",
            "core::marker::Sync",
            "core::marker::Unpin",
            "core::panic::unwind_safe::UnwindSafe",
            "core::panic::unwind_safe::RefUnwindSafe",
        ];
        const UNSTABLE: &[&str] = &[
            "core::marker::StructuralPartialEq",
            "core::marker::Freeze",
            "core::marker::UnsafeUnpin",
        ];
        if imp.is_synthetic {
            AUTO.contains(&path.as_str())
        } else {
            !UNSTABLE.contains(&path.as_str())
        }
    }

    /// `impl<G> Trait for Type where ..` with the impl's associated types and consts.
    fn impl_line(&self, imp: &Impl) -> String {
        let g = self.generics_params(&imp.generics);
        let w = self.where_clause(&imp.generics, &[]);
        let unsafety = if imp.is_unsafe { "unsafe " } else { "" };
        let neg = if imp.is_negative { "!" } else { "" };
        let tr = imp
            .trait_
            .as_ref()
            .map(|t| format!("{neg}{} for ", self.path(t)))
            .unwrap_or_default();
        let mut assoc: Vec<String> = Vec::new();
        for it in &imp.items {
            let Some(item) = self.item(it) else { continue };
            let name = item.name.clone().unwrap_or_default();
            match &item.inner {
                ItemEnum::AssocType {
                    type_: Some(t),
                    generics,
                    ..
                } => assoc.push(format!(
                    "type {name}{} = {};",
                    self.generics_params(generics),
                    self.ty(t)
                )),
                ItemEnum::AssocConst { type_, value } => assoc.push(format!(
                    "const {name}: {} = {};",
                    self.ty(type_),
                    value.clone().unwrap_or_else(|| "_".to_string())
                )),
                _ => {}
            }
        }
        assoc.sort();
        let body = if assoc.is_empty() {
            String::new()
        } else {
            format!(" {{ {} }}", assoc.join(" "))
        };
        format!("{unsafety}impl{g} {tr}{}{w}{body}", self.ty(&imp.for_))
    }

    // ---- signatures ---------------------------------------------------------------------

    fn function(
        &self,
        name: &str,
        f: &rustdoc_types::Function,
        outer_params: &[GenericParamDef],
        outer_where: &[WherePredicate],
    ) -> String {
        let head = header(&f.header);
        let g = self.generics_params(&f.generics);
        let args = self.inputs(&f.sig);
        let out = f
            .sig
            .output
            .as_ref()
            .map(|t| format!(" -> {}", self.ty(t)))
            .unwrap_or_default();
        // The enclosing impl's bounds first, then the function's own.
        let mut preds: Vec<String> = Vec::new();
        preds.extend(self.param_bounds(outer_params));
        preds.extend(outer_where.iter().map(|w| self.where_predicate(w)));
        let own = self.where_clause(&f.generics, &[]);
        let mut w = if preds.is_empty() {
            String::new()
        } else {
            format!(" where {}", preds.join(", "))
        };
        if !own.is_empty() {
            if w.is_empty() {
                w = own;
            } else {
                w.push_str(", ");
                w.push_str(own.trim_start_matches(" where "));
            }
        }
        format!("{head}fn {name}{g}({args}){out}{w}")
    }

    fn inputs(&self, sig: &FunctionSignature) -> String {
        let mut parts: Vec<String> = sig
            .inputs
            .iter()
            .map(|(n, t)| {
                if n == "self" {
                    match t {
                        Type::Generic(s) if s == "Self" => "self".to_string(),
                        Type::BorrowedRef {
                            lifetime,
                            is_mutable,
                            type_,
                        } if matches!(&**type_, Type::Generic(s) if s == "Self") => {
                            let l = lifetime
                                .as_ref()
                                .map(|l| format!("{l} "))
                                .unwrap_or_default();
                            let m = if *is_mutable { "mut " } else { "" };
                            format!("&{l}{m}self")
                        }
                        other => format!("self: {}", self.ty(other)),
                    }
                } else {
                    format!("{n}: {}", self.ty(t))
                }
            })
            .collect();
        if sig.is_c_variadic {
            parts.push("...".to_string());
        }
        parts.join(", ")
    }

    fn generics_params(&self, g: &Generics) -> String {
        let params: Vec<String> = g
            .params
            .iter()
            .filter_map(|p| self.param(p, true))
            .collect();
        if params.is_empty() {
            String::new()
        } else {
            format!("<{}>", params.join(", "))
        }
    }

    /// One generic parameter; `None` for the synthetic ones of `impl Trait` arguments.
    fn param(&self, p: &GenericParamDef, with_bounds: bool) -> Option<String> {
        match &p.kind {
            GenericParamDefKind::Lifetime { outlives } => {
                if with_bounds && !outlives.is_empty() {
                    Some(format!("{}: {}", p.name, outlives.join(" + ")))
                } else {
                    Some(p.name.clone())
                }
            }
            GenericParamDefKind::Type {
                bounds,
                default,
                is_synthetic,
            } => {
                if *is_synthetic {
                    return None;
                }
                let mut s = p.name.clone();
                if with_bounds && !bounds.is_empty() {
                    s.push_str(": ");
                    s.push_str(&self.bounds(bounds));
                }
                if let Some(d) = default {
                    s.push_str(" = ");
                    s.push_str(&self.ty(d));
                }
                Some(s)
            }
            GenericParamDefKind::Const { type_, default } => {
                let mut s = format!("const {}: {}", p.name, self.ty(type_));
                if let Some(d) = default {
                    s.push_str(" = ");
                    s.push_str(d);
                }
                Some(s)
            }
        }
    }

    /// The bounds written on an enclosing impl's parameters, as where predicates.
    fn param_bounds(&self, params: &[GenericParamDef]) -> Vec<String> {
        params
            .iter()
            .filter_map(|p| match &p.kind {
                GenericParamDefKind::Type { bounds, .. } if !bounds.is_empty() => {
                    Some(format!("{}: {}", p.name, self.bounds(bounds)))
                }
                GenericParamDefKind::Lifetime { outlives } if !outlives.is_empty() => {
                    Some(format!("{}: {}", p.name, outlives.join(" + ")))
                }
                _ => None,
            })
            .collect()
    }

    fn where_clause(&self, g: &Generics, extra: &[String]) -> String {
        let mut preds: Vec<String> = extra.to_vec();
        preds.extend(g.where_predicates.iter().map(|w| self.where_predicate(w)));
        if preds.is_empty() {
            String::new()
        } else {
            format!(" where {}", preds.join(", "))
        }
    }

    fn where_predicate(&self, w: &WherePredicate) -> String {
        match w {
            WherePredicate::BoundPredicate {
                type_,
                bounds,
                generic_params,
            } => format!(
                "{}{}: {}",
                self.hrtb(generic_params),
                self.ty(type_),
                self.bounds(bounds)
            ),
            WherePredicate::LifetimePredicate { lifetime, outlives } => {
                format!("{lifetime}: {}", outlives.join(" + "))
            }
            WherePredicate::EqPredicate { lhs, rhs } => {
                format!("{} == {}", self.ty(lhs), self.term(rhs))
            }
        }
    }

    fn hrtb(&self, params: &[GenericParamDef]) -> String {
        if params.is_empty() {
            return String::new();
        }
        let ps: Vec<String> = params.iter().filter_map(|p| self.param(p, true)).collect();
        format!("for<{}> ", ps.join(", "))
    }

    fn bounds(&self, bounds: &[GenericBound]) -> String {
        bounds
            .iter()
            .map(|b| self.bound(b))
            .collect::<Vec<_>>()
            .join(" + ")
    }

    fn bound(&self, b: &GenericBound) -> String {
        match b {
            GenericBound::TraitBound {
                trait_,
                generic_params,
                modifier,
            } => {
                let m = match modifier {
                    TraitBoundModifier::None => "",
                    TraitBoundModifier::Maybe => "?",
                    TraitBoundModifier::MaybeConst => "[const] ",
                };
                format!("{}{m}{}", self.hrtb(generic_params), self.path(trait_))
            }
            GenericBound::Outlives(l) => l.clone(),
            GenericBound::Use(args) => {
                let a: Vec<&str> = args
                    .iter()
                    .map(|a| match a {
                        PreciseCapturingArg::Lifetime(l) => l.as_str(),
                        PreciseCapturingArg::Param(p) => p.as_str(),
                    })
                    .collect();
                format!("use<{}>", a.join(", "))
            }
        }
    }

    /// A path to a type or trait: the canonical public path of a local item, the recorded
    /// path of a foreign one, then its generic arguments.
    fn path(&self, p: &Path) -> String {
        let base = if let Some(c) = self.canonical.get(&p.id) {
            c.join("::")
        } else if let Some(s) = self.krate.paths.get(&p.id) {
            s.path.join("::")
        } else {
            p.path.clone()
        };
        let args = p
            .args
            .as_ref()
            .map(|a| self.generic_args(a))
            .unwrap_or_default();
        format!("{base}{args}")
    }

    fn generic_args(&self, a: &GenericArgs) -> String {
        match a {
            GenericArgs::AngleBracketed { args, constraints } => {
                let mut parts: Vec<String> = args.iter().map(|a| self.generic_arg(a)).collect();
                parts.extend(constraints.iter().map(|c| self.constraint(c)));
                if parts.is_empty() {
                    String::new()
                } else {
                    format!("<{}>", parts.join(", "))
                }
            }
            GenericArgs::Parenthesized { inputs, output } => {
                let i: Vec<String> = inputs.iter().map(|t| self.ty(t)).collect();
                let o = output
                    .as_ref()
                    .map(|t| format!(" -> {}", self.ty(t)))
                    .unwrap_or_default();
                format!("({}){o}", i.join(", "))
            }
            GenericArgs::ReturnTypeNotation => "(..)".to_string(),
        }
    }

    fn generic_arg(&self, a: &GenericArg) -> String {
        match a {
            GenericArg::Lifetime(l) => l.clone(),
            GenericArg::Type(t) => self.ty(t),
            GenericArg::Const(c) => c.expr.clone(),
            GenericArg::Infer => "_".to_string(),
        }
    }

    fn constraint(&self, c: &AssocItemConstraint) -> String {
        let args = c
            .args
            .as_ref()
            .map(|a| self.generic_args(a))
            .unwrap_or_default();
        match &c.binding {
            AssocItemConstraintKind::Equality(t) => {
                format!("{}{args} = {}", c.name, self.term(t))
            }
            AssocItemConstraintKind::Constraint(b) => {
                format!("{}{args}: {}", c.name, self.bounds(b))
            }
        }
    }

    fn term(&self, t: &Term) -> String {
        match t {
            Term::Type(t) => self.ty(t),
            Term::Constant(c) => c.expr.clone(),
        }
    }

    fn ty(&self, t: &Type) -> String {
        match t {
            Type::ResolvedPath(p) => self.path(p),
            Type::DynTrait(d) => {
                let mut parts: Vec<String> = d
                    .traits
                    .iter()
                    .map(|pt| format!("{}{}", self.hrtb(&pt.generic_params), self.path(&pt.trait_)))
                    .collect();
                if let Some(l) = &d.lifetime {
                    parts.push(l.clone());
                }
                format!("dyn {}", parts.join(" + "))
            }
            Type::Generic(s) | Type::Primitive(s) => s.clone(),
            Type::FunctionPointer(fp) => self.fn_pointer(fp),
            Type::Tuple(ts) => {
                let parts: Vec<String> = ts.iter().map(|t| self.ty(t)).collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            Type::Slice(t) => format!("[{}]", self.ty(t)),
            Type::Array { type_, len } => format!("[{}; {len}]", self.ty(type_)),
            Type::Pat { type_, .. } => self.ty(type_),
            Type::ImplTrait(b) => format!("impl {}", self.bounds(b)),
            Type::Infer => "_".to_string(),
            Type::RawPointer { is_mutable, type_ } => {
                let m = if *is_mutable { "mut" } else { "const" };
                format!("*{m} {}", self.ty(type_))
            }
            Type::BorrowedRef {
                lifetime,
                is_mutable,
                type_,
            } => {
                let l = lifetime
                    .as_ref()
                    .map(|l| format!("{l} "))
                    .unwrap_or_default();
                let m = if *is_mutable { "mut " } else { "" };
                format!("&{l}{m}{}", self.ty(type_))
            }
            Type::QualifiedPath {
                name,
                args,
                self_type,
                trait_,
            } => {
                let a = args
                    .as_ref()
                    .map(|a| self.generic_args(a))
                    .unwrap_or_default();
                match trait_ {
                    Some(_) if matches!(&**self_type, Type::Generic(s) if s == "Self") => {
                        format!("Self::{name}{a}")
                    }
                    Some(tr) => format!("<{} as {}>::{name}{a}", self.ty(self_type), self.path(tr)),
                    None => format!("{}::{name}{a}", self.ty(self_type)),
                }
            }
        }
    }

    fn fn_pointer(&self, fp: &FunctionPointer) -> String {
        let out = fp
            .sig
            .output
            .as_ref()
            .map(|t| format!(" -> {}", self.ty(t)))
            .unwrap_or_default();
        let args: Vec<String> = fp.sig.inputs.iter().map(|(_, t)| self.ty(t)).collect();
        format!(
            "{}{}fn({}){out}",
            self.hrtb(&fp.generic_params),
            header(&fp.header),
            args.join(", ")
        )
    }
}

/// `#[non_exhaustive]` and `#[deprecated]`, the attributes that change what a user may write.
fn markers(item: &Item) -> String {
    let mut s = String::new();
    if item
        .attrs
        .iter()
        .any(|a| matches!(a, Attribute::NonExhaustive))
    {
        s.push_str("#[non_exhaustive] ");
    }
    if let Some(d) = &item.deprecation {
        match (&d.since, &d.note) {
            (None, None) => s.push_str("#[deprecated] "),
            (since, note) => {
                let mut parts = Vec::new();
                if let Some(v) = since {
                    parts.push(format!("since = {v:?}"));
                }
                if let Some(n) = note {
                    parts.push(format!("note = {n:?}"));
                }
                s.push_str(&format!("#[deprecated({})] ", parts.join(", ")));
            }
        }
    }
    s
}

fn header(h: &FunctionHeader) -> String {
    let mut s = String::new();
    if h.is_const {
        s.push_str("const ");
    }
    if h.is_async {
        s.push_str("async ");
    }
    if h.is_unsafe {
        s.push_str("unsafe ");
    }
    let abi = match &h.abi {
        Abi::Rust => None,
        Abi::C { .. } => Some("C"),
        Abi::Cdecl { .. } => Some("cdecl"),
        Abi::Stdcall { .. } => Some("stdcall"),
        Abi::Fastcall { .. } => Some("fastcall"),
        Abi::Aapcs { .. } => Some("aapcs"),
        Abi::Win64 { .. } => Some("win64"),
        Abi::SysV64 { .. } => Some("sysv64"),
        Abi::System { .. } => Some("system"),
        Abi::Other(o) => Some(o.as_str()),
    };
    if let Some(a) = abi {
        s.push_str(&format!("extern {a:?} "));
    }
    s
}
