//! The traits generated code implements, and the reading and writing vocabulary both layouts
//! (bytes, LSB-first and MSB-first bits) share.

use crate::{
    BitReader, BitWriter, DecodeError, EncodeError, FieldNote, NoTrace, Notes, Reader, StateTables,
    Trace, Writer,
};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// What the byte reader and the bit reader both do: start over a buffer, read with conversation
/// state, end a message, hand over the dissect trace.
pub trait Read<'a>: Sized {
    /// A reader at the start of `buf`.
    fn new(buf: &'a [u8]) -> Self;
    /// The same reader, reading values typed by the lists `tables` keeps.
    fn with_state(self, tables: Rc<StateTables>) -> Self;
    /// The same reader, reading a message sent by the client (`from_client`) or the server.
    fn with_direction(self, from_client: bool) -> Self;
    /// The end of a whole message: nothing but padding may be left.
    fn finish(&mut self) -> Result<(), DecodeError>;
    /// The fields noted so far (empty when not tracing).
    fn into_notes(self) -> Vec<FieldNote<'a>>;
}

/// What the byte writer and the bit writer both do.
pub trait Write<'o>: Sized {
    /// A writer appending to `buf`.
    fn new(buf: &'o mut Vec<u8>) -> Self;
    /// The same writer, writing a message the client (`from_client`) or the server sends.
    fn with_direction(self, from_client: bool) -> Self;
}

impl<'a, T: Trace<'a>> Read<'a> for Reader<'a, T> {
    #[inline]
    fn new(buf: &'a [u8]) -> Self {
        Reader::new(buf)
    }
    #[inline]
    fn with_state(self, tables: Rc<StateTables>) -> Self {
        Reader::with_state(self, tables)
    }
    #[inline]
    fn with_direction(self, from_client: bool) -> Self {
        Reader::with_direction(self, from_client)
    }
    #[inline]
    fn finish(&mut self) -> Result<(), DecodeError> {
        Reader::finish(self)
    }
    #[inline]
    fn into_notes(self) -> Vec<FieldNote<'a>> {
        Reader::into_notes(self)
    }
}

impl<'a, T: Trace<'a>, const MSB: bool> Read<'a> for BitReader<'a, T, MSB> {
    #[inline]
    fn new(buf: &'a [u8]) -> Self {
        BitReader::new(buf)
    }
    /// Bit-stream types read no conversation state (validation refuses state lists in them).
    #[inline]
    fn with_state(self, _: Rc<StateTables>) -> Self {
        self
    }
    #[inline]
    fn with_direction(self, from_client: bool) -> Self {
        BitReader::with_direction(self, from_client)
    }
    #[inline]
    fn finish(&mut self) -> Result<(), DecodeError> {
        BitReader::finish(self)
    }
    #[inline]
    fn into_notes(self) -> Vec<FieldNote<'a>> {
        BitReader::into_notes(self)
    }
}

impl<'o> Write<'o> for Writer<'o> {
    #[inline]
    fn new(buf: &'o mut Vec<u8>) -> Self {
        Writer::new(buf)
    }
    #[inline]
    fn with_direction(self, from_client: bool) -> Self {
        Writer::with_direction(self, from_client)
    }
}

impl<'o, const MSB: bool> Write<'o> for BitWriter<'o, MSB> {
    #[inline]
    fn new(buf: &'o mut Vec<u8>) -> Self {
        BitWriter::new(buf)
    }
    #[inline]
    fn with_direction(self, from_client: bool) -> Self {
        BitWriter::with_direction(self, from_client)
    }
}

