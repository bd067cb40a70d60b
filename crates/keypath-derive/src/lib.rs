//! `#[derive(Encode, Decode)]` for keypath's order-preserving codec. Use them through
//! `keypath` with its `derive` feature, as `keypath::codec::{Encode, Decode}`; the
//! traits' documentation there says what the derived code writes and reads.
//!
//! The derived impls write what serde's derives write through `keypath::codec::to_vec`:
//! fields in declaration order, enum variants by their index. Serde attributes that change
//! that (`skip`, `with`, `flatten`, `tag`, `untagged`, `transparent`, `into`, ...) would make
//! the two disagree, so the derives refuse them; naming attributes (`rename`, `alias`, ...)
//! change nothing in this format and are accepted. A field whose type has no keypath impl
//! can be written and read through serde with `#[keypath(serde)]`.

#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{
    parse_macro_input, parse_quote, Attribute, Data, DeriveInput, Field, Fields, GenericParam,
    Generics, Lifetime, LifetimeParam, Token,
};

/// Derives `keypath::codec::Encode`. See the trait's documentation in `keypath`.
#[proc_macro_derive(Encode, attributes(keypath))]
pub fn derive_encode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_encode(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `keypath::codec::Decode`. See the trait's documentation in `keypath`.
#[proc_macro_derive(Decode, attributes(keypath))]
pub fn derive_decode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_decode(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Serde attributes that do not change what serde writes in keypath's format (names are
/// not written; `default` only fills fields a sequence lacks, and keypath's have them all).
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

/// Refuses serde attributes that change the encoding, and keypath attributes anywhere but
/// on fields. Returns whether a field is marked `#[keypath(serde)]` (`field` is true for
/// fields).
fn check_attrs(attrs: &[Attribute], field: bool) -> syn::Result<bool> {
    let mut through_serde = false;
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
                        "keypath's derives do not follow #[serde({name})]: the keypath \
                         encoding would differ from serde's; remove it, or implement \
                         keypath::codec::Encode/Decode by hand"
                    )));
                }
                skip_meta_value(&meta)
            })?;
        } else if attr.path().is_ident("keypath") {
            if !field {
                return Err(syn::Error::new_spanned(
                    attr,
                    "#[keypath(...)] goes on fields only: #[keypath(serde)]",
                ));
            }
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("serde") {
                    through_serde = true;
                    Ok(())
                } else {
                    Err(meta.error("unknown keypath attribute; the only one is #[keypath(serde)]"))
                }
            })?;
        }
    }
    Ok(through_serde)
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

/// The fields with their `#[keypath(serde)]` marks.
fn fields_of(fields: &Fields) -> syn::Result<Vec<(&Field, bool)>> {
    fields
        .iter()
        .map(|f| Ok((f, check_attrs(&f.attrs, true)?)))
        .collect()
}

/// `generics` with `bound` on every type parameter.
fn bounded(generics: &Generics, bound: &syn::TypeParamBound) -> Generics {
    let mut generics = generics.clone();
    for param in &mut generics.params {
        if let GenericParam::Type(t) = param {
            t.bounds.push(bound.clone());
        }
    }
    generics
}

fn expand_encode(input: &DeriveInput) -> syn::Result<Tokens> {
    check_attrs(&input.attrs, false)?;
    let name = &input.ident;
    let generics = bounded(&input.generics, &parse_quote!(::keypath::codec::Encode));
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    let body =
        match &input.data {
            Data::Struct(data) => {
                let writes = fields_of(&data.fields)?.into_iter().enumerate().map(
                    |(i, (f, through_serde))| {
                        let member = match &f.ident {
                            Some(ident) => quote!(#ident),
                            None => {
                                let index = syn::Index::from(i);
                                quote!(#index)
                            }
                        };
                        write_field(&quote!(&self.#member), through_serde)
                    },
                );
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
                        check_attrs(&variant.attrs, false)?;
                        let index = u32::try_from(index).map_err(|_| {
                            syn::Error::new_spanned(variant, "more than 2^32 variants")
                        })?;
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
                            write_field(&quote!(#b), *through_serde)
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
                    "keypath::codec::Encode cannot be derived for a union",
                ))
            }
        };
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::keypath::codec::Encode for #name #ty_generics #where_clause {
            #[inline]
            fn encode<__S: ::keypath::codec::Sink>(
                &self,
                __e: &mut ::keypath::codec::Encoder<__S>,
            ) -> ::core::result::Result<(), ::keypath::codec::Error> {
                #body
            }
        }
    })
}

/// Writes one field (`value` is a reference to it).
fn write_field(value: &Tokens, through_serde: bool) -> Tokens {
    if through_serde {
        quote!(__e.serde(#value)?;)
    } else {
        quote!(::keypath::codec::Encode::encode(#value, __e)?;)
    }
}

fn expand_decode(input: &DeriveInput) -> syn::Result<Tokens> {
    check_attrs(&input.attrs, false)?;
    let name = &input.ident;
    let de = Lifetime::new("'__de", Span::call_site());
    let mut generics = bounded(
        &input.generics,
        &parse_quote!(::keypath::codec::Decode<#de>),
    );
    // The input outlives every borrow the value holds.
    let mut de_param = LifetimeParam::new(de.clone());
    for lifetime in input.generics.lifetimes() {
        de_param.bounds.push(lifetime.lifetime.clone());
    }
    generics.params.insert(0, GenericParam::Lifetime(de_param));
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
                        quote!(::keypath::codec::Decode::decode(__d)?)
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
                check_attrs(&variant.attrs, false)?;
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
                "keypath::codec::Decode cannot be derived for a union",
            ))
        }
    };

    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::keypath::codec::Decode<#de> for #name #ty_generics #where_clause {
            #[inline]
            fn decode(
                __d: &mut ::keypath::codec::Decoder<#de>,
            ) -> ::core::result::Result<Self, ::keypath::codec::Error> {
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
