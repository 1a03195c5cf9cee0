//! What `wirecat proxy` does to a datagram: the rules (from the command line and a scenario
//! file), which of them apply to it (its direction, the time, a condition on the message), and
//! the fate drawn for it from the seeded generator.
//!
//! A scenario file (YAML) lists rules; later ones override what earlier ones set:
//!
//! ```yaml
//! seed: 7
//! rules:
//!   - { delay: 80ms, jitter: 20ms, loss: 5% }          # always, both directions
//!   - { at: 10s, for: 2s, delay: 400ms }                # a lag spike
//!   - { at: 20s, for: 5s, direction: to_server, loss: 30% }
//!   - { when: "type == ReqLogin", duplicate: 100% }     # every login sent twice
//! ```

use std::time::Duration;

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use super::condition::Condition;

/// Which way a datagram goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Way {
    ToServer,
    ToClient,
}

impl Way {
    pub fn name(self) -> &'static str {
        match self {
            Way::ToServer => "to_server",
            Way::ToClient => "to_client",
        }
    }

    pub fn index(self) -> usize {
        match self {
            Way::ToServer => 0,
            Way::ToClient => 1,
        }
    }
}

/// The impairments a rule sets (unset ones keep what earlier rules said).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Impairments {
    /// Probabilities, 0 to 1.
    pub loss: Option<f64>,
    pub duplicate: Option<f64>,
    pub reorder: Option<f64>,
    pub corrupt: Option<f64>,
    pub delay: Option<Duration>,
    pub jitter: Option<Duration>,
    /// Bytes per second (0: no limit).
    pub rate: Option<u64>,
}

impl Impairments {
    fn over(&mut self, later: &Impairments) {
        macro_rules! take {
            ($($f:ident),*) => { $( if later.$f.is_some() { self.$f = later.$f; } )* };
        }
        take!(loss, duplicate, reorder, corrupt, delay, jitter, rate);
    }
}

/// One rule: impairments, for datagrams of a direction, in a window of time, meeting a
/// condition.
#[derive(Debug, Clone, Default)]
pub struct Rule {
    pub way: Option<Way>,
    pub when: Option<Condition>,
    pub from: Duration,
    pub until: Option<Duration>,
    pub set: Impairments,
}

impl Rule {
    fn applies(&self, way: Way, since_start: Duration) -> bool {
        self.way.is_none_or(|w| w == way)
            && since_start >= self.from
            && self.until.is_none_or(|u| since_start < u)
    }
}

/// A scenario file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    seed: Option<u64>,
    #[serde(default)]
    rules: Vec<RuleFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    direction: Option<String>,
    when: Option<String>,
    at: Option<Spec>,
    #[serde(rename = "for")]
    lasting: Option<Spec>,
    loss: Option<Spec>,
    duplicate: Option<Spec>,
    reorder: Option<Spec>,
    corrupt: Option<Spec>,
    delay: Option<Spec>,
    jitter: Option<Spec>,
    rate: Option<Spec>,
}

/// A number or a text with its unit (`5%`, `80ms`, `2s`, `64kbit`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Spec {
    Number(f64),
    Text(String),
}

impl Spec {
    fn text(&self) -> String {
        match self {
            Spec::Number(n) => n.to_string(),
            Spec::Text(t) => t.clone(),
        }
    }
}

/// A percentage (`5`, `5%`, `0.5%`) as a probability.
pub fn percent(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let n: f64 = t
        .strip_suffix('%')
        .unwrap_or(t)
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a percentage (5, 5%, 0.5%)"))?;
    if !(0.0..=100.0).contains(&n) {
        return Err(format!("'{text}': a percentage is between 0 and 100"));
    }
    Ok(n / 100.0)
}

/// A duration: milliseconds as a bare number, or with `us`, `ms`, `s`.
pub fn duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (n, scale) = if let Some(n) = t.strip_suffix("us") {
        (n, 1e-6)
    } else if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else {
        (t, 1e-3)
    };
    let n: f64 = n
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a duration (80, 80ms, 1.5s)"))?;
    if !(0.0..=86_400.0 / scale).contains(&n) {
        return Err(format!("'{text}': a duration is between 0 and a day"));
    }
    Ok(Duration::from_secs_f64(n * scale))
}