/// One schema type: decoded from bytes it may borrow (`'a`), encoded with its derived fields
/// (lengths, counts, tags, checksums) filled in. Generated code implements the hidden `read`
/// and `write`; the public operations are provided.
pub trait Codec<'a>: Sized {
    /// The schema's name of the type.
    const NAME: &'static str;

    /// The size of every encoding of this type, when all have one (fixed-size fields only):
    /// [`Codec::encode`] allocates exactly that.
    const ENCODED_SIZE: Option<usize> = None;

    /// The reader of this type's layout ([`Reader`] or [`BitReader`]), keeping a trace `T`.
    #[doc(hidden)]
    type Reader<T: Trace<'a>>: Read<'a>;
    /// The writer of this type's layout ([`Writer`] or [`BitWriter`]).
    #[doc(hidden)]
    type Writer<'o>: Write<'o>;

    /// Reads one value where `r` stands; generic over the trace, so that plain decoding pays
    /// nothing for what dissecting notes.
    #[doc(hidden)]
    fn read<T: Trace<'a>>(r: &mut Self::Reader<T>) -> Result<Self, DecodeError>;

    /// Appends this value to `w`.
    #[doc(hidden)]
    fn write(&self, w: &mut Self::Writer<'_>) -> Result<(), EncodeError>;

    /// Renames noted fields (an extension notes the types it takes from its base crate under its
    /// own filter names).
    #[doc(hidden)]
    #[inline]
    fn own_notes(notes: Vec<FieldNote<'a>>) -> Vec<FieldNote<'a>> {
        notes
    }

    /// Decodes one whole value from `bytes`; trailing bytes are an error.
    #[inline]
    fn decode(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        read_value(&mut Self::Reader::<NoTrace>::new(bytes))
    }

    /// Decodes like [`Codec::decode`] and also returns every field as the dissector shows it
    /// (filter name, offset, length, value), up to the point of any error.
    fn dissect(bytes: &'a [u8]) -> (Result<Self, DecodeError>, Vec<FieldNote<'a>>) {
        let (v, notes) = read_whole(Self::Reader::<Notes<'a>>::new(bytes));
        (v, Self::own_notes(notes))
    }

    /// Decodes like [`Codec::decode`] a message sent by the client (`from_client`) or the
    /// server: a type whose layout depends on the direction (`@from_client`) needs it.
    #[inline]
    fn decode_from(bytes: &'a [u8], from_client: bool) -> Result<Self, DecodeError> {
        read_value(&mut Self::Reader::<NoTrace>::new(bytes).with_direction(from_client))
    }

    /// Dissects like [`Codec::dissect`] a message sent by the client (`from_client`) or the
    /// server.
    fn dissect_from(
        bytes: &'a [u8],
        from_client: bool,
    ) -> (Result<Self, DecodeError>, Vec<FieldNote<'a>>) {
        let r = Self::Reader::<Notes<'a>>::new(bytes).with_direction(from_client);
        let (v, notes) = read_whole(r);
        (v, Self::own_notes(notes))
    }

    /// Decodes like [`Codec::decode_in`] a message sent by the client (`from_client`) or the
    /// server.
    #[doc(hidden)]
    #[inline]
    fn decode_in_from(
        bytes: &'a [u8],
        tables: &Rc<StateTables>,
        from_client: bool,
    ) -> Result<Self, DecodeError> {
        let mut r = Self::Reader::<NoTrace>::new(bytes)
            .with_state(tables.clone())
            .with_direction(from_client);
        read_value(&mut r)
    }

    /// Decodes like [`Codec::decode`], reading values typed by the lists that earlier messages
    /// announced (`tables`: a generated crate's `State` keeps them).
    #[doc(hidden)]
    #[inline]
    fn decode_in(bytes: &'a [u8], tables: &Rc<StateTables>) -> Result<Self, DecodeError> {
        read_value(&mut Self::Reader::<NoTrace>::new(bytes).with_state(tables.clone()))
    }

    /// Dissects like [`Codec::dissect`], with the lists `tables` keeps.
    #[doc(hidden)]
    fn dissect_in(
        bytes: &'a [u8],
        tables: &Rc<StateTables>,
    ) -> (Result<Self, DecodeError>, Vec<FieldNote<'a>>) {
        let r = Self::Reader::<Notes<'a>>::new(bytes).with_state(tables.clone());
        let (v, notes) = read_whole(r);
        (v, Self::own_notes(notes))
    }

    /// Encodes into a new buffer, filling in the derived fields: one allocation, of the size
    /// this type's last encoding took (see [`Codec::encoding_size_hint`]); a larger value grows
    /// it, and a buffer left with more than twice the room it needs is cut to size. Use
    /// [`Codec::encode_into`] with your own buffer to allocate nothing.
    // Always inlined: called through a function of its own, the writer's 144-byte context and
    // the result went through memory, 6-8 ns of a 45-byte Riptide message's 40 (the call to
    // `write` stays a call, so the caller grows by little).
    #[inline(always)]
    fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        if let Some(size) = Self::ENCODED_SIZE {
            let mut out = Vec::with_capacity(size);
            self.encode_into(&mut out)?;
            return Ok(out);
        }
        let hint = Self::encoding_size_hint();
        // 16 bytes of slack: the bit writer appends whole words before cutting them back.
        let mut out = Vec::with_capacity(hint.load(Relaxed).min(MAX_HINT) + 16);
        self.encode_into(&mut out)?;
        hint.store(out.len(), Relaxed);
        if out.capacity() > 2 * out.len() + 32 {
            out.shrink_to_fit();
        }
        Ok(out)
    }

    /// Where [`Codec::encode`] keeps the size of this type's last encoding (a generated type
    /// of variable size has its own, declared by [`encoding_size_hint!`](crate::encoding_size_hint);
    /// others share one).
    #[doc(hidden)]
    #[inline]
    fn encoding_size_hint() -> &'static AtomicUsize {
        static SHARED: AtomicUsize = AtomicUsize::new(0);
        &SHARED
    }

    /// Appends the encoding to `out` (left as it was on error).
    #[inline]
    fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let before = out.len();
        let result = self.write(&mut Self::Writer::new(out));
        if result.is_err() {
            out.truncate(before);
        }
        result
    }

    /// Encodes like [`Codec::encode`] a message the client (`from_client`) or the server
    /// sends: a type whose layout depends on the direction (`@from_client`) needs it.
    fn encode_from(&self, from_client: bool) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(Self::ENCODED_SIZE.unwrap_or(64));
        self.write(&mut Self::Writer::new(&mut out).with_direction(from_client))?;
        Ok(out)
    }
}

