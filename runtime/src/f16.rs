//! Half-precision floats (IEEE binary16).

/// IEEE binary16 to f32 (exact: every half-precision value is an f32).
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1F);
    let m = f32::from(h & 0x3FF);
    match e {
        0 => sign * m * 2f32.powi(-24),
        31 if m == 0.0 => sign * f32::INFINITY,
        // Quiet NaN with the sign kept (its payload is not), so re-encoding is stable.
        31 => f32::NAN.copysign(sign),
        _ => sign * (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

/// f32 to IEEE binary16, rounding to nearest (ties to even); `None` when a finite value is too
/// large for half precision (it would become infinity).
#[inline]
pub fn f32_to_f16(x: f32) -> Option<u16> {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xFF) as i32;
    let man = b & 0x7F_FFFF;
    if exp == 0xFF {
        return Some(sign | 0x7C00 | if man != 0 { 0x200 } else { 0 });
    }
    let e = exp - 127 + 15;
    if e <= 0 {
        // Subnormal half (or zero): the 24-bit significand shifted into 10 bits, rounded.
        if e < -10 {
            return Some(sign);
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let rounded = (m + (1 << (shift - 1)) - 1 + ((m >> shift) & 1)) >> shift;
        return Some(sign | rounded as u16);
    }
    let rounded = man + 0xFFF + ((man >> 13) & 1);
    let (e, rounded) = if rounded & 0x80_0000 != 0 {
        (e + 1, 0)
    } else {
        (e, rounded)
    };
    if e >= 0x1F {
        return None;
    }
    Some(sign | ((e as u16) << 10) | (rounded >> 13) as u16)
}

/// The half-precision bits of field `field`'s value, or the encoder's error naming the field
/// when the value is too large for half precision.
#[inline]
pub fn f16_bits(x: f32, field: &'static str) -> Result<u16, crate::EncodeError> {
    f32_to_f16(x).ok_or_else(|| {
        crate::EncodeError::new(
            field,
            crate::EncodeErrorKind::TooLarge {
                value: x as u64,
                max: 65504,
            },
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EncodeErrorKind, NoTrace, Reader};

    #[test]
    fn half_floats_read_in_either_order_and_refuse_what_does_not_fit() {
        // 1.5 is 0x3E00 in binary16; -2.0 is 0xC000.
        let mut r: Reader<'_, NoTrace> = Reader::new(&[0x00, 0x3E, 0xC0, 0x00]);
        assert_eq!(r.f16_le("a", "p.a"), Ok(1.5));
        assert_eq!(r.f16_be("b", "p.b"), Ok(-2.0));
        let e = r.f16_le("c", "p.c").unwrap_err();
        assert_eq!((e.field(), e.offset), ("c".to_string(), 4));
        assert_eq!(f16_bits(1.5, "a"), Ok(0x3E00));
        let e = f16_bits(70000.0, "big").unwrap_err();
        assert_eq!(e.field(), "big");
        assert!(matches!(
            e.kind,
            EncodeErrorKind::TooLarge { max: 65504, .. }
        ));
    }
}
