//! Pass: what a field's value may be and how it shows: `valid` values, `const`, `display`,
//! `filter` names and `compression` (split from `fields.rs`, which checks the field as a whole).

use super::*;

impl<'f> Resolver<'f> {
    /// A field's `display`: on unsigned integers (or arrays of them); hex of a signed number
    /// is not a display Wireshark has.
    pub(super) fn display(
        &mut self,
        f: &schema::FieldDef,
        fp: &str,
        ty: &Ty,
        layout: Layout,
    ) -> Option<Display> {
        let d = Display::from(f.display?);
        let scalar = match ty {
            Ty::Array(e, _) => e,
            t => t,
        };
        let at = format!("{fp}.display");
        match scalar {
            Ty::Int(it) if it.signed && d == Display::Hex => {
                self.r.error(
                    Code::E0320,
                    &at,
                    "Wireshark shows signed integers in decimal only",
                    Some("make the field unsigned, or drop 'display'".into()),
                );
                None
            }
            // Wireshark draws the bits of a masked field: the mask is the whole integer's (a
            // Lua number in Wireshark 4.0: at most 32 bits here), over the bytes it is read
            // from (not the bytes a bit-stream value straddles).
            Ty::Int(it) if d == Display::Bin && (it.bits > 32 || layout.is_bits()) => {
                self.r.error(
                    Code::E0321,
                    &at,
                    "'display: bin' applies to integers of at most 32 bits in byte layouts",
                    Some("use 'hex', or put the field in a bit group (its bits are drawn)".into()),
                );
                None
            }
            Ty::VarInt(_) if d == Display::Bin => {
                self.r.error(
                    Code::E0322,
                    &at,
                    "'display: bin' applies to fixed-width integers",
                    Some("use 'hex' or 'dec' for a varint".into()),
                );
                None
            }
            Ty::Int(_) | Ty::VarInt(VarInt::Leb128 | VarInt::RiptideLen) => Some(d),
            _ => {
                self.r.error(
                    Code::E0323,
                    &at,
                    "'display' applies to unsigned integer fields",
                    Some("enums and flag sets show their names".into()),
                );
                None
            }
        }
    }

    /// A field's `filter`: a lower-case name, on a field of a struct type or an array of one
    /// (what else it must not clash with is checked once every type is known).
    pub(super) fn filter_name(
        &mut self,
        f: &schema::FieldDef,
        fp: &str,
        ty: &Ty,
    ) -> Option<String> {
        let name = f.filter.as_ref()?;
        let at = format!("{fp}.filter");
        if ty.value_struct().is_none() {
            self.r.error(
                Code::E0324,
                &at,
                "'filter' names the fields of a struct-typed value",
                Some(
                    "other fields have their own filter name already: proto.<type>.<field>".into(),
                ),
            );
            return None;
        }
        let ok = name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !ok {
            self.r.error(
                Code::E0325,
                &at,
                format!("'{name}' is not a filter name part"),
                Some(
                    "lower-case letters, digits and '_', starting with a letter, e.g. 'position'"
                        .into(),
                ),
            );
            return None;
        }
        Some(name.clone())
    }

    /// A field's `compression`: its method and limit, on a struct field of a byte layout. A
    /// compressed struct without `length` or `prefix` takes the rest of its scope.
    pub(super) fn compression(
        &mut self,
        f: &schema::FieldDef,
        fp: &str,
        layout: Layout,
        ty: Ty,
    ) -> (Ty, Option<Compressed>) {
        let Some(def) = &f.compression else {
            return (ty, None);
        };
        let at = format!("{fp}.compression");
        let (method, max) = match def {
            schema::CompressionDef::Method(m) => (m, None),
            schema::CompressionDef::Full { method, max } => (method, *max),
        };
        let method_at = match def {
            schema::CompressionDef::Method(_) => at.clone(),
            schema::CompressionDef::Full { .. } => format!("{at}.method"),
        };
        let known = Compression::ALL
            .iter()
            .find(|(n, _)| n == method)
            .map(|(_, m)| *m);
        let Some(method) = known else {
            let hint = if method.starts_with("lz4") || method == "zstd" || method == "brotli" {
                Some(format!(
                    "Wireshark 4.0's Lua can decompress zlib, deflate and gzip only, so a \
                     dissector could not show what '{method}' data holds"
                ))
            } else {
                did_you_mean(method, Compression::ALL.iter().map(|(n, _)| *n))
                    .or(Some("one of zlib, deflate, gzip".into()))
            };
            self.r.error(
                Code::E0326,
                &method_at,
                format!("unknown compression '{method}'"),
                hint,
            );
            return (ty, None);
        };
        let max = match max {
            Some(0) => {
                self.r.error(
                    Code::E0327,
                    &format!("{at}.max"),
                    "'max' must be at least 1",
                    None,
                );
                1
            }
            Some(m) if m > u64::from(u32::MAX) => {
                self.r.error(
                    Code::E0328,
                    &format!("{at}.max"),
                    "'max' is the most bytes one field decompresses to: at most 4 GiB",
                    None,
                );
                m
            }
            Some(m) => m,
            None => 1 << 20,
        };
        if layout != Layout::Bytes {
            self.r.error(
                Code::E0329,
                &at,
                "compressed fields are for byte layouts",
                Some(
                    "compression works on whole bytes: put the field in a 'layout: bytes' type"
                        .into(),
                ),
            );
        }
        let ty = match ty {
            Ty::Struct(id, None) => Ty::Struct(id, Some(Len::Rest)),
            Ty::Struct(..) => ty,
            other => {
                self.r.error(
                    Code::E0330,
                    &at,
                    "'compression' applies to fields of a struct type",
                    Some("put the compressed fields in a type of their own".into()),
                );
                other
            }
        };
        (ty, Some(Compressed { method, max }))
    }

