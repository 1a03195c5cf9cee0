//! Every schema's serde output fits the shape its types declare (`SerdeShape`, the layout of
//! `wirecat export`'s typed columns, fixed before any value is seen): random messages of every
//! seed protocol and fixture, decoded, are written into a column of the declared shape
//! without a misfit, and the message type read off the way agrees with the one `stats` and
//! `proxy` read off the value's JSON.

use std::collections::BTreeSet;

use arrow_array::Array;
use wiregen_runtime::serde_support::serde;
use wiregen_runtime::{ArbitraryProtocol, SerdeProtocol};

/// A datagram through the protocol's serializer.
struct Datagram<'v, 'a, P: SerdeProtocol>(&'v P::Datagram<'a>);

impl<P: SerdeProtocol> serde::Serialize for Datagram<'_, '_, P> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        P::serialize_datagram(self.0, s)
    }
}

/// Deterministic bytes for draw `i` (a linear congruential generator: no dependency, the same
/// draws every run).
fn draw(i: u64, len: usize) -> Vec<u8> {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 56) as u8
        })
        .collect()
}

/// Writes `DRAWS` random messages of `P` into a column of its datagram shape; returns how many
/// decoded and the message types seen.
fn fits<P: SerdeProtocol + ArbitraryProtocol>(name: &str) -> (usize, BTreeSet<String>) {
    const DRAWS: u64 = 1500;
    let mut column = wirecat::export::ValueColumn::new(&P::datagram_shape());
    let mut decoded = 0;
    let mut types = BTreeSet::new();
    for i in 0..DRAWS {
        let raw = draw(i, 64 + (i as usize % 7) * 96);
        let mut u = arbitrary::Unstructured::new(&raw);
        let from_client = i % 2 == 0;
        let Ok(Ok(bytes)) = P::arbitrary_message(&mut u, from_client) else {
            continue;
        };
        let mut conversation = P::Conversation::default();
        let Ok(datagram) = P::decode_datagram(&mut conversation, from_client, &bytes) else {
            continue;
        };
        let value = Datagram::<P>(&datagram);
        let json = serde_json::to_value(&value).unwrap();
        let ty = column
            .push(&value)
            .unwrap_or_else(|e| panic!("{name}, draw {i}: {e}\n{json}"))
            .to_string();
        assert_eq!(ty, wirecat::message_type(&json), "{name}, draw {i}: {json}");
        types.insert(ty);
        decoded += 1;
    }
    assert_eq!(column.len(), decoded);
    let array = column.finish().unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(array.len(), decoded, "{name}");
    assert_eq!(array.null_count(), 0, "{name}");
    (decoded, types)
}

macro_rules! every_schema {
    ($($name:ident),* $(,)?) => {
        #[test]
        fn every_schema_fits_its_declared_shape() {
            let mut report = Vec::new();
            $(
                let (decoded, types) = fits::<$name::Protocol>(stringify!($name));
                assert!(decoded >= 100, "{}: only {decoded} random messages decoded", stringify!($name));
                report.push(format!("{}: {decoded} messages, {} message types", stringify!($name), types.len()));
            )*
            eprintln!("{}", report.join("\n"));
        }
    };
}

every_schema!(
    rtype,
    rtype_impl,
    arena,
    dungeon,
    lobby,
    features,
    riptide_2_0,
    riptide_2_1,
    riptide_2_2,
    bitfeatures,
    dnp,
    mixed,
    game_protocol,
    varints,
    fragments,
);
