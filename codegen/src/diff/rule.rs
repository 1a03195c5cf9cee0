//! The rules `wiregen diff` classifies changes by: what a change reports and `--allow` names.
//! A type, so that a rule is spelt once and a misspelt `--allow` is an error with a suggestion
//! instead of allowing nothing.

use serde::Serialize;
use std::fmt;

macro_rules! rules {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, )*) => {
        /// A kind of change between two versions of a schema.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Rule {
            /// Every rule, in the order the documentation lists them.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant),*];

            /// The rule's name, as changes print it and `--allow` takes it.
            pub fn name(self) -> &'static str {
                match self {
                    $( Rule::$variant => $name, )*
                }
            }
        }
    };
}

rules! {
    /// A group's bits moved within it.
    BitsMoved = "BITS_MOVED",
    /// A field's byte order changed.
    ByteOrderChanged = "BYTE_ORDER_CHANGED",
    /// A switch gained a case.
    CaseAdded = "CASE_ADDED",
    /// A case reads another type.
    CaseBodyChanged = "CASE_BODY_CHANGED",
    /// A switch lost a case.
    CaseRemoved = "CASE_REMOVED",
    /// A case's variant has another name.
    CaseRenamed = "CASE_RENAMED",
    /// A case was replaced by another under its tag.
    CaseReplaced = "CASE_REPLACED",
    /// A case has other tag values.
    CaseRetagged = "CASE_RETAGGED",
    /// A field's presence condition changed.
    ConditionChanged = "CONDITION_CHANGED",
    /// How a value is shown changed.
    DisplayChanged = "DISPLAY_CHANGED",
    /// Documentation changed.
    DocChanged = "DOC_CHANGED",
    /// A value's encoding changed.
    EncodingChanged = "ENCODING_CHANGED",
    /// An enum became closed or open.
    EnumClosedChanged = "ENUM_CLOSED_CHANGED",
    /// A type gained a field.
    FieldAdded = "FIELD_ADDED",
    /// A field is at another place.
    FieldMoved = "FIELD_MOVED",
    /// A type lost a field.
    FieldRemoved = "FIELD_REMOVED",
    /// A field has another name.
    FieldRenamed = "FIELD_RENAMED",
    /// The TCP framing changed.
    FramingChanged = "FRAMING_CHANGED",
    /// The protocol's layout (byte order, bit order) changed.
    LayoutChanged = "LAYOUT_CHANGED",
    /// An application gained a message.
    MessageAdded = "MESSAGE_ADDED",
    /// An application lost a message.
    MessageRemoved = "MESSAGE_REMOVED",
    /// The ports changed.
    PortsChanged = "PORTS_CHANGED",
    /// The protocol has another name.
    ProtocolRenamed = "PROTOCOL_RENAMED",
    /// Who sets a field changed (a constant, a derived length…).
    RoleChanged = "ROLE_CHANGED",
    /// A field's size rule changed.
    SizeRuleChanged = "SIZE_RULE_CHANGED",
    /// A switch reads another tag.
    SwitchTagChanged = "SWITCH_TAG_CHANGED",
    /// A text field's encoding or termination changed.
    TextChanged = "TEXT_CHANGED",
    /// A field's type changed.
    TypeChanged = "TYPE_CHANGED",
    /// A type's padding or alignment changed.
    TypeLayoutChanged = "TYPE_LAYOUT_CHANGED",
    /// A type has another name.
    TypeRenamed = "TYPE_RENAMED",
    /// A field's valid values changed.
    ValidValuesChanged = "VALID_VALUES_CHANGED",
    /// An enum or flag set gained a value.
    ValueAdded = "VALUE_ADDED",
    /// An enum or flag set lost a value.
    ValueRemoved = "VALUE_REMOVED",
    /// A value has another name.
    ValueRenamed = "VALUE_RENAMED",
    /// A value has another number.
    ValueRenumbered = "VALUE_RENUMBERED",
    /// A field's width changed.
    WidthChanged = "WIDTH_CHANGED",
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl PartialEq<&str> for Rule {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

impl std::str::FromStr for Rule {
    type Err = String;

    /// A rule by its name (any case), or an error naming the closest rule and where the list is.
    fn from_str(text: &str) -> Result<Self, String> {
        let wanted = text.to_ascii_uppercase().replace('-', "_");
        if let Some(rule) = Rule::ALL.iter().find(|r| r.name() == wanted) {
            return Ok(*rule);
        }
        let closest = Rule::ALL
            .iter()
            .map(|r| (strsim::levenshtein(r.name(), &wanted), *r))
            .min()
            .filter(|(distance, _)| *distance <= wanted.len() / 2 + 1);
        Err(match closest {
            Some((_, r)) => {
                format!("no rule '{text}': did you mean '{r}'? (docs/spec.md lists the rules)")
            }
            None => format!("no rule '{text}' (docs/spec.md lists the rules)"),
        })
    }
}

/// What `--allow` takes: a rule, and the path it is allowed at and under (`FIELD_ADDED:Packet`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowance {
    pub rule: Rule,
    pub path: Option<String>,
}

impl std::str::FromStr for Allowance {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (rule, path) = match text.split_once(':') {
            Some((rule, path)) => (rule, Some(path.to_string())),
            None => (text, None),
        };
        Ok(Allowance {
            rule: rule.parse()?,
            path,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_a_misspelling_gets_a_suggestion() {
        for r in Rule::ALL {
            assert_eq!(r.name().parse::<Rule>(), Ok(*r));
        }
        assert_eq!("field-added".parse::<Rule>(), Ok(Rule::FieldAdded));
        let e = "VALUE_RENUMBRED".parse::<Rule>().unwrap_err();
        assert!(e.contains("did you mean 'VALUE_RENUMBERED'?"), "{e}");
        let a: Allowance = "FIELD_ADDED:Packet".parse().unwrap();
        assert_eq!(
            (a.rule, a.path.as_deref()),
            (Rule::FieldAdded, Some("Packet"))
        );
        assert!("NOTHING_LIKE_IT_AT_ALL"
            .parse::<Rule>()
            .unwrap_err()
            .starts_with("no rule"));
    }
}