    /// A field's `valid`: a list of values or a range with at least one end, on an integer.
    pub(super) fn valid(&mut self, v: &schema::ValidDef, ty: &Ty, at: &str) -> Option<Valid> {
        if !matches!(ty, Ty::Int(_) | Ty::VarInt(_)) {
            self.r
                .error(Code::E0331, at, "'valid' applies to integer fields", None);
            return None;
        }
        Some(match v {
            schema::ValidDef::List(l) if l.is_empty() => {
                self.r.error(
                    Code::E0332,
                    at,
                    "an empty list of valid values",
                    Some("list the values the field may hold".into()),
                );
                return None;
            }
            schema::ValidDef::List(l) => Valid::List(l.clone()),
            schema::ValidDef::Range {
                min: Some(lo),
                max: Some(hi),
            } if lo > hi => {
                self.r
                    .error(Code::E0333, at, format!("min {lo} is above max {hi}"), None);
                return None;
            }
            schema::ValidDef::Range {
                min: None,
                max: None,
            } => {
                self.r.error(
                    Code::E0334,
                    at,
                    "'valid' needs a 'min', a 'max' or a list",
                    None,
                );
                return None;
            }
            schema::ValidDef::Range { min, max } => Valid::Range {
                min: *min,
                max: *max,
            },
        })
    }

    /// A field's `const`: an integer that fits its integer or enum type, or (on an enum field)
    /// the name of one of its values.
    pub(super) fn constant(&mut self, c: &schema::ConstDef, ty: &Ty, at: &str) -> Option<u64> {
        let (bits, max, en) = match ty {
            Ty::Int(it) => (it.bits, it.max_value(), None),
            Ty::Enum(id) => {
                let (name, def) = self.file.enums.get_index(*id).unwrap();
                let repr = expr::parse_type(&def.repr).ok().and_then(|t| match t {
                    TypeExpr::Int { bits, .. } => Some(bits),
                    _ => None,
                });
                let bits = repr.unwrap_or(64);
                let max = if bits >= 64 {
                    u64::MAX
                } else {
                    (1 << bits) - 1
                };
                (bits, max, Some((name.clone(), def)))
            }
            _ => {
                self.r.error(
                    Code::E0335,
                    at,
                    "only integer and enum fields can be constants",
                    None,
                );
                return None;
            }
        };
        match (c, en) {
            (schema::ConstDef::Int(v), _) if *v <= max => Some(*v),
            (schema::ConstDef::Int(v), _) => {
                self.r.error(
                    Code::E0336,
                    at,
                    format!("constant {v:#x} does not fit in {bits} bits"),
                    None,
                );
                None
            }
            (schema::ConstDef::Name(n), Some((en, def))) => {
                let bare = n.strip_prefix(&format!("{en}.")).unwrap_or(n);
                match def.values.get(bare) {
                    Some(v) if v.is_range() => {
                        self.r.error(
                            Code::E0337,
                            at,
                            format!("'{bare}' names a range of values of '{en}', not one value"),
                            Some("give the value's number".into()),
                        );
                        None
                    }
                    Some(v) => Some(v.value()),
                    None => {
                        let hint = did_you_mean(bare, def.values.keys().map(String::as_str));
                        self.r.error(
                            Code::E0338,
                            at,
                            format!("'{bare}' is not a value of enum '{en}'"),
                            hint,
                        );
                        None
                    }
                }
            }
            // A signed integer's constant may be negative: kept as its wire bits.
            (schema::ConstDef::Negative(v), None)
                if matches!(ty, Ty::Int(it) if it.signed)
                    && i128::from(*v) >= -(1i128 << (bits - 1)) =>
            {
                Some(wire_bits(*v, bits))
            }
            (schema::ConstDef::Negative(v), _) => {
                let pattern = wire_bits(*v, bits);
                let (why, hint) = match ty {
                    Ty::Int(it) if it.signed => (
                        format!("constant {v} does not fit in {bits} signed bits"),
                        format!(
                            "{bits} signed bits hold {} to {}",
                            -(1i128 << (bits - 1)),
                            (1i128 << (bits - 1)) - 1
                        ),
                    ),
                    Ty::Int(_) => (
                        format!("constant {v} is negative, but the field is unsigned"),
                        format!(
                            "make the field signed, or write its {bits}-bit pattern, {pattern:#x}"
                        ),
                    ),
                    _ => (
                        format!(
                            "constant {v} is negative: an enum's constant is one of its values"
                        ),
                        "write the value's name".to_string(),
                    ),
                };
                self.r.error(Code::E0339, at, why, Some(hint));
                None
            }
            (schema::ConstDef::Name(n), None) => {
                self.r.error(
                    Code::E0340,
                    at,
                    format!("constant '{n}' is a name, but the field is an integer"),
                    Some("write the number".into()),
                );
                None
            }
        }
    }
}
