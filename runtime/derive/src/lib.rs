//! `#[derive(SerdeShape)]`: the shape of what serde's own derive writes for a type — structs
//! as their fields, enums externally tagged (a unit variant by its name, the others with their
//! data), a field serialized `with` the runtime's `hex` as bytes — so a tool can lay out typed
//! columns (wirecat's Parquet export) before it sees a value. It follows serde's derive exactly
//! for the attributes generated code uses (only `with = "...hex"`); any other `serde` attribute
//! is refused, so a shape never silently differs from the serialized value.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::ext::IdentExt;
use syn::{parse_macro_input, Data, DeriveInput, Error, Field, Fields};

/// Implements `wiregen_runtime::SerdeShape` for a struct or an enum that derives
/// `serde::Serialize`.
#[proc_macro_derive(SerdeShape)]
pub fn derive_serde_shape(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match shape_of(&input) {
        Ok(body) => {
            let name = &input.ident;
            let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
            quote! {
                impl #impl_generics wiregen_runtime::SerdeShape for #name #ty_generics #where_clause {
                    fn shape() -> wiregen_runtime::Shape {
                        #body
                    }
                }
            }
            .into()
        }
        Err(e) => e.to_compile_error().into(),
    }
}

fn shape_of(input: &DeriveInput) -> Result<Tokens, Error> {
    match &input.data {
        Data::Struct(s) => fields_shape(&s.fields),
        Data::Enum(e) => {
            let variants = e
                .variants
                .iter()
                .map(|v| {
                    let name = v.ident.unraw().to_string();
                    let data = match &v.fields {
                        Fields::Unit => quote! { None },
                        fields => {
                            let shape = fields_shape(fields)?;
                            quote! { Some(#shape) }
                        }
                    };
                    Ok(quote! { (#name, #data) })
                })
                .collect::<Result<Vec<_>, Error>>()?;
            Ok(quote! { wiregen_runtime::Shape::Variants(vec![#(#variants),*]) })
        }
        Data::Union(u) => Err(Error::new(
            u.union_token.span,
            "SerdeShape: serde does not derive for unions",
        )),
    }
}

/// A struct's (or a variant's) fields: named ones a struct, one unnamed one the newtype's
/// inner value (serde writes a newtype transparently), more a list.
fn fields_shape(fields: &Fields) -> Result<Tokens, Error> {
    match fields {
        Fields::Named(named) => {
            let fields = named
                .named
                .iter()
                .map(|f| {
                    let name = f.ident.as_ref().map(|i| i.unraw().to_string());
                    let shape = field_shape(f)?;
                    Ok(quote! { (#name, #shape) })
                })
                .collect::<Result<Vec<_>, Error>>()?;
            Ok(quote! { wiregen_runtime::Shape::Struct(vec![#(#fields),*]) })
        }
        Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => field_shape(&unnamed.unnamed[0]),
        Fields::Unnamed(unnamed) => Err(Error::new_spanned(
            unnamed,
            "SerdeShape: a tuple of several fields has no one column type",
        )),
        Fields::Unit => Ok(quote! { wiregen_runtime::Shape::Struct(Vec::new()) }),
    }
}

/// A field's shape: its type's, or bytes when serde writes it through the runtime's `hex`.
fn field_shape(f: &Field) -> Result<Tokens, Error> {
    for attr in f.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let mut hex = false;
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("with") {
                let with: syn::LitStr = meta.value()?.parse()?;
                if with.value().ends_with("hex") {
                    hex = true;
                    return Ok(());
                }
            }
            Err(meta.error("SerdeShape knows only `with = \"...hex\"` among serde's attributes"))
        })?;
        if hex {
            return Ok(quote! { wiregen_runtime::Shape::Bytes });
        }
    }
    let ty = &f.ty;
    Ok(quote! { <#ty as wiregen_runtime::SerdeShape>::shape() })
}