/// Gives a [`Codec`] impl its own [`Codec::encoding_size_hint`] (one per type: a generic
/// static is not possible in Rust, so each impl declares it).
#[doc(hidden)]
#[macro_export]
macro_rules! encoding_size_hint {
    () => {
        #[inline]
        fn encoding_size_hint() -> &'static ::std::sync::atomic::AtomicUsize {
            static HINT: ::std::sync::atomic::AtomicUsize =
                ::std::sync::atomic::AtomicUsize::new(0);
            &HINT
        }
    };
}

/// [`Codec::encode`] starts with room for at most this many bytes, whatever the hint says.
const MAX_HINT: usize = 1 << 16;

/// Reads one whole `C` with `r` (nothing may follow), and the fields `r` noted.
#[inline]
fn read_whole<'a, C: Codec<'a>, T: Trace<'a>>(
    mut r: C::Reader<T>,
) -> (Result<C, DecodeError>, Vec<FieldNote<'a>>) {
    let v = read_value(&mut r);
    (v, r.into_notes())
}

/// Reads one whole `C` with `r` (nothing may follow). Decoding returns this alone: a value
/// returned beside the notes is moved once more (a call to `memcpy` for a large message).
#[inline]
fn read_value<'a, C: Codec<'a>, T: Trace<'a>>(r: &mut C::Reader<T>) -> Result<C, DecodeError> {
    match C::read(r) {
        Ok(v) => match r.finish() {
            Ok(()) => Ok(v),
            Err(e) => Err(e.decoding(C::NAME)),
        },
        Err(e) => Err(e.decoding(C::NAME)),
    }
}

/// A schema type named independently of the bytes it borrows: implemented for the type with a
/// `'static` lifetime (`Packet<'static>`), whose [`Type::Of`] is the type for any input.
pub trait Type: 'static {
    /// The type decoding borrows from input of lifetime `'a`.
    type Of<'a>: Codec<'a>;
}

