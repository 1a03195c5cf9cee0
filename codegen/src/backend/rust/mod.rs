//! Rust backend: a std-only codec crate per schema, emitted with `quote` and formatted with
//! `prettyplease`.

mod application;
mod application_datagrams;
mod application_protocol;
mod arbitrary;
mod codec;
mod decode;
mod encode;
mod expr;
mod extension;
mod features;
mod filters;
mod format;
mod package;
mod paths;
mod protocol;
mod session;
mod types;

use super::header::{Comment, Source};
use super::{wrap, Internal, Output};
use crate::expr::BinOp;
use crate::ir::*;
use crate::lower::analysis::Reuse;
use crate::lower::{Access, Lowered};
use crate::naming;
use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeSet;

pub(crate) use self::features::Features;
use self::{encode::*, expr::*};

/// Where a generated crate takes `wiregen-runtime` from, as its caller said (the Builder's
/// `runtime_path`, `runtime` in wiregen.toml): never found by looking around the machine, so the
/// manifest is a function of the schema and this choice alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeDep {
    /// The published crate (`wiregen-runtime = "0.1"`).
    Published,
    /// A checkout's `runtime/` folder, as a path from the crate's own folder (`../../runtime`);
    /// the version requirement is kept for publishing.
    Path(String),
}

/// What the Rust of a schema is packaged as.
#[derive(Debug, Clone, Copy)]
enum Packaging {
    /// A crate of its own (Cargo.toml, lib.rs, codec.rs), with `serde` and `arbitrary` features.
    Crate,
    /// One file for `include!` into a module of the user's crate (`build.rs` and `OUT_DIR`),
    /// with the derives the options decide.
    Module(ModuleOptions),
}

/// Options of the one-file module form: the user's crate has no `serde`/`arbitrary` features of
/// ours, so each derive is on or off.
#[derive(Debug, Clone, Copy, Default)]
pub struct ModuleOptions {
    /// Derive `serde::Serialize`/`Deserialize` (the user's crate depends on serde and on
    /// `wiregen-runtime` with its `serde` feature).
    pub serde: bool,
    /// Derive `arbitrary::Arbitrary` (the user's crate depends on arbitrary, and on
    /// `wiregen-runtime` with its `arbitrary` feature).
    pub arbitrary: bool,
}

/// The header of every generated Rust file.
fn header(p: &Protocol) -> String {
    crate::backend::header::header(Comment::Slashes, Source::Schema(&p.source)) + "\n"
}

fn parse(tokens: TokenStream) -> Result<syn::File, Internal> {
    syn::parse2(tokens).map_err(|e| Internal(format!("the generated Rust does not parse: {e}")))
}

