//! `#[derive(Encode, Decode)]` for sortpath's order-preserving codec. Use them through
//! `sortpath` with its `derive` feature, as `sortpath::codec::{Encode, Decode}`; the
//! traits' documentation there says what the derived code writes and reads.
//!
//! The derived impls write what serde's derives write through `sortpath::codec::to_vec`:
//! fields in declaration order, enum variants by their index. Serde attributes that change
//! that (`skip`, `with`, `flatten`, `tag`, `untagged`, `transparent`, `into`, ...) would make
//! the two disagree, so the derives refuse them; naming attributes (`rename`, `alias`, ...)
//! change nothing in this format and are accepted. A field whose type has no sortpath impl
//! can be written and read through serde with `#[sortpath(serde)]`; `#[sortpath(crate =
//! "path")]` on the type names the sortpath crate when it is not `::sortpath`. Type
//! parameters are bounded as serde bounds them (not when only in `PhantomData`).

#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{
    parse_macro_input, parse_quote, Attribute, Data, DeriveInput, Field, Fields, GenericArgument,
    GenericParam, Generics, Ident, Lifetime, LifetimeParam, PathArguments, Token, Type,
};

/// Derives `sortpath::codec::Encode`. See the trait's documentation in `sortpath`.
#[proc_macro_derive(Encode, attributes(sortpath))]
pub fn derive_encode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_encode(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `sortpath::codec::Decode`. See the trait's documentation in `sortpath`.
#[proc_macro_derive(Decode, attributes(sortpath))]
pub fn derive_decode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_decode(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Serde attributes that do not change what serde writes in sortpath's format (names are
/// not written; `default` only fills fields a sequence lacks, and sortpath's have them all).
const HARMLESS_SERDE: &[&str] = &[
    "rename",
    "rename_all",
    "rename_all_fields",
    "alias",
    "deny_unknown_fields",
    "crate",
    "bound",
    "expecting",
    "default",
    "borrow",
];

/// Where an attribute list sits.
#[derive(Clone, Copy, PartialEq)]
enum Level {
    Container,
    Variant,
    Field,
}

/// What the sortpath attributes of one item say.
#[derive(Default)]
struct Options {
    /// `#[sortpath(serde)]` (fields).
    through_serde: bool,
    /// `#[sortpath(crate = "path")]` (containers).
    krate: Option<syn::Path>,
}

/// Refuses serde attributes that change the encoding (and names serde would take for the
/// codec's own, which start with NUL), and sortpath attributes out of place; returns the
/// sortpath options.
fn check_attrs(attrs: &[Attribute], level: Level) -> syn::Result<Options> {
    let mut options = Options::default();
    let mut borrow = None;
    for attr in attrs {
        if attr.path().is_ident("serde") {
            attr.parse_nested_meta(|meta| {
                let name = meta
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                if !HARMLESS_SERDE.contains(&name.as_str()) {
                    return Err(meta.error(format!(
                        "sortpath's derives do not follow #[serde({name})]: the sortpath \
                         encoding would differ from serde's; remove it, or implement \
                         sortpath::codec::Encode/Decode by hand"
                    )));
                }
                if name == "borrow" {
                    borrow = Some(meta.path.clone());
                }
                if name == "rename" {
                    return check_rename(&meta);
                }
                skip_meta_value(&meta)
            })?;
        } else if attr.path().is_ident("sortpath") {
            attr.parse_nested_meta(|meta| {
                if level == Level::Field && meta.path.is_ident("serde") {
                    options.through_serde = true;
                    Ok(())
                } else if level == Level::Container && meta.path.is_ident("crate") {
                    let path: syn::LitStr = meta.value()?.parse()?;
                    options.krate = Some(path.parse()?);
                    Ok(())
                } else {
                    Err(meta.error(
                        "unknown sortpath attribute here; there are #[sortpath(serde)] on \
                         fields and #[sortpath(crate = \"path\")] on the type",
                    ))
                }
            })?;
        }
    }
    if let (Some(borrow), true) = (borrow, options.through_serde) {
        // Serde reads a borrowed `Cow` with helpers of its own, which may not read what its
        // `Deserialize` impl would (bytes: a byte string, not the sequence serde writes).
        return Err(syn::Error::new_spanned(
            borrow,
            "#[serde(borrow)] with #[sortpath(serde)]: serde's derive reads such a field its \
             own way, which the sortpath derive cannot follow; decode it as an owned type",
        ));
    }
    Ok(options)
}

/// Refuses a `rename` to a name starting with NUL: the codec gives some of those a meaning
/// (`Desc`'s), so serde's bytes for the type would change.
fn check_rename(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    let check = |name: &syn::LitStr| {
        if name.value().starts_with('\0') {
            Err(syn::Error::new_spanned(
                name,
                "names starting with NUL are reserved by sortpath's codec",
            ))
        } else {
            Ok(())
        }
    };
    if meta.input.peek(Token![=]) {
        check(&meta.value()?.parse()?)
    } else {
        meta.parse_nested_meta(|inner| check(&inner.value()?.parse()?))
    }
}

/// Consumes an attribute's `= value` or `(...)`, whatever it holds.
fn skip_meta_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_meta_value(&inner))?;
    }
    Ok(())
}

