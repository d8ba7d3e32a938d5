//! `#[derive(FromInput)]`: a request body's reader, generated from the struct's own description,
//! so a limit is written once and the OpenAPI document and the 422s cannot drift apart.
//!
//! Each field is read by what its type and attributes already say: the wire name from
//! `#[serde(rename)]`, lengths and ranges from `#[schema(min_length, max_length, minimum,
//! maximum)]`, `#[schema(format = "email")]` for addresses; `Option<_>` fields are optional,
//! `bool` a boolean, `Uuid` a UUID (required unless in an `Option`), integers a whole number in range, any other type a
//! string enum (`StringEnum`). What the schema cannot say goes in `#[input(...)]` on the field:
//! `password = MIN` (taken as typed, MIN to 256 characters), `http_url` (an absolute http(s)
//! URL), `present` (an optional field that, once sent, must pass as a required one: partial
//! updates), `max = EXPR` (a length the schema leaves out), `with = path` (`fn(&mut Input,
//! &str) -> Option<T>` for anything else); and on the struct, `before = path`
//! (`fn(&mut Input) -> Option<()>`, run first, for rules across fields).

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::{
    parse_macro_input, Data, DeriveInput, Expr, Fields, GenericArgument, LitStr, PathArguments,
    Type,
};

#[proc_macro_derive(FromInput, attributes(input))]
pub fn derive_from_input(item: TokenStream) -> TokenStream {
    let input = parse_macro_input!(item as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// What one field's attributes say about reading it.
#[derive(Default)]
struct Rules {
    name: Option<String>,
    min: Option<Expr>,
    max: Option<Expr>,
    minimum: Option<Expr>,
    maximum: Option<Expr>,
    format: Option<String>,
    password: Option<Expr>,
    http_url: bool,
    present: bool,
    with: Option<syn::Path>,
}

fn expand(item: &DeriveInput) -> syn::Result<Tokens> {
    let ident = &item.ident;
    let Data::Struct(data) = &item.data else {
        return Err(syn::Error::new_spanned(ident, "FromInput reads structs"));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(
            ident,
            "FromInput reads named fields",
        ));
    };
    let mut before = None;
    for attr in item.attrs.iter().filter(|a| a.path().is_ident("input")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("before") {
                before = Some(meta.value()?.parse::<syn::Path>()?);
                Ok(())
            } else {
                Err(meta.error("expected `before = path`"))
            }
        })?;
    }
    let mut reads = Vec::new();
    let mut fills = Vec::new();
    for field in &fields.named {
        let name = field.ident.as_ref().expect("named field");
        let rules = rules(field)?;
        let wire = rules.name.clone().unwrap_or_else(|| name.to_string());
        let (optional, inner) = match option_of(&field.ty) {
            Some(inner) => (true, inner),
            None => (false, &field.ty),
        };
        let read = read_of(&rules, &wire, optional, inner, field)?;
        reads.push(quote! { let #name = #read; });
        fills.push(if optional {
            quote! { #name }
        } else {
            quote! { #name: #name? }
        });
    }
    let before = before.map(|path| quote! { #path(input)?; });
    Ok(quote! {
        impl ::shipmate_types::input::FromInput for #ident {
            fn read(input: &mut ::shipmate_types::input::Input) -> ::core::option::Option<Self> {
                #before
                #(#reads)*
                ::core::option::Option::Some(#ident { #(#fills),* })
            }
        }
    })
}

/// The expression reading one field: an `Option` of the field's inner type.
fn read_of(
    rules: &Rules,
    wire: &str,
    optional: bool,
    inner: &Type,
    field: &syn::Field,
) -> syn::Result<Tokens> {
    if let Some(with) = &rules.with {
        return Ok(quote! { #with(input, #wire) });
    }
    let kind = type_name(inner);
    let need = |e: &Option<Expr>, what: &str| {
        e.clone()
            .ok_or_else(|| syn::Error::new_spanned(field, format!("FromInput needs {what}")))
    };
    Ok(match kind.as_deref() {
        Some("String") => {
            if let Some(min) = &rules.password {
                quote! { input.password(#wire, #min) }
            } else if rules.format.as_deref() == Some("email") {
                if optional {
                    quote! { input.opt_email(#wire) }
                } else {
                    quote! { input.email(#wire) }
                }
            } else if rules.http_url {
                let max = rules
                    .max
                    .clone()
                    .map_or_else(|| quote! { 2_048 }, |m| quote! { #m });
                quote! { input.opt_http_url(#wire, #max) }
            } else {
                let max = need(&rules.max, "a max_length")?;
                let min = rules
                    .min
                    .clone()
                    .map_or_else(|| quote! { 1 }, |m| quote! { #m });
                if !optional {
                    quote! { input.string(#wire, #min, #max) }
                } else if rules.present {
                    quote! { input.present(#wire, |i| i.string(#wire, #min, #max)) }
                } else {
                    quote! { input.opt_string(#wire, #max) }
                }
            }
        }
        Some("bool") => quote! { input.opt_bool(#wire) },
        Some("Uuid") if optional => quote! { input.opt_uuid(#wire) },
        Some("Uuid") => quote! { input.uuid(#wire) },
        Some("i16" | "i32" | "i64" | "u8" | "u16" | "u32") => {
            let (lo, hi) = (
                need(&rules.minimum, "a minimum")?,
                need(&rules.maximum, "a maximum")?,
            );
            let read = if optional {
                quote! { opt_int }
            } else {
                quote! { int }
            };
            quote! { input.#read(#wire, #lo, #hi).map(|n| n as #inner) }
        }
        _ if optional => quote! { input.opt_enum::<#inner>(#wire) },
        _ => quote! { input.enum_value::<#inner>(#wire) },
    })
}

fn rules(field: &syn::Field) -> syn::Result<Rules> {
    let mut rules = Rules::default();
    for attr in &field.attrs {
        if attr.path().is_ident("serde") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    rules.name = Some(meta.value()?.parse::<LitStr>()?.value());
                    Ok(())
                } else {
                    skip(&meta)
                }
            })?;
        } else if attr.path().is_ident("schema") {
            attr.parse_nested_meta(|meta| {
                let key = meta
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                match key.as_str() {
                    "min_length" => rules.min = Some(meta.value()?.parse()?),
                    "max_length" => rules.max = Some(meta.value()?.parse()?),
                    "minimum" => rules.minimum = Some(meta.value()?.parse()?),
                    "maximum" => rules.maximum = Some(meta.value()?.parse()?),
                    "format" => rules.format = Some(meta.value()?.parse::<LitStr>()?.value()),
                    _ => return skip(&meta),
                }
                Ok(())
            })?;
        } else if attr.path().is_ident("input") {
            attr.parse_nested_meta(|meta| {
                let key = meta
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                match key.as_str() {
                    "password" => rules.password = Some(meta.value()?.parse()?),
                    "max" => rules.max = Some(meta.value()?.parse()?),
                    "with" => rules.with = Some(meta.value()?.parse()?),
                    "http_url" => rules.http_url = true,
                    "present" => rules.present = true,
                    _ => {
                        return Err(meta.error("expected password, max, with, http_url or present"))
                    }
                }
                Ok(())
            })?;
        }
    }
    Ok(rules)
}

/// Passes over an attribute entry this derive does not read (`default`, `example = ...`).
fn skip(meta: &ParseNestedMeta) -> syn::Result<()> {
    while !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

fn option_of(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        PathArguments::AngleBracketed(a) => match a.args.first()? {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}
