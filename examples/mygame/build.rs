// Generates the codec (into OUT_DIR, included by src/lib.rs) and the Wireshark dissector
// (dissectors/mygame.lua, for `wiregen install` or `tshark -X lua_script:`) from the schema;
// cargo reruns this when the schema changes, and schema errors show as file:line:col.
fn main() -> Result<(), wiregen::Error> {
    wiregen::Builder::new()
        .schema("schema/mygame.yaml")
        .lua_out("dissectors")
        .serde(true)
        .compile()?;
    Ok(())
}
