//! wirecat for every schema of this repository (`wirecat --help`); a game's own crate gets a
//! one-protocol wirecat with `wirecat::run::<mygame::Protocol>()`.

#[rustfmt::skip]
mod registry;

fn main() -> std::process::ExitCode {
    wirecat::run_many::<registry::All>()
}
