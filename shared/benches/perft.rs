//! Perft throughput of the draughts move generator (filled in with the comparison table).
fn main() {}