/// The fields with their `#[sortpath(serde)]` marks.
fn fields_of(fields: &Fields) -> syn::Result<Vec<(&Field, bool)>> {
    fields
        .iter()
        .map(|f| Ok((f, check_attrs(&f.attrs, Level::Field)?.through_serde)))
        .collect()
}

/// Every field of the type (of all variants), with its `#[sortpath(serde)]` mark.
fn all_fields(input: &DeriveInput) -> syn::Result<Vec<(&Field, bool)>> {
    match &input.data {
        Data::Struct(data) => fields_of(&data.fields),
        Data::Enum(data) => {
            let mut all = Vec::new();
            for variant in &data.variants {
                all.extend(fields_of(&variant.fields)?);
            }
            Ok(all)
        }
        Data::Union(_) => Ok(Vec::new()),
    }
}

/// What a field type needs bounded, as serde's derives find it: the type parameters it
/// uses (not inside `PhantomData`, which needs nothing of them), the associated types of
/// type parameters (`T::Id`), and the lifetimes it borrows for.
#[derive(Default)]
struct Uses {
    params: Vec<Ident>,
    assoc: Vec<Type>,
    lifetimes: Vec<Lifetime>,
    /// A type this walk does not look into (a trait object, `impl Trait`, a macro, a
    /// qualified path): every lifetime is taken as used.
    opaque: bool,
}

impl Uses {
    fn is_empty(&self) -> bool {
        self.params.is_empty() && self.assoc.is_empty()
    }

    fn add(&mut self, ty: &Type, params: &[Ident]) {
        match ty {
            Type::Path(path) => {
                if let Some(qself) = &path.qself {
                    // `<T as Trait>::Assoc`
                    let mut inner = Uses::default();
                    inner.add(&qself.ty, params);
                    if !inner.is_empty() {
                        self.push_assoc(ty);
                    }
                    self.opaque = true;
                    return;
                }
                let segments = &path.path.segments;
                if path.path.leading_colon.is_none() {
                    if let Some(first) = segments.first() {
                        if params.contains(&first.ident) {
                            if segments.len() == 1 {
                                if !self.params.contains(&first.ident) {
                                    self.params.push(first.ident.clone());
                                }
                            } else {
                                self.push_assoc(ty);
                            }
                            return;
                        }
                    }
                }
                if segments.last().is_some_and(|s| s.ident == "PhantomData") {
                    return;
                }
                for segment in segments {
                    if let PathArguments::AngleBracketed(args) = &segment.arguments {
                        for arg in &args.args {
                            match arg {
                                GenericArgument::Type(t) => self.add(t, params),
                                GenericArgument::AssocType(a) => self.add(&a.ty, params),
                                GenericArgument::Lifetime(l) => self.lifetimes.push(l.clone()),
                                _ => {}
                            }
                        }
                    }
                }
            }
            Type::Reference(r) => {
                self.lifetimes.extend(r.lifetime.clone());
                self.add(&r.elem, params);
            }
            Type::Array(a) => self.add(&a.elem, params),
            Type::Slice(s) => self.add(&s.elem, params),
            Type::Paren(p) => self.add(&p.elem, params),
            Type::Group(g) => self.add(&g.elem, params),
            Type::Ptr(p) => self.add(&p.elem, params),
            Type::Tuple(t) => t.elems.iter().for_each(|e| self.add(e, params)),
            // Trait objects, `impl Trait`, macros: no type bounds here (a missing impl shows
            // as a compile error at the field), every lifetime bounded.
            Type::Never(_) | Type::Infer(_) => {}
            _ => self.opaque = true,
        }
    }

