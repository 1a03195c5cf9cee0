//! Random values of integers narrower than their Rust type (`u24` in a `u32`, `i5` in an `i8`),
//! and arrays with the counts a schema allows, for generated `#[arbitrary(with = …)]`
//! attributes: only values the encoder accepts, so random messages (fuzzing, `wiregen verify`)
//! are not mostly refused ones.

use arbitrary::{Result, Unstructured};

/// An unsigned value of `BITS` bits.
pub fn unsigned<T: TryFrom<u64>, const BITS: u32>(u: &mut Unstructured<'_>) -> Result<T> {
    let max = if BITS >= 64 {
        u64::MAX
    } else {
        (1u64 << BITS) - 1
    };
    T::try_from(u.int_in_range(0..=max)?).map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// A two's-complement value of `BITS` bits.
pub fn signed<T: TryFrom<i64>, const BITS: u32>(u: &mut Unstructured<'_>) -> Result<T> {
    let max = if BITS >= 64 {
        i64::MAX
    } else {
        (1i64 << (BITS - 1)) - 1
    };
    T::try_from(u.int_in_range(-max - 1..=max)?).map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// [`unsigned`], present or not.
pub fn optional_unsigned<T: TryFrom<u64>, const BITS: u32>(
    u: &mut Unstructured<'_>,
) -> Result<Option<T>> {
    Ok(if u.arbitrary()? {
        Some(unsigned::<T, BITS>(u)?)
    } else {
        None
    })
}

/// [`signed`], present or not.
pub fn optional_signed<T: TryFrom<i64>, const BITS: u32>(
    u: &mut Unstructured<'_>,
) -> Result<Option<T>> {
    Ok(if u.arbitrary()? {
        Some(signed::<T, BITS>(u)?)
    } else {
        None
    })
}

/// A value in `LO..=HI` (a field's `valid` range or `max`).
pub fn in_range<T: TryFrom<i64>, const LO: i64, const HI: i64>(
    u: &mut Unstructured<'_>,
) -> Result<T> {
    T::try_from(u.int_in_range(LO..=HI)?).map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// [`in_range`], present or not.
pub fn optional_in_range<T: TryFrom<i64>, const LO: i64, const HI: i64>(
    u: &mut Unstructured<'_>,
) -> Result<Option<T>> {
    Ok(if u.arbitrary()? {
        Some(in_range::<T, LO, HI>(u)?)
    } else {
        None
    })
}

/// A value a closed enum names: one of `values`, or a value of one of `ranges` (inclusive),
/// each of them as likely (drawing the raw integer would almost never hit a `u24`'s few names).
pub fn named<T: TryFrom<u64>>(
    u: &mut Unstructured<'_>,
    values: &[u64],
    ranges: &[(u64, u64)],
) -> Result<T> {
    let k = u.choose_index(values.len() + ranges.len())?;
    let raw = match values.get(k) {
        Some(v) => *v,
        None => {
            let (lo, hi) = ranges[k - values.len()];
            u.int_in_range(lo..=hi)?
        }
    };
    T::try_from(raw).map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// A value of `0..=max` outside every range of `taken` (inclusive): the tag of a switch's default
/// variant, which the encoder refuses when a case names it (`TagHasVariant`). Each gap between
/// the taken values is as likely; without any gap the draw fails.
pub fn other<T: TryFrom<u64>>(
    u: &mut Unstructured<'_>,
    max: u64,
    taken: &[(u64, u64)],
) -> Result<T> {
    let mut sorted = taken.to_vec();
    sorted.sort_unstable();
    let mut gaps = Vec::with_capacity(sorted.len() + 1);
    let mut next = Some(0u64);
    for &(lo, hi) in &sorted {
        if let Some(from) = next.filter(|&from| from < lo) {
            gaps.push((from, lo - 1));
        }
        next = next.map(|from| from.max(hi)).and_then(|h| h.checked_add(1));
        if hi >= max {
            next = None;
        }
    }
    if let Some(from) = next.filter(|&from| from <= max) {
        gaps.push((from, max));
    }
    if gaps.is_empty() {
        return Err(arbitrary::Error::IncorrectFormat);
    }
    let (lo, hi) = gaps[u.choose_index(gaps.len())?];
    T::try_from(u.int_in_range(lo..=hi)?).map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// Text of exactly `CHARS` characters, printable ASCII: as many bytes in every encoding of one
/// byte per character (twice as many in UTF-16), the size a schema's constant `length` asks.
pub fn text_of<'a, const CHARS: usize>(
    u: &mut Unstructured<'a>,
) -> Result<std::borrow::Cow<'a, str>> {
    let mut text = String::with_capacity(CHARS);
    for _ in 0..CHARS {
        text.push(char::from(u.int_in_range(0x20u8..=0x7e)?));
    }
    Ok(std::borrow::Cow::Owned(text))
}

/// Exactly `N` arbitrary bytes (a constant `length`).
pub fn bytes_of<'a, const N: usize>(
    u: &mut Unstructured<'a>,
) -> Result<std::borrow::Cow<'a, [u8]>> {
    let mut bytes = vec![0; N];
    u.fill_buffer(&mut bytes)?;
    Ok(std::borrow::Cow::Owned(bytes))
}

/// The list of `key` among the lists a random message needs announced (a new, empty one the
/// first time).
pub fn list_of<K: PartialEq, I>(
    lists: &mut Vec<(K, Vec<Option<I>>)>,
    key: K,
) -> &mut Vec<Option<I>> {
    let at = match lists.iter().position(|(k, _)| *k == key) {
        Some(at) => at,
        None => {
            lists.push((key, Vec::new()));
            lists.len() - 1
        }
    };
    &mut lists[at].1
}

/// The most items a list announced for a random message holds: a value typed by a later index
/// is drawn again.
pub const MAX_ANNOUNCED: usize = 256;

/// Requires `item` at `index` of a list to announce: a value drawn again when an item that is
/// not the `same` is required there, or the index is past [`MAX_ANNOUNCED`].
pub fn require<I>(
    list: &mut Vec<Option<I>>,
    index: usize,
    item: I,
    same: impl Fn(&I, &I) -> bool,
) -> Result<()> {
    if index >= MAX_ANNOUNCED {
        return Err(arbitrary::Error::IncorrectFormat);
    }
    if list.len() <= index {
        list.resize_with(index + 1, || None);
    }
    match &list[index] {
        Some(other) if !same(other, &item) => Err(arbitrary::Error::IncorrectFormat),
        Some(_) => Ok(()),
        None => {
            list[index] = Some(item);
            Ok(())
        }
    }
}

/// How many elements an array of `MIN..=MAX` elements gets (`MIN == MAX`: a count the schema
/// fixes; `MAX`: what its count field or prefix can say).
fn vec_len<'a, T: arbitrary::Arbitrary<'a>, const MIN: usize, const MAX: usize>(
    u: &mut Unstructured<'a>,
) -> Result<usize> {
    if MIN == MAX {
        return Ok(MIN);
    }
    Ok(u.arbitrary_len::<T>()?.clamp(MIN, MAX))
}

/// An array of `MIN..=MAX` arbitrary elements.
pub fn vec_of<'a, T: arbitrary::Arbitrary<'a>, const MIN: usize, const MAX: usize>(
    u: &mut Unstructured<'a>,
) -> Result<Vec<T>> {
    let n = vec_len::<T, MIN, MAX>(u)?;
    (0..n).map(|_| u.arbitrary()).collect()
}

/// An array of `MIN..=MAX` unsigned values of `BITS` bits each.
pub fn vec_unsigned<'a, T, const BITS: u32, const MIN: usize, const MAX: usize>(
    u: &mut Unstructured<'a>,
) -> Result<Vec<T>>
where
    T: TryFrom<u64> + arbitrary::Arbitrary<'a>,
{
    let n = vec_len::<T, MIN, MAX>(u)?;
    (0..n).map(|_| unsigned::<T, BITS>(u)).collect()
}

