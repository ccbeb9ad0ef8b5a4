//! Fuzz target: time-control parsing, the `5+3` shorthand and the structured object, as
//! text (config files, `FromStr`) and as JSON (the wire). Parsing never panics; an
//! accepted control writes back to the same control in both forms, and the clock's
//! control built from it answers without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::clock;
use shared::protocol::TimeControl;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(tc) = text.parse::<TimeControl>() {
        check(&tc, text);
    }
    if let Ok(tc) = serde_json::from_str::<TimeControl>(text) {
        check(&tc, text);
    }
    if let Ok(control) = serde_json::from_str::<clock::TimeControl>(text) {
        let json = serde_json::to_string(&control).expect("encodes");
        let back: clock::TimeControl = serde_json::from_str(&json).expect("decodes back");
        assert_eq!(back, control, "`{text}`");
        let _ = (control.to_string(), control.nominal_game_time());
        let _ = control.estimate_total_seconds();
    }
});

fn check(tc: &TimeControl, input: &str) {
    let shown = tc.to_string();
    let reread: TimeControl = shown
        .parse()
        .unwrap_or_else(|e| panic!("`{input}` shown as `{shown}`, refused: {e}"));
    assert_eq!(&reread, tc, "`{input}` shown as `{shown}`");
    let json = serde_json::to_string(tc).expect("encodes");
    let back: TimeControl = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("`{input}` encoded as {json}, refused: {e}"));
    assert_eq!(&back, tc, "`{input}` encoded as {json}");
    assert!(!tc.periods().is_empty());
    assert!(tc.initial_ms() >= 1000);
    let control = tc.control();
    assert_eq!(control.periods().len(), tc.periods().len());
    let _ = (tc.speed(), control.to_string(), control.nominal_game_time());
    let _ = control.estimate_total_seconds();
}