/// The Rust of one schema as one file, for `include!` into a module (see
/// `wiregen_runtime::include_protocol!`): no inner attributes, the runtime items users need
/// re-exported, other protocols (a base, a transport) named as sibling modules.
pub fn generate_module(
    p: &Protocol,
    l: &Lowered,
    options: ModuleOptions,
) -> Result<String, Internal> {
    let reuse = Reuse::of(p);
    let g = Crate::new(
        p,
        l,
        &reuse,
        &RuntimeDep::Published,
        Packaging::Module(options),
    );
    let body = g.body()?;
    let taken = body.taken();
    let (enums, rest) = (&body.enums, &body.rest);
    let exported: Vec<Ident> = reexported(&taken).map(|i| format_ident!("{}", i)).collect();
    // What users need is re-exported (and so imported) already.
    let imports = imports(&quote! { #enums #rest }, REEXPORTED, &taken);
    let head = parse(quote! {
        pub use wiregen_runtime::{#(#exported),*};
        #imports

        #enums
    })?;
    Ok(header(p) + &body_text(head, &body.declared, parse(rest.clone())?, &taken))
}

/// What a crate or module re-exports from the runtime for its users: the items of
/// [`REEXPORTED`] no schema type takes the name of.
fn reexported(taken: &BTreeSet<String>) -> impl Iterator<Item = &'static str> + '_ {
    REEXPORTED.iter().copied().filter(|i| !taken.contains(*i))
}

/// A file's text: `head`'s items, the enums and flag sets (a renderer's own text: no formatter
/// lays out a macro's body), then `rest`'s items.
/// Items of std or the runtime whose names schema types take are named by path ([`paths`]).
fn body_text(
    mut head: syn::File,
    declared: &[String],
    mut rest: syn::File,
    taken: &BTreeSet<String>,
) -> String {
    let mut qualify = paths::Qualify { taken };
    qualify.file(&mut head);
    qualify.file(&mut rest);
    let mut out = format::layout(&head);
    for f in declared {
        out.push('\n');
        out.push_str(&paths::unmark(f));
    }
    if !rest.items.is_empty() {
        out.push('\n');
        out.push_str(&format::layout(&rest));
    }
    out
}

pub fn generate(
    p: &Protocol,
    l: &Lowered,
    dir: &str,
    runtime: &RuntimeDep,
) -> Result<Vec<Output>, Internal> {
    let reuse = Reuse::of(p);
    let g = Crate::new(p, l, &reuse, runtime, Packaging::Crate);
    let body = g.body()?;
    let taken = body.taken();
    let (enums, rest) = (&body.enums, &body.rest);
    let imports = imports(&quote! { #enums #rest }, &[], &taken);
    let head = parse(quote! {
        //! Types, decoders and encoders of every schema type.

        #imports

        #enums
    })?;
    let codec = header(p) + &body_text(head, &body.declared, parse(rest.clone())?, &taken);
    Ok(vec![
        Output {
            path: format!("{dir}/Cargo.toml"),
            contents: g.package().cargo_toml(),
        },
        Output {
            path: format!("{dir}/src/lib.rs"),
            contents: g.package().lib_rs(&taken),
        },
        Output {
            path: format!("{dir}/src/codec.rs"),
            contents: codec,
        },
    ])
}

/// The items of a schema's code, in file order.
struct Body {
    /// Enums written out as items (those with ranges, an extension's `pub use`).
    enums: TokenStream,
    /// The `wiregen_runtime::enumeration!` and `flags!` invocations, as text.
    declared: Vec<String>,
    rest: TokenStream,
}

impl Body {
    /// The names of std and runtime items that schema types take in this code.
    fn taken(&self) -> BTreeSet<String> {
        let (enums, rest) = (&self.enums, &self.rest);
        let mut taken = paths::taken(&quote! { #enums #rest });
        for text in &self.declared {
            if let Ok(tokens) = text.parse::<TokenStream>() {
                taken.extend(paths::taken(&tokens));
            }
        }
        taken
    }
}

/// What an enum or a flag set is generated as.
pub(crate) enum Declared {
    /// A runtime macro's invocation (text) and the items beside it.
    Macro { text: String, items: TokenStream },
    /// Items only (an enum with ranges; an extension's `pub use` of its base's type).
    Items(TokenStream),
}

/// What every renderer of a schema's Rust reads: the protocol, its lowering, what an extension
/// takes from its base and how the code is packaged. Each renderer (`types::Types`,
/// `decode::Decoder`, `session::TcpModule`, …) holds it, and reaches another through it
/// (`self.c.exprs()`), so what one renders from is in its type.
#[derive(Clone, Copy)]
pub(crate) struct Crate<'p> {
    pub(crate) p: &'p Protocol,
    /// The schema's lowering: each field's access and write plan, the shared facts.
    pub(crate) l: &'p Lowered,
    /// What an extension takes from its base crate.
    reuse: &'p Reuse,
    /// A crate or a module.
    packaging: Packaging,
    /// Where the crate's Cargo.toml takes `wiregen-runtime` from.
    runtime_dep: &'p RuntimeDep,
}

/// The Rust identifier of a schema name (raw, `r#type`, when it is a keyword), marked while
/// the code is built when generated code names an item of std or of the runtime so too
/// ([`paths`]).
pub(crate) fn ident(name: &str) -> Ident {
    if let Some(marked) = paths::schema_name(name) {
        return Ident::new(&marked, Span::call_site());
    }
    rust_name(name)
}

/// The Rust identifier of an enum or switch variant: never marked, as a variant is always named
/// through its enum (`Kind::None`) and cannot hide an item of std or the runtime.
pub(crate) fn variant_ident(name: &str) -> Ident {
    rust_name(name)
}

/// The Rust identifier of a schema name as users read it (raw, `r#type`, when it is a keyword).
pub(crate) fn rust_name(name: &str) -> Ident {
    match syn::parse_str::<Ident>(name) {
        Ok(i) => i,
        Err(_) => Ident::new_raw(name, Span::call_site()),
    }
}

/// A schema's `doc:` text as doc comments. It is plain text (the dissector shows it too):
/// brackets are escaped so that rustdoc takes `char[16]` for text, not a link.
fn doc(d: &Option<String>) -> TokenStream {
    match d {
        Some(text) => {
            let lines = doc_lines(text, true).into_iter().map(|l| format!(" {l}"));
            quote! { #( #[doc = #lines] )* }
        }
        None => quote! {},
    }
}

/// The generator's own documentation (rustdoc links allowed) as doc comments, long lines
/// wrapped.
fn doc_prose(text: &str) -> TokenStream {
    let lines = doc_lines(text, false).into_iter().map(|l| format!(" {l}"));
    quote! { #( #[doc = #lines] )* }
}

/// The lines of doc text, brackets escaped when `plain` (see [`doc`]), lines over
/// [`DOC_WIDTH`](crate::backend::DOC_WIDTH) wrapped at spaces (an indented line is kept: it may be laid out on purpose).
fn doc_lines(text: &str, plain: bool) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = if plain {
            line.replace('[', "\\[").replace(']', "\\]")
        } else {
            line.to_string()
        };
        let line = line.trim_end();
        if line.len() <= crate::backend::DOC_WIDTH || line.starts_with(' ') {
            out.push(line.to_string());
        } else {
            out.extend(crate::backend::wrap(line));
        }
    }
    out
}

fn int_rust(it: &IntTy) -> Ident {
    format_ident!("{}{}", if it.signed { "i" } else { "u" }, it.storage_bits())
}

/// `v` (an expression of Rust type `from`) as Rust type `to`: cast only where the types differ,
/// so the generated code has no no-op casts.
fn cast(v: TokenStream, from: &Ident, to: &Ident) -> TokenStream {
    if from == to {
        v
    } else {
        quote! { #v as #to }
    }
}

/// `v` as a method receiver of Rust type `to` (parenthesised only when cast).
fn cast_receiver(v: TokenStream, from: &Ident, to: &Ident) -> TokenStream {
    if from == to {
        v
    } else {
        quote! { (#v as #to) }
    }
}

/// `t` without its outer parentheses, for a place that needs none (an argument, a `let`).
fn bare(t: TokenStream) -> TokenStream {
    ungrouped(t, proc_macro2::Delimiter::Parenthesis)
}

/// What `t` holds inside its delimiters when it is one group delimited so, else `t`.
fn ungrouped(t: TokenStream, delimiter: proc_macro2::Delimiter) -> TokenStream {
    let mut it = t.clone().into_iter();
    match (it.next(), it.next()) {
        (Some(proc_macro2::TokenTree::Group(g)), None) if g.delimiter() == delimiter => g.stream(),
        _ => t,
    }
}

/// `v` (a place of type `ty`) by value: copied when it is a scalar, else cloned.
fn copy_of(v: TokenStream, ty: &Ty) -> TokenStream {
    if ty.is_scalar() {
        v
    } else {
        quote! { #v.clone() }
    }
}

/// The key fields `keys` of struct `s`, read from the value `holder` by value (see [`copy_of`]).
fn key_copies(s: &Struct, keys: &[usize], holder: &str) -> Vec<TokenStream> {
    let holder = ident(holder);
    keys.iter()
        .map(|k| {
            let n = ident(&s.fields[*k].name);
            copy_of(quote! { #holder.#n }, &s.fields[*k].ty)
        })
        .collect()
}

/// `name: local` in a struct expression, or the shorthand `name` when the local has its name.
fn field_init(name: &str, local: &Ident) -> TokenStream {
    let n = format_ident!("{}", name);
    if *local == name {
        quote! { #n }
    } else {
        quote! { #n: #local }
    }
}

/// A constant field's value as the schema wrote it (`0xD1CE`, or decimal), untyped.
fn const_lit(f: &Field, value: u64) -> TokenStream {
    match &f.const_text {
        Some(hex) => hex.parse().unwrap_or_else(|_| lit_hex(value)),
        None => {
            let l = lit_u64(value);
            quote! { #l }
        }
    }
}

/// A constant field's value of Rust type `ty`, as the schema wrote it (`0xD1CE_u16`, `5u8`,
/// `(-1_i8)`: in brackets, as a method call binds tighter than the minus).
fn const_typed(f: &Field, value: u64, ty: &Ident) -> TokenStream {
    if let Some(lit) = negative_literal(f, ty) {
        return format!("({lit})").parse().expect("a negative literal");
    }
    match &f.const_text {
        Some(hex) => format!("{hex}_{ty}").parse().unwrap_or_else(|_| {
            let l = lit_typed(value, ty);
            quote! { #l }
        }),
        None => {
            let l = lit_typed(value, ty);
            quote! { #l }
        }
    }
}

/// A constant the schema wrote negative, as a literal of Rust type `ty` (`-1_i8`; None when it
/// is not one).
fn negative_literal(f: &Field, ty: &Ident) -> Option<String> {
    let text = f.const_text.as_deref().filter(|_| f.const_negative())?;
    Some(format!("{text}_{ty}"))
}

/// An integer literal of Rust type `ty` (`53710u16`).
fn lit_typed(v: u64, ty: &Ident) -> Literal {
    format!("{v}{ty}").parse().expect("an integer literal")
}

fn lit_u64(v: u64) -> Literal {
    Literal::u64_unsuffixed(v)
}

fn lit_usize(v: usize) -> Literal {
    Literal::usize_unsuffixed(v)
}

impl<'p> Crate<'p> {
    fn new(
        p: &'p Protocol,
        l: &'p Lowered,
        reuse: &'p Reuse,
        runtime_dep: &'p RuntimeDep,
        packaging: Packaging,
    ) -> Self {
        Crate {
            p,
            l,
            reuse,
            packaging,
            runtime_dep,
        }
    }

    /// A temporary of the coders of struct `sid` named `base`, unless a field's local has that
    /// name (then `base_`: see [`crate::lower::fresh`]).
    fn temp(&self, sid: StructId, base: &str) -> Ident {
        ident(&crate::lower::fresh(base.into(), &self.p.structs[sid]))
    }

    /// Whether struct `sid` is a bit stream (its layout decides how all of its fields are read
    /// and written).
    fn bits(&self, sid: StructId) -> bool {
        self.p.structs[sid].layout.is_bits()
    }

    /// Whether field `fi` of struct `sid` is read and written as bits: in a bit stream, or
    /// packed into a bit group (whose reader and writer stand in for the byte ones).
    fn bits_at(&self, sid: StructId, fi: usize) -> bool {
        self.l.field(sid, fi).access.is_bits()
    }

    /// Every item of the schema's code.
    fn body(&self) -> Result<Body, Internal> {
        let p = self.p;
        let (mut enums, mut declared, mut beside) = (Vec::new(), Vec::new(), Vec::new());
        for e in &p.enums {
            match self.types().enum_def(e) {
                Declared::Macro { text, items } => {
                    declared.push(text);
                    beside.push(items);
                }
                Declared::Items(items) => enums.push(items),
            }
        }
        for f in &p.flags {
            match self.types().flags_def(f) {
                Declared::Macro { text, items } => {
                    declared.push(text);
                    beside.push(items);
                }
                Declared::Items(items) => beside.push(items),
            }
        }
        declared.extend(self.types_declaration());
        let mut structs = Vec::new();
        for id in 0..p.structs.len() {
            structs.push(self.types().struct_def(id)?);
        }
        let own_notes = self.extension().own_notes();
        let crcs = self.codec_impls().crc_statics();
        let renames = self.filters().filter_renames(&quote! { #(#structs)* });
        let tcp = self.tcp().tcp_module();
        let conversation = self.conversation().conversation_module();
        let reassembly = self.reassembly().reassembly_module()?;
        let state = self.state().state_module()?;
        let joins = self.joins().joins_module()?;
        let facts = self.facts().facts_module();
        let application = self.application().application_module()?;
        let protocol = self.marker().protocol_marker()?;
        // A crate without the runtime's `zlib` feature stops at this line, naming it (rather
        // than at rustc's errors about the items the feature brings).
        let requires = p
            .uses_compression()
            .then(|| quote! { wiregen_runtime::requires_zlib!(); });
        Ok(Body {
            enums: quote! { #requires #(#enums)* },
            declared,
            rest: quote! {
            #(#beside)*
            #crcs
            #(#structs)*
            #own_notes
            #renames
            #tcp
            #conversation
            #reassembly
            #state
            #joins
            #facts
            #application
            #protocol
            },
        })
    }

    /// `wiregen_runtime::types!` of the structs this code declares (those an extension takes
    /// from its base are its base's), as text laid out within 100 columns.
    fn types_declaration(&self) -> Option<String> {
        let names: Vec<String> = (0..self.p.structs.len())
            .filter(|&id| !(self.reuse.structs[id] && self.extension().base_crate().is_some()))
            .map(|id| self.ty_anon(id).to_string().replace(" < '_ >", "<'_>"))
            .collect();
        if names.is_empty() {
            return None;
        }
        let mut text = String::from(
            "// Each schema type named apart from the bytes it borrows (`wiregen_runtime::Type`).\n\
             wiregen_runtime::types! {\n",
        );
        let mut line = String::from("   ");
        for name in names {
            if line.len() + name.len() + 2 > 100 {
                text += &line;
                text.push('\n');
                line = String::from("   ");
            }
            line += &format!(" {name},");
        }
        text += &line;
        text += "\n}\n";
        Some(text)
    }

    /// A struct's type with an anonymous lifetime when it borrows (`Name<'_>`).
    fn ty_anon(&self, id: StructId) -> TokenStream {
        let n = ident(&self.p.structs[id].name);
        if self.l.borrows[id] {
            quote! { #n<'_> }
        } else {
            quote! { #n }
        }
    }

    fn lifetime(&self, id: StructId) -> TokenStream {
        if self.l.borrows[id] {
            quote! { <'a> }
        } else {
            quote! {}
        }
    }

    /// How this output switches serde and arbitrary.
    fn features(&self) -> Features {
        match self.packaging {
            Packaging::Crate => Features::Crate,
            Packaging::Module(o) => Features::Module(o),
        }
    }

    fn union_borrows(&self, u: &Union) -> bool {
        self.l.union_borrows(u)
    }
}

/// Each renderer, over the same protocol.
impl<'p> Crate<'p> {
    pub(crate) fn types(self) -> types::Types<'p> {
        types::Types { c: self }
    }

    pub(crate) fn exprs(self) -> expr::Exprs<'p> {
        expr::Exprs { c: self }
    }

    pub(crate) fn decoder(self) -> decode::Decoder<'p> {
        decode::Decoder { c: self }
    }

    pub(crate) fn encoder(self) -> encode::Encoder<'p> {
        encode::Encoder { c: self }
    }

    pub(crate) fn codec_impls(self) -> codec::CodecImpls<'p> {
        codec::CodecImpls { c: self }
    }

    pub(crate) fn arbitrary_values(self) -> arbitrary::ArbitraryValues<'p> {
        arbitrary::ArbitraryValues { c: self }
    }

    pub(crate) fn extension(self) -> extension::Extension<'p> {
        extension::Extension { c: self }
    }

    pub(crate) fn filters(self) -> filters::FilterRenames<'p> {
        filters::FilterRenames { c: self }
    }

    pub(crate) fn package(self) -> package::Package<'p> {
        package::Package { c: self }
    }

    pub(crate) fn marker(self) -> protocol::ProtocolMarker<'p> {
        protocol::ProtocolMarker { c: self }
    }

    pub(crate) fn application(self) -> application::ApplicationModule<'p> {
        application::ApplicationModule { c: self }
    }

    pub(crate) fn datagrams(self) -> application_datagrams::ApplicationDatagrams<'p> {
        application_datagrams::ApplicationDatagrams { c: self }
    }

    pub(crate) fn application_marker(self) -> application_protocol::ApplicationMarker<'p> {
        application_protocol::ApplicationMarker { c: self }
    }

    pub(crate) fn stateful_draws(self) -> session::StatefulDraws<'p> {
        session::StatefulDraws { c: self }
    }

    pub(crate) fn carriers(self) -> session::Carriers<'p> {
        session::Carriers { c: self }
    }

    pub(crate) fn conversation(self) -> session::ConversationModule<'p> {
        session::ConversationModule { c: self }
    }

    pub(crate) fn facts(self) -> session::FactsModule<'p> {
        session::FactsModule { c: self }
    }

    pub(crate) fn joined(self) -> session::JoinedItems<'p> {
        session::JoinedItems { c: self }
    }

    pub(crate) fn joins(self) -> session::JoinsModule<'p> {
        session::JoinsModule { c: self }
    }

    pub(crate) fn reassembly(self) -> session::ReassemblyModule<'p> {
        session::ReassemblyModule { c: self }
    }

    pub(crate) fn state(self) -> session::StateModule<'p> {
        session::StateModule { c: self }
    }

    pub(crate) fn tcp(self) -> session::TcpModule<'p> {
        session::TcpModule { c: self }
    }
}

use crate::naming::{REEXPORTED, RUNTIME_ITEMS};

/// The `use` items of `body`: exactly the runtime items it names (a crate of bit-stream types
/// needs no byte reader, one without checksums no `Crc`) but those in `already`, and `Cow`.
fn imports(body: &TokenStream, already: &[&str], taken: &BTreeSet<String>) -> TokenStream {
    let mut named = idents(body);
    // A trait named only by the method it gives (`.within("field")`).
    if calls_method(body, "within") {
        named.insert("Within".to_string());
    }
    let runtime: Vec<Ident> = RUNTIME_ITEMS
        .iter()
        .filter(|i| named.contains(**i) && !already.contains(i) && !taken.contains(**i))
        .map(|i| format_ident!("{}", i))
        .collect();
    let cow =
        (named.contains("Cow") && !taken.contains("Cow")).then(|| quote! { use std::borrow::Cow; });
    // A runtime trait whose name a schema type takes is still in scope for its methods
    // (`.encode()`, `T::decode`), anonymously.
    let traits: Vec<Ident> = paths::RUNTIME_TRAITS
        .iter()
        .filter(|t| named.contains(**t) && taken.contains(**t))
        .map(|t| format_ident!("{}", t))
        .collect();
    quote! {
        #cow
        use wiregen_runtime::{#(#runtime),*};
        #( use wiregen_runtime::#traits as _; )*
    }
}

/// Whether `tokens` call method `name` (`.name(`), not merely name something so (a field).
fn calls_method(tokens: &TokenStream, name: &str) -> bool {
    let mut dot = false;
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Punct(p) => {
            dot = p.as_char() == '.';
            false
        }
        proc_macro2::TokenTree::Ident(i) => std::mem::take(&mut dot) && i == name,
        proc_macro2::TokenTree::Group(g) => {
            dot = false;
            calls_method(&g.stream(), name)
        }
        proc_macro2::TokenTree::Literal(_) => {
            dot = false;
            false
        }
    })
}

