//! Random values of integers narrower than their Rust type (`u24` in a `u32`, `i5` in an `i8`),
//! for generated `#[arbitrary(with = …)]` attributes: only values the encoder accepts, so random
//! messages (fuzzing, `wiregen verify`) are not mostly refused ones.

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
}