/// A rate: bytes per second as a bare number, or with `B`, `kB`, `MB` (per second) or `bit`,
/// `kbit`, `mbit`.
pub fn rate(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let units: [(&str, f64); 6] = [
        ("kbit", 125.0),
        ("mbit", 125_000.0),
        ("bit", 0.125),
        ("kB", 1000.0),
        ("MB", 1_000_000.0),
        ("B", 1.0),
    ];
    let (n, scale) = units
        .iter()
        .find_map(|(u, s)| t.strip_suffix(u).map(|n| (n, *s)))
        .unwrap_or((t, 1.0));
    let n: f64 = n.trim().parse().map_err(|_| {
        format!("'{text}' is not a rate (bytes per second, or 64kbit, 1mbit, 20kB)")
    })?;
    if n < 0.0 {
        return Err(format!("'{text}': a rate is not negative"));
    }
    Ok((n * scale).round() as u64)
}

/// The directions a rule names: `both` (or nothing), `to_server`, `to_client`.
pub fn direction(text: Option<&str>) -> Result<Option<Way>, String> {
    match text {
        None | Some("both") => Ok(None),
        Some("to_server") => Ok(Some(Way::ToServer)),
        Some("to_client") => Ok(Some(Way::ToClient)),
        Some(other) => Err(format!(
            "direction '{other}': one of both, to_server, to_client"
        )),
    }
}

impl RuleFile {
    fn rule(self) -> Result<Rule, String> {
        let way = direction(self.direction.as_deref())?;
        let p = |s: &Option<Spec>| s.as_ref().map(|s| percent(&s.text())).transpose();
        let d = |s: &Option<Spec>| s.as_ref().map(|s| duration(&s.text())).transpose();
        let from = d(&self.at)?.unwrap_or_default();
        Ok(Rule {
            way,
            when: self.when.as_deref().map(str::parse).transpose()?,
            from,
            until: d(&self.lasting)?.map(|l| from + l),
            set: Impairments {
                loss: p(&self.loss)?,
                duplicate: p(&self.duplicate)?,
                reorder: p(&self.reorder)?,
                corrupt: p(&self.corrupt)?,
                delay: d(&self.delay)?,
                jitter: d(&self.jitter)?,
                rate: self.rate.as_ref().map(|s| rate(&s.text())).transpose()?,
            },
        })
    }
}

/// A scenario file's seed and rules; errors name the rule.
pub fn scenario(text: &str) -> Result<(Option<u64>, Vec<Rule>), String> {
    let file: ScenarioFile = serde_norway::from_str(text).map_err(|e| e.to_string())?;
    let rules = file
        .rules
        .into_iter()
        .enumerate()
        .map(|(i, r)| r.rule().map_err(|e| format!("rule {}: {e}", i + 1)))
        .collect::<Result<_, _>>()?;
    Ok((file.seed, rules))
}

/// Every rule, in order, with what each needs to be decided.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    pub rules: Vec<Rule>,
}

impl Rules {
    /// Whether any rule reads the message (then every datagram is decoded).
    pub fn reads_messages(&self) -> bool {
        self.rules.iter().any(|r| r.when.is_some())
    }

    /// What applies to a datagram going `way`, `since_start` after the proxy started; `meets`
    /// answers a rule's condition (the message decoded only when one asks).
    pub fn settle(
        &self,
        way: Way,
        since_start: Duration,
        mut meets: impl FnMut(&Condition) -> bool,
    ) -> Impairments {
        let mut out = Impairments::default();
        for rule in &self.rules {
            if rule.applies(way, since_start) && rule.when.as_ref().is_none_or(&mut meets) {
                out.over(&rule.set);
            }
        }
        out
    }
}

/// What happens to one datagram.
#[derive(Debug, Clone, PartialEq)]
pub struct Fate {
    pub lost: bool,
    /// Extra copies sent right after it.
    pub duplicates: u32,
    /// Held until the conversation's next datagram of this direction has gone.
    pub reorder: bool,
    /// Bits flipped (bit 0 is the first byte's most significant).
    pub flipped: Vec<usize>,
    pub delay: Duration,
}