/// Every identifier `tokens` refers to (not the names it declares as associated types:
/// `type Reader<T> = BitReader<'a, T>` names `BitReader` only).
fn idents(tokens: &TokenStream) -> std::collections::HashSet<String> {
    fn walk(tokens: TokenStream, out: &mut std::collections::HashSet<String>) {
        let mut declaring = false;
        for t in tokens {
            match t {
                proc_macro2::TokenTree::Ident(i) => {
                    let name = i.to_string();
                    if !declaring {
                        out.insert(name.clone());
                    }
                    declaring = name == "type";
                    continue;
                }
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                _ => {}
            }
            declaring = false;
        }
    }
    let mut out = std::collections::HashSet::new();
    walk(tokens.clone(), &mut out);
    out
}

/// The runtime's reader and writer of a layout.
pub(crate) fn reader_writer(layout: Layout) -> (TokenStream, TokenStream) {
    match layout {
        Layout::Bytes => (quote! { Reader }, quote! { Writer }),
        Layout::LsbBits => (quote! { BitReader }, quote! { BitWriter }),
        Layout::MsbBits => (quote! { MsbBitReader }, quote! { MsbBitWriter }),
    }
}

/// An expression as the decoder writes it (for the table test of every target's printing).
#[cfg(test)]
pub(crate) fn decoded_expr(p: &Protocol, l: &Lowered, e: &Expr) -> String {
    let reuse = Reuse::of(p);
    let c = Crate::new(p, l, &reuse, &RuntimeDep::Published, Packaging::Crate);
    c.exprs().expr_top(e, Ctx::Decode).to_string()
}