    fn push_assoc(&mut self, ty: &Type) {
        let text = quote!(#ty).to_string();
        if !self.assoc.iter().any(|t| quote!(#t).to_string() == text) {
            self.assoc.push(ty.clone());
        }
    }
}

/// The type's generics with the where bounds the fields need: `native` on the type
/// parameters and associated types fields use, `serde` on the type of each
/// `#[sortpath(serde)]` field that uses a type parameter.
fn with_bounds(
    input: &DeriveInput,
    mut generics: Generics,
    native: &Tokens,
    serde: &Tokens,
) -> syn::Result<Generics> {
    let params: Vec<Ident> = input
        .generics
        .type_params()
        .map(|t| t.ident.clone())
        .collect();
    let mut uses = Uses::default();
    let mut predicates: Vec<syn::WherePredicate> = Vec::new();
    for (field, through_serde) in all_fields(input)? {
        if through_serde {
            let mut inner = Uses::default();
            inner.add(&field.ty, &params);
            if !inner.is_empty() {
                let ty = &field.ty;
                predicates.push(parse_quote!(#ty: #serde));
            }
        } else {
            uses.add(&field.ty, &params);
        }
    }
    for param in &uses.params {
        predicates.push(parse_quote!(#param: #native));
    }
    for ty in &uses.assoc {
        predicates.push(parse_quote!(#ty: #native));
    }
    generics.make_where_clause().predicates.extend(predicates);
    Ok(generics)
}

/// The path of the sortpath crate: `::sortpath`, or `#[sortpath(crate = "...")]`.
fn krate(input: &DeriveInput) -> syn::Result<syn::Path> {
    Ok(check_attrs(&input.attrs, Level::Container)?
        .krate
        .unwrap_or_else(|| parse_quote!(::sortpath)))
}

fn expand_encode(input: &DeriveInput) -> syn::Result<Tokens> {
    let krate = krate(input)?;
    let name = &input.ident;
    let generics = with_bounds(
        input,
        input.generics.clone(),
        &quote!(#krate::codec::Encode),
        &quote!(#krate::codec::__private::Serialize),
    )?;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    let body = match &input.data {
        Data::Struct(data) => {
            let writes =
                fields_of(&data.fields)?
                    .into_iter()
                    .enumerate()
                    .map(|(i, (f, through_serde))| {
                        let member = match &f.ident {
                            Some(ident) => quote!(#ident),
                            None => {
                                let index = syn::Index::from(i);
                                quote!(#index)
                            }
                        };
                        write_field(&krate, &quote!(&self.#member), through_serde)
                    });
            quote! {
                #(#writes)*
                ::core::result::Result::Ok(())
            }
        }
        Data::Enum(data) => {
            let arms = data
                .variants
                .iter()
                .enumerate()
                .map(|(index, variant)| {
                    check_attrs(&variant.attrs, Level::Variant)?;
                    let index = u32::try_from(index)
                        .map_err(|_| syn::Error::new_spanned(variant, "more than 2^32 variants"))?;
                    let ident = &variant.ident;
                    let fields = fields_of(&variant.fields)?;
                    let bindings: Vec<_> = (0..fields.len())
                        .map(|i| format_ident!("__field{}", i))
                        .collect();
                    let pattern = match &variant.fields {
                        Fields::Named(_) => {
                            let names = fields.iter().map(|(f, _)| &f.ident);
                            quote!(Self::#ident { #(#names: #bindings),* })
                        }
                        Fields::Unnamed(_) => quote!(Self::#ident(#(#bindings),*)),
                        Fields::Unit => quote!(Self::#ident),
                    };
                    let writes = fields.iter().zip(&bindings).map(|((_, through_serde), b)| {
                        write_field(&krate, &quote!(#b), *through_serde)
                    });
                    Ok(quote! {
                        #pattern => {
                            __e.__variant(#index);
                            #(#writes)*
                            ::core::result::Result::Ok(())
                        }
                    })
                })
                .collect::<syn::Result<Vec<_>>>()?;
            if arms.is_empty() {
                quote!(match *self {})
            } else {
                // On `&Self`, so the bindings are references to the fields.
                quote!(match self { #(#arms)* })
            }
        }
        Data::Union(_) => {
            return Err(syn::Error::new_spanned(
                input,
                "sortpath::codec::Encode cannot be derived for a union",
            ))
        }
    };
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::codec::Encode for #name #ty_generics #where_clause {
            #[inline]
            fn encode<__S: #krate::codec::Sink>(
                &self,
                __e: &mut #krate::codec::Encoder<__S>,
            ) -> ::core::result::Result<(), #krate::codec::Error> {
                #body
            }
        }
    })
}

/// Writes one field (`value` is a reference to it).
fn write_field(krate: &syn::Path, value: &Tokens, through_serde: bool) -> Tokens {
    if through_serde {
        quote!(__e.serde(#value)?;)
    } else {
        quote!(#krate::codec::Encode::encode(#value, __e)?;)
    }
}

fn expand_decode(input: &DeriveInput) -> syn::Result<Tokens> {
    let krate = krate(input)?;
    let name = &input.ident;
    let de = Lifetime::new("'__sortpath_de", Span::call_site());
    let mut generics = input.generics.clone();
    // The input outlives every lifetime a field borrows for (not one only in
    // `PhantomData`, as with serde).
    let mut borrowed = Uses::default();
    for (field, _) in all_fields(input)? {
        borrowed.add(&field.ty, &[]);
    }
    let mut de_param = LifetimeParam::new(de.clone());
    for lifetime in input.generics.lifetimes() {
        if borrowed.opaque || borrowed.lifetimes.contains(&lifetime.lifetime) {
            de_param.bounds.push(lifetime.lifetime.clone());
        }
    }
    generics.params.insert(0, GenericParam::Lifetime(de_param));
    let generics = with_bounds(
        input,
        generics,
        &quote!(#krate::codec::Decode<#de>),
        &quote!(#krate::codec::__private::Deserialize<#de>),
    )?;
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (_, ty_generics, _) = input.generics.split_for_impl();

    let body = match &input.data {
        Data::Struct(data) => {
            let fields = fields_of(&data.fields)?;
            match &data.fields {
                Fields::Named(_) => {
                    let reads = fields.iter().map(|(f, through_serde)| {
                        let ident = &f.ident;
                        let read = read_field(*through_serde);
                        quote!(#ident: #read)
                    });
                    nested(quote!(Self { #(#reads),* }))
                }
                // A newtype: serde reads its field as the value itself, one level deeper.
                Fields::Unnamed(_) if fields.len() == 1 => {
                    let read = if fields[0].1 {
                        quote!(__d.serde()?)
                    } else {
                        quote!(#krate::codec::Decode::decode(__d)?)
                    };
                    nested(quote!(Self(#read)))
                }
                Fields::Unnamed(_) => {
                    let reads = fields
                        .iter()
                        .map(|(_, through_serde)| read_field(*through_serde));
                    nested(quote!(Self(#(#reads),*)))
                }
                Fields::Unit => quote!(::core::result::Result::Ok(Self)),
            }
        }
        Data::Enum(data) => {
            let count = u32::try_from(data.variants.len())
                .map_err(|_| syn::Error::new_spanned(input, "more than 2^32 variants"))?;
            let mut arms = Vec::new();
            for (index, variant) in data.variants.iter().enumerate() {
                check_attrs(&variant.attrs, Level::Variant)?;
                let ident = &variant.ident;
                let fields = fields_of(&variant.fields)?;
                let value = match &variant.fields {
                    Fields::Named(_) => {
                        let reads = fields.iter().map(|(f, through_serde)| {
                            let ident = &f.ident;
                            let read = read_field(*through_serde);
                            quote!(#ident: #read)
                        });
                        quote!(Self::#ident { #(#reads),* })
                    }
                    Fields::Unnamed(_) => {
                        let reads = fields
                            .iter()
                            .map(|(_, through_serde)| read_field(*through_serde));
                        quote!(Self::#ident(#(#reads),*))
                    }
                    Fields::Unit => quote!(Self::#ident),
                };
                // The last variant takes every index `__variant` lets through after the
                // others (only its own), so the match needs no arm that cannot happen.
                let index = u32::try_from(index).unwrap_or(u32::MAX);
                let pattern = if index + 1 == count {
                    quote!(_)
                } else {
                    quote!(#index)
                };
                arms.push(quote!(#pattern => #value,));
            }
            if arms.is_empty() {
                quote! {
                    __d.__enter()?;
                    __d.__no_variant()
                }
            } else {
                nested(quote! {
                    match __d.__variant(#count)? {
                        #(#arms)*
                    }
                })
            }
        }
        Data::Union(_) => {
            return Err(syn::Error::new_spanned(
                input,
                "sortpath::codec::Decode cannot be derived for a union",
            ))
        }
    };

    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::codec::Decode<#de> for #name #ty_generics #where_clause {
            #[inline]
            fn decode(
                __d: &mut #krate::codec::Decoder<#de>,
            ) -> ::core::result::Result<Self, #krate::codec::Error> {
                #body
            }
        }
    })
}

/// Reads `value` (an expression reading the fields) one nesting level deeper. The level
/// is left on success only: an error ends the decoding, so nothing reads at the wrong
/// depth, and the value is built where it is returned instead of being moved out of a
/// closure's `Result` (a copy of the whole value in some build profiles).
fn nested(value: Tokens) -> Tokens {
    quote! {
        __d.__enter()?;
        let __value = #value;
        __d.__leave();
        ::core::result::Result::Ok(__value)
    }
}

/// Reads one field of a struct or variant.
fn read_field(through_serde: bool) -> Tokens {
    if through_serde {
        quote!(__d.__serde_field()?)
    } else {
        quote!(__d.__field()?)
    }
}