/// An array of `MIN..=MAX` two's-complement values of `BITS` bits each.
pub fn vec_signed<'a, T, const BITS: u32, const MIN: usize, const MAX: usize>(
    u: &mut Unstructured<'a>,
) -> Result<Vec<T>>
where
    T: TryFrom<i64> + arbitrary::Arbitrary<'a>,
{
    let n = vec_len::<T, MIN, MAX>(u)?;
    (0..n).map(|_| signed::<T, BITS>(u)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_in_their_width() {
        let raw: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let mut u = Unstructured::new(&raw);
        let (mut top, mut bottom) = (false, false);
        for _ in 0..500 {
            let v: u32 = unsigned::<u32, 24>(&mut u).unwrap();
            assert!(v < 1 << 24);
            let s: i8 = signed::<i8, 5>(&mut u).unwrap();
            assert!((-16..=15).contains(&s));
            top |= s > 7;
            bottom |= s < -8;
        }
        assert!(top && bottom, "both signs reached");
    }

    /// Arrays come with the count the schema allows and elements in their type's range.
    #[test]
    fn arrays_have_allowed_counts_and_values() {
        let data: Vec<u8> = (0..4096u32).map(|i| (i * 131 + 7) as u8).collect();
        let mut u = Unstructured::new(&data);
        for _ in 0..50 {
            let v = vec_unsigned::<u16, 12, 0, 5>(&mut u).unwrap();
            assert!(v.len() <= 5 && v.iter().all(|&x| x < 4096), "{v:?}");
            let v = vec_signed::<i8, 3, 2, 2>(&mut u).unwrap();
            assert!(
                v.len() == 2 && v.iter().all(|&x| (-4..=3).contains(&x)),
                "{v:?}"
            );
            assert_eq!(vec_of::<u32, 3, 3>(&mut u).unwrap().len(), 3);
        }
    }

    #[test]
    fn other_draws_outside_the_taken_values_only() {
        let bytes: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let mut u = Unstructured::new(&bytes);
        let mut seen = [false; 256];
        for _ in 0..400 {
            let Ok(v) = other::<u8>(&mut u, 255, &[(3, 3), (8, 11), (0, 0), (250, 255)]) else {
                break;
            };
            assert!(!matches!(v, 0 | 3 | 8..=11 | 250..=255), "{v}");
            seen[usize::from(v)] = true;
        }
        assert!(seen[1..3].iter().any(|s| *s) && seen[12..250].iter().any(|s| *s));
        // Every value taken: no draw.
        let mut u = Unstructured::new(&bytes);
        assert!(other::<u8>(&mut u, 255, &[(0, 255)]).is_err());
        // The gap below the first range and above the last.
        let mut u = Unstructured::new(&bytes);
        for _ in 0..50 {
            let v = other::<u8>(&mut u, 7, &[(1, 6)]).unwrap();
            assert!(v == 0 || v == 7, "{v}");
        }
    }

    #[test]
    fn lists_to_announce_take_each_index_once() {
        let mut lists: Vec<(u16, Vec<Option<u8>>)> = Vec::new();
        // Items alike when their tens are.
        let same = |a: &u8, b: &u8| a / 10 == b / 10;
        require(list_of(&mut lists, 7), 2, 30, same).unwrap();
        require(list_of(&mut lists, 7), 0, 4, same).unwrap();
        require(list_of(&mut lists, 9), 0, 5, same).unwrap();
        require(list_of(&mut lists, 7), 2, 31, same).unwrap();
        assert_eq!(
            lists,
            [(7, vec![Some(4), None, Some(30)]), (9, vec![Some(5)])]
        );
        assert!(require(list_of(&mut lists, 7), 2, 41, same).is_err());
        assert!(require(list_of(&mut lists, 7), MAX_ANNOUNCED, 1, same).is_err());
    }
}