/// Declares the [`Type`] of each schema type of a generated crate, in one list: `Name` for a
/// type that borrows nothing, `Name<'_>` for one that borrows its input.
///
/// ```
/// # use wiregen_runtime::{Codec, DecodeError, EncodeError, Reader, Trace, Writer};
/// # #[derive(Debug)] struct Ping;
/// # impl<'a> Codec<'a> for Ping {
/// #     const NAME: &'static str = "Ping";
/// #     type Reader<T: Trace<'a>> = Reader<'a, T>;
/// #     type Writer<'o> = Writer<'o>;
/// #     fn read<T: Trace<'a>>(_: &mut Reader<'a, T>) -> Result<Self, DecodeError> { Ok(Ping) }
/// #     fn write(&self, _: &mut Writer<'_>) -> Result<(), EncodeError> { Ok(()) }
/// # }
/// # #[derive(Debug)] struct Chat<'a>(&'a [u8]);
/// # impl<'a> Codec<'a> for Chat<'a> {
/// #     const NAME: &'static str = "Chat";
/// #     type Reader<T: Trace<'a>> = Reader<'a, T>;
/// #     type Writer<'o> = Writer<'o>;
/// #     fn read<T: Trace<'a>>(r: &mut Reader<'a, T>) -> Result<Self, DecodeError> { Ok(Chat(&[])) }
/// #     fn write(&self, _: &mut Writer<'_>) -> Result<(), EncodeError> { Ok(()) }
/// # }
/// wiregen_runtime::types! {
///     Ping, Chat<'_>,
/// }
/// fn name<T: wiregen_runtime::Type>() -> &'static str {
///     <T::Of<'static> as Codec>::NAME
/// }
/// assert_eq!((name::<Ping>(), name::<Chat<'static>>()), ("Ping", "Chat"));
/// ```
#[macro_export]
macro_rules! types {
    ($($name:ident $(<$lt:lifetime>)?),* $(,)?) => {
        $( $crate::types!(@one $name $(<$lt>)?); )*
    };
    (@one $name:ident <$lt:lifetime>) => {
        impl $crate::Type for $name<'static> {
            type Of<'a> = $name<'a>;
        }
    };
    (@one $name:ident) => {
        impl $crate::Type for $name {
            type Of<'a> = $name;
        }
    };
}

/// Visits every type of a protocol ([`Protocol::each_type`]).
pub trait TypeVisitor {
    /// Called once per schema type.
    fn visit<T: Type>(&mut self);
}

/// A schema as a whole: implemented by the `Protocol` marker of every generated crate, so a tool
/// can take any protocol as a type parameter.
pub trait Protocol {
    /// The schema's protocol name (`rtype`): the crate's and the dissector's name.
    const NAME: &'static str;
    /// Its human title.
    const TITLE: &'static str;
    /// The type of one message (a datagram, or one framed message of a stream).
    type Root<'a>: Codec<'a>;
    /// What one conversation remembers from datagram to datagram (`()` when nothing).
    type Conversation: Default;
    /// A datagram as a conversation reads it: the root, or an opening message the
    /// conversation tells apart by order.
    type Datagram<'a>;

    /// The UDP ports the schema's server listens on (`transport.udp.ports`): a datagram sent to
    /// one of them is from a client. Empty when the protocol is not on UDP.
    const UDP_PORTS: &'static [u16];

    /// The TCP ports the schema's server listens on (`transport.tcp.ports`). Empty when the
    /// protocol is not on TCP.
    const TCP_PORTS: &'static [u16] = &[];

    /// How messages follow one another on a TCP stream (`transport.tcp.length_prefix`): each
    /// framed message is read as a datagram. `None` when the protocol is not on TCP.
    const TCP_FRAMING: Option<crate::tcp::Framing> = None;

