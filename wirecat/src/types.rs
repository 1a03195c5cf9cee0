//! What wirecat does with the types of one protocol: list them, decode bytes as one, encode
//! JSON as one. The type is chosen by name at run time and known to the code as a parameter.

use wiregen_runtime::{Codec, DecodeErrorKind, SerdeProtocol, SerdeTypeVisitor, Type};

/// Something wirecat does with one protocol, whichever it is (see [`Registry::run`](crate::cli::Registry::run)).
pub trait Job {
    type Output;
    fn run<P: SerdeProtocol>(self) -> Self::Output;
}

fn to_json<T: serde::Serialize>(v: T) -> Result<serde_json::Value, String> {
    serde_json::to_value(v).map_err(|e| e.to_string())
}

fn unknown_type(name: &str) -> String {
    format!("unknown type '{name}' (`list` or `types` names them)")
}

/// (title, type names) of a protocol.
pub struct List;

impl Job for List {
    type Output = (&'static str, Vec<&'static str>);
    fn run<P: SerdeProtocol>(self) -> Self::Output {
        struct Names(Vec<&'static str>);
        impl SerdeTypeVisitor for Names {
            fn visit<T: Type>(&mut self)
            where
                for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>,
            {
                self.0.push(<T::Of<'static> as Codec<'static>>::NAME);
            }
        }
        let mut names = Names(Vec::new());
        P::each_serde_type(&mut names);
        (P::TITLE, names.0)
    }
}

/// What to do with the one type `--type` names: the type is known only as a parameter.
trait OnType {
    type Output;
    fn on<T: Type>(self) -> Result<Self::Output, String>
    where
        for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>;
}

/// Runs `action` on protocol `P`'s type called `ty` (default: its root).
fn on_type<P: SerdeProtocol, A: OnType>(ty: Option<&str>, action: A) -> Result<A::Output, String> {
    struct Find<'t, A: OnType> {
        ty: &'t str,
        action: Option<A>,
        out: Option<Result<A::Output, String>>,
    }
    impl<A: OnType> SerdeTypeVisitor for Find<'_, A> {
        fn visit<T: Type>(&mut self)
        where
            for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>,
        {
            if <T::Of<'static> as Codec<'static>>::NAME == self.ty {
                if let Some(action) = self.action.take() {
                    self.out = Some(action.on::<T>());
                }
            }
        }
    }
    let ty = ty.unwrap_or(<P::Root<'static> as Codec<'static>>::NAME);
    let mut find = Find {
        ty,
        action: Some(action),
        out: None,
    };
    P::each_serde_type(&mut find);
    find.out.unwrap_or_else(|| Err(unknown_type(ty)))
}

/// Decodes bytes as a named type (default: the root) into JSON.
pub struct Decode<'b> {
    pub ty: Option<&'b str>,
    pub bytes: &'b [u8],
    /// The bytes were realigned from a bit offset: a last zero byte may be padding alone.
    pub realigned: bool,
}

impl OnType for Decode<'_> {
    type Output = serde_json::Value;
    fn on<T: Type>(self) -> Result<serde_json::Value, String>
    where
        for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>,
    {
        match T::Of::decode(self.bytes) {
            // Bytes realigned from a bit offset (a payload as the dissector shows it: 52 bits
            // in 7 bytes) may end with a byte that is padding alone; one whole zero byte is
            // taken for that, nothing more.
            Err(e)
                if self.realigned
                    && matches!(e.kind, DecodeErrorKind::Trailing { bytes: 1 })
                    && self.bytes.last() == Some(&0) =>
            {
                T::Of::decode(&self.bytes[..self.bytes.len() - 1]).map_err(|_| e.to_string())
            }
            v => v.map_err(|e| e.to_string()),
        }
        .and_then(to_json)
    }
}

impl Job for Decode<'_> {
    type Output = Result<serde_json::Value, String>;
    fn run<P: SerdeProtocol>(self) -> Self::Output {
        if self.ty.is_none() && !root_is_own::<P>() {
            // An application: its datagrams are its transport's, with the game message inside.
            let datagram = P::decode_datagram(&mut Default::default(), true, self.bytes)
                .map_err(|e| e.to_string())?;
            return P::serialize_datagram(&datagram, serde_json::value::Serializer)
                .map_err(|e| e.to_string());
        }
        on_type::<P, _>(self.ty, self)
    }
}

/// Whether `P`'s root type is one of its own (not an application's transport's).
fn root_is_own<P: SerdeProtocol>() -> bool {
    let root = <P::Root<'static> as Codec<'static>>::NAME;
    List.run::<P>().1.contains(&root)
}

/// Encodes a JSON value of a named type (default: the root).
pub struct Encode<'j> {
    pub ty: Option<&'j str>,
    pub json: &'j str,
}

impl OnType for Encode<'_> {
    type Output = Vec<u8>;
    fn on<T: Type>(self) -> Result<Vec<u8>, String>
    where
        for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>,
    {
        serde_json::from_str::<T::Of<'_>>(self.json)
            .map_err(|e| format!("invalid JSON for this type: {e}"))
            .and_then(|v| v.encode().map_err(|e| e.to_string()))
    }
}

impl Job for Encode<'_> {
    type Output = Result<Vec<u8>, String>;
    fn run<P: SerdeProtocol>(self) -> Self::Output {
        if self.ty.is_none() && !root_is_own::<P>() {
            return Err(format!(
                "'{}' is an application: its datagrams are its transport's; name one of its \
                 types with --type (a payload), or encode the datagram with the transport",
                P::NAME
            ));
        }
        on_type::<P, _>(self.ty, self)
    }
}
