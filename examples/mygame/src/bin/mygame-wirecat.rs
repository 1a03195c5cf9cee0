//! My Game's own wirecat: `mygame-wirecat check capture.pcapng`, `decode`, `encode`, `read`
//! (see `--help`).

fn main() -> std::process::ExitCode {
    wirecat::run::<mygame::Protocol>()
}
