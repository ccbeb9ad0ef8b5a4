use shared::rules::draughts::{DraughtsVariant, Position};
fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    for v in DraughtsVariant::ALL {
        let p = Position::start(v);
        let t = std::time::Instant::now();
        let counts: Vec<u64> = (1..=depth).map(|d| p.perft(d)).collect();
        println!("{:14} {:?} {:?}", v.name(), counts, t.elapsed());
    }
}