    /// Decodes the next datagram of a conversation, keeping what later datagrams need.
    fn decode_datagram<'a>(
        conversation: &mut Self::Conversation,
        from_client: bool,
        bytes: &'a [u8],
    ) -> Result<Self::Datagram<'a>, DecodeError>;

    /// What one conversation keeps to join payloads cut into pieces (fragments, chunks, long
    /// messages' parts): the crate's `Joins`, or `()` when the schema joins nothing.
    type Joins: Default;

    /// A payload joined from pieces (the crate's `Joined`, whose `decode` reads it as the
    /// dissector shows it), or `std::convert::Infallible` when the schema joins nothing.
    type Joined;

    /// Joins the pieces a decoded datagram carries, wherever the schema puts them (a datagram
    /// may carry several: ENet's commands); returns the payloads they complete, once each is
    /// known to decode, in the order the datagram carries their last pieces, each with the `tag`s
    /// (numbers of the caller's, such as a capture's frame numbers) of the datagrams its pieces
    /// came in, in the payload's order. A joined payload that announces state (DNP's Long Link
    /// State) is recorded in `conversation`, as the dissector records it.
    fn join(
        conversation: &mut Self::Conversation,
        joins: &mut Self::Joins,
        from_client: bool,
        datagram: &Self::Datagram<'_>,
        tag: u64,
    ) -> Result<Vec<crate::Tagged<Self::Joined>>, DecodeError> {
        let _ = (conversation, joins, from_client, datagram, tag);
        Ok(Vec::new())
    }

    /// The numberings the schema's `reliability` declares (`main` unless it names others), by
    /// channel index: empty when the schema declares none.
    const CHANNELS: &'static [&'static str] = &[];

    /// Each channel's wrap (its numbers count modulo this), for
    /// [`Analyzer::new`](crate::analysis::Analyzer::new).
    const CHANNEL_WRAPS: &'static [u64] = &[];

    /// What a decoded datagram tells the netcode analysis: its sequence number, what it acks, a
    /// ping id (the schema's `reliability`; nothing when it declares none).
    fn facts(datagram: &Self::Datagram<'_>) -> crate::analysis::Facts {
        let _ = datagram;
        crate::analysis::Facts::default()
    }

    /// Rewrites the numbers of a decoded datagram the schema's `reliability` names (its own
    /// sequence numbers, its acks; not parts, ack bitfields or ping ids): each becomes
    /// `map(numbering, number)`, left as it was when the new one does not fit its field. What a
    /// replay does to a recorded session before encoding it again ([`Protocol::encode_datagram`]
    /// fills lengths and checksums anew).
    fn renumber(
        datagram: &mut Self::Datagram<'_>,
        map: &mut dyn FnMut(crate::analysis::Numbering, u64) -> u64,
    ) {
        let _ = (datagram, map);
    }

    /// Encodes a datagram as [`Protocol::decode_datagram`] returns it, sent by the client
    /// (`from_client`) or the server: a datagram that decoded encodes back to its bytes (what
    /// `wirecat check` proves on captures).
    fn encode_datagram(
        from_client: bool,
        datagram: &Self::Datagram<'_>,
    ) -> Result<Vec<u8>, EncodeError>;

    /// Visits every type of the schema, in schema order.
    fn each_type<V: TypeVisitor>(visitor: &mut V);

    /// Every field of one datagram decoded alone (sent by the client, `from_client`, or the
    /// server), as the dissectors show them (offsets from the datagram's first byte), up to the
    /// point of any error: what `wiregen verify` compares with tshark. The root's fields; an
    /// application adds those of the game message it carries.
    fn datagram_notes<'a>(
        from_client: bool,
        bytes: &'a [u8],
    ) -> (Result<(), DecodeError>, Vec<FieldNote<'a>>) {
        let (root, notes) = <Self::Root<'a> as Codec<'a>>::dissect_from(bytes, from_client);
        (root.map(drop), notes)
    }

    /// Every field of the next datagram of a conversation, read with what earlier datagrams
    /// announced (lists typing its values) and remembering what it announces, as the
    /// dissector reads it in a capture: [`Protocol::datagram_notes`] with the conversation's
    /// state. The same as `datagram_notes` when the schema keeps no state.
    fn datagram_notes_in<'a>(
        conversation: &mut Self::Conversation,
        from_client: bool,
        bytes: &'a [u8],
    ) -> (Result<(), DecodeError>, Vec<FieldNote<'a>>) {
        let _ = conversation;
        Self::datagram_notes(from_client, bytes)
    }

    /// Every field of a joined payload ([`Protocol::join`]) decoded as the dissector shows it
    /// (offsets from the payload's first byte), up to the point of any error: what `wiregen
    /// verify` compares with the dissector's joined fields. Empty for a payload the crate does
    /// not read field by field this way (a sequence join's streams, a whole read with the
    /// packets' switch).
    fn joined_notes(joined: &Self::Joined) -> (Result<(), DecodeError>, Vec<FieldNote<'_>>) {
        let _ = joined;
        (Ok(()), Vec::new())
    }
}

