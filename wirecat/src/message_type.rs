//! What a decoded message is called in tables and statistics: the variant names down its
//! value (`export` and `stats` alike).

use serde_json::Value;

/// The message's type: the variant names down the value (`"LongLinkState"`,
/// `"Packet.SEntityState"`), from serde's externally tagged enums.
pub fn message_type(v: &Value) -> String {
    let mut names = Vec::new();
    let mut at = v;
    while let Value::Object(o) = at {
        let variant = o
            .iter()
            .find(|(k, _)| o.len() == 1 && k.starts_with(|c: char| c.is_ascii_uppercase()));
        let next = match variant {
            Some((name, inner)) => {
                names.push(name.as_str());
                inner
            }
            // A struct: into its first field that holds a variant (the switch).
            None => match o.values().find(|x| {
                matches!(x, Value::Object(i) if i.len() == 1 && i.keys().all(|k| k.starts_with(|c: char| c.is_ascii_uppercase())))
            }) {
                Some(inner) => inner,
                None => break,
            },
        };
        if let Value::String(unit) = next {
            names.push(unit);
        }
        at = next;
    }
    names.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_message_type_is_the_variants_down_the_value() {
        let dnp = json!({"body": {"LongLinkState": {"number": 7}}});
        assert_eq!(message_type(&dnp), "LongLinkState");
        let unit = json!({"seq": 1, "payload": "Ack"});
        assert_eq!(message_type(&unit), "");
        let nested = json!({"Packet": {"flags": [], "body": {"Response": {"kind": "Init"}}}});
        assert_eq!(message_type(&nested), "Packet.Response");
    }
}
