//! Checksums in Lua: the CRC table and function, chosen for the Lua that runs them.

use super::*;

/// The local holding one CRC function, taken from the factory the template defines
/// (`wiregen_crc`: one table per algorithm and Lua state, shared by every dissector).
pub(crate) fn crc_code(a: ChecksumAlgo) -> Result<String, Unsupported> {
    let (width, poly, init, refin, refout, xorout) = a.crc_params();
    if !(8..=32).contains(&width) {
        return Err(Unsupported(format!(
            "the Lua backend has no code for the {} checksum yet",
            a.name()
        )));
    }
    Ok(format!(
        "-- {name}: width {width}, poly {poly:#x}, init {init:#x}, refin {refin}, refout {refout}, xorout {xorout:#x}.\n\
         local {func} = wiregen_crc(\"{name}\", {width}, {poly:#x}, {init:#x}, {refin}, {refout}, {xorout:#x})",
        name = a.name(),
        func = crc_func(a),
    ))
}

pub(crate) fn crc_func(a: ChecksumAlgo) -> String {
    format!("crc_{}", a.name().replace('-', "_"))
}

impl<'p> Gen<'p> {
    pub(crate) fn crcs(&self) -> Result<Vec<CrcDef>, Unsupported> {
        let mut algos: Vec<ChecksumAlgo> = Vec::new();
        for s in &self.p.structs {
            for f in &s.fields {
                if let Role::Checksum(a) = f.role {
                    if !algos.contains(&a) {
                        algos.push(a);
                    }
                }
            }
        }
        algos
            .into_iter()
            .map(|a| crc_code(a).map(|code| CrcDef { code }))
            .collect()
    }
}