/// Visits every type of a protocol built with serde support ([`SerdeProtocol`]).
#[cfg(feature = "serde")]
pub trait SerdeTypeVisitor {
    /// Called once per schema type.
    fn visit<T: Type>(&mut self)
    where
        for<'a> T::Of<'a>: serde::Serialize + serde::Deserialize<'a>;
}

/// A protocol whose types serialize (its crate's `serde` feature): tools that turn any message
/// into JSON and back (wirecat) take it as a type parameter.
#[cfg(feature = "serde")]
pub trait SerdeProtocol: Protocol {
    /// Visits every type of the schema, in schema order.
    fn each_serde_type<V: SerdeTypeVisitor>(visitor: &mut V);

    /// Serializes a datagram as [`Protocol::decode_datagram`] returns it.
    fn serialize_datagram<S: serde::Serializer>(
        datagram: &Self::Datagram<'_>,
        serializer: S,
    ) -> Result<S::Ok, S::Error>;

    /// Serializes a joined payload decoded, as the dissector shows it ([`Protocol::join`]).
    fn serialize_joined<S: serde::Serializer>(
        joined: &Self::Joined,
        serializer: S,
    ) -> Result<S::Ok, S::Error>;

    /// The shape [`serialize_datagram`](Self::serialize_datagram) writes, for typed columns.
    fn datagram_shape() -> crate::Shape;

    /// The shape [`serialize_joined`](Self::serialize_joined) writes ([`Shape::Never`](crate::Shape::Never) when
    /// nothing is joined).
    fn joined_shape() -> crate::Shape;
}

/// A protocol whose types have random values (its crate's `arbitrary` feature): what
/// `wiregen verify` and the differential tests feed the encoder, then compare with the dissector.
#[cfg(feature = "arbitrary")]
pub trait ArbitraryProtocol: Protocol {
    /// An arbitrary root message sent by the client (`from_client`) or the server, encoded, or
    /// why the encoder refuses the value (a value the schema does not allow, such as a list
    /// longer than its count field can say).
    fn arbitrary_message(
        u: &mut arbitrary::Unstructured<'_>,
        from_client: bool,
    ) -> arbitrary::Result<Result<Vec<u8>, EncodeError>>;

    /// The opening datagrams of one conversation, arbitrary and in order: whether the server
    /// sent each, and its bytes. Empty when the protocol opens no conversation that way; `None`
    /// when the encoder refused one of them.
    fn arbitrary_opening(u: &mut arbitrary::Unstructured<'_>)
        -> arbitrary::Result<Option<Opening>>;

    /// The datagrams that carry one arbitrary payload cut into pieces (the schema's
    /// `reassembly`: a whole of the sender's type, cut by the crate's `chunk` into copies of an
    /// arbitrary packet), sent by the client (`from_client`) or the server, in order; or why the
    /// encoder refused one. Empty when the crate cuts no payload this way.
    fn arbitrary_pieces(
        u: &mut arbitrary::Unstructured<'_>,
        from_client: bool,
    ) -> arbitrary::Result<Result<Vec<Vec<u8>>, EncodeError>> {
        let _ = (u, from_client);
        Ok(Ok(Vec::new()))
    }

    /// An arbitrary message whose values are typed by lists earlier messages announce (the
    /// schema's `state`), after the messages that announce the lists it needs, all sent by the
    /// client (`from_client`) or the server: a conversation to send in order. Empty when the
    /// message needs no list (or the schema keeps none).
    fn arbitrary_stateful(
        u: &mut arbitrary::Unstructured<'_>,
        from_client: bool,
    ) -> arbitrary::Result<Result<Vec<Vec<u8>>, EncodeError>> {
        let _ = (u, from_client);
        Ok(Ok(Vec::new()))
    }
}

/// Opening datagrams of a conversation, in order: whether the server sent each, and its bytes.
#[cfg(feature = "arbitrary")]
pub type Opening = Vec<(bool, Vec<u8>)>;