/// One direction's generator: the same seed and the same datagrams in the same order give the
/// same fates, whatever the timing.
pub struct Dice {
    rng: ChaCha8Rng,
}

impl Dice {
    pub fn new(seed: u64, way: Way) -> Dice {
        Dice {
            rng: ChaCha8Rng::seed_from_u64(
                seed ^ (way.index() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            ),
        }
    }

    fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The fate of a datagram of `len` bytes under `imp`. The same draws are made whatever the
    /// impairments, so changing one (a rule starting) does not shift the others' faults.
    pub fn roll(&mut self, imp: &Impairments, len: usize) -> Fate {
        let (l, d, r, c, j, bit) = (
            self.unit(),
            self.unit(),
            self.unit(),
            self.unit(),
            self.unit(),
            self.rng.next_u64(),
        );
        let hit = |u: f64, p: Option<f64>| p.is_some_and(|p| u < p);
        let base = imp.delay.unwrap_or_default().as_secs_f64();
        let spread = imp.jitter.unwrap_or_default().as_secs_f64();
        let delay = (base + spread * (2.0 * j - 1.0)).max(0.0);
        Fate {
            lost: hit(l, imp.loss),
            duplicates: u32::from(hit(d, imp.duplicate)),
            reorder: hit(r, imp.reorder),
            flipped: if hit(c, imp.corrupt) && len > 0 {
                vec![(bit % (len as u64 * 8)) as usize]
            } else {
                Vec::new()
            },
            delay: Duration::from_secs_f64(delay),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_read_as_written() {
        assert_eq!(percent("5%"), Ok(0.05));
        assert_eq!(percent("0.5"), Ok(0.005));
        assert!(percent("120%").is_err());
        assert_eq!(duration("80"), Ok(Duration::from_millis(80)));
        assert_eq!(duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(duration("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(rate("64kbit"), Ok(8000));
        assert_eq!(rate("20kB"), Ok(20_000));
        assert_eq!(rate("1500"), Ok(1500));
    }

    #[test]
    fn a_scenario_overrides_in_order_and_in_time() {
        let (seed, rules) = scenario(
            "seed: 7\nrules:\n  - { delay: 80ms, jitter: 20ms, loss: 5% }\n  - { at: 10s, for: 2s, delay: 400ms }\n  - { direction: to_server, when: \"type == ReqLogin\", duplicate: 100% }\n",
        )
        .unwrap();
        assert_eq!(seed, Some(7));
        let rules = Rules { rules };
        let at = |s: u64, way, login: bool| rules.settle(way, Duration::from_secs(s), |_| login);
        let calm = at(1, Way::ToServer, false);
        assert_eq!(calm.delay, Some(Duration::from_millis(80)));
        assert_eq!(calm.loss, Some(0.05));
        assert_eq!(
            at(11, Way::ToClient, false).delay,
            Some(Duration::from_millis(400))
        );
        assert_eq!(
            at(12, Way::ToClient, false).delay,
            Some(Duration::from_millis(80))
        );
        assert_eq!(at(1, Way::ToServer, true).duplicate, Some(1.0));
        assert_eq!(at(1, Way::ToClient, true).duplicate, None);
        let e = scenario("rules:\n  - { direction: up }\n").unwrap_err();
        assert!(e.starts_with("rule 1: direction 'up'"), "{e}");
        let e = scenario("rules:\n  - { when: \"a ==\" }\n").unwrap_err();
        assert!(e.starts_with("rule 1: at 4"), "{e}");
    }

    #[test]
    fn the_same_seed_gives_the_same_fates() {
        let imp = Impairments {
            loss: Some(0.1),
            duplicate: Some(0.1),
            reorder: Some(0.1),
            corrupt: Some(0.1),
            jitter: Some(Duration::from_millis(5)),
            ..Default::default()
        };
        let fates = |seed| {
            let mut dice = Dice::new(seed, Way::ToServer);
            (0..1000).map(|_| dice.roll(&imp, 20)).collect::<Vec<_>>()
        };
        assert_eq!(fates(1), fates(1));
        assert_ne!(fates(1), fates(2));
        let lost = fates(1).iter().filter(|f| f.lost).count();
        assert!((60..140).contains(&lost), "{lost} of 1000 at 10%");
    }
}
