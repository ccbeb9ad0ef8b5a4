//! Fuzz target: the protocol's client-message decoder (`ClientMessage::decode`), as the
//! server calls it on every text frame. It must never panic, every failure must carry an
//! error code, and every message it accepts must encode and decode back to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::protocol::ClientMessage;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match ClientMessage::decode(text) {
        Ok(msg) => {
            let json = serde_json::to_string(&msg).expect("a decoded message encodes");
            assert_eq!(
                ClientMessage::decode(&json).as_ref(),
                Ok(&msg),
                "re-decoding {json}"
            );
        }
        Err(e) => {
            assert!(!e.code().as_str().is_empty());
            assert!(!e.to_string().is_empty());
        }
    }
});
