//! Protocol tests: decoding errors, wire names, and every example in docs/protocol.md.

use super::*;

#[test]
fn decode_errors_are_typed() {
    assert_eq!(
        ClientMessage::decode("{").unwrap_err().code(),
        ErrorCode::BadJson
    );
    assert_eq!(
        ClientMessage::decode("[1]").unwrap_err().code(),
        ErrorCode::MissingType
    );
    assert_eq!(
        ClientMessage::decode(r#"{"type":7}"#).unwrap_err().code(),
        ErrorCode::MissingType
    );
    assert_eq!(
        ClientMessage::decode(r#"{"type":"fly"}"#)
            .unwrap_err()
            .code(),
        ErrorCode::UnknownType
    );
    assert_eq!(
        ClientMessage::decode(r#"{"type":"move","game_id":"g"}"#)
            .unwrap_err()
            .code(),
        ErrorCode::InvalidMessage
    );
    assert_eq!(
        ClientMessage::decode(r#"{"type":"seek","variant":"russian","time_control":"x"}"#)
            .unwrap_err()
            .code(),
        ErrorCode::InvalidMessage
    );
}

#[test]
fn every_type_name_is_a_variant() {
    for name in ClientMessage::TYPES {
        let err = ClientMessage::decode(&format!(r#"{{"type":"{name}"}}"#));
        if let Err(e) = err {
            assert_eq!(e.code(), ErrorCode::InvalidMessage, "{name}: {e}");
        }
    }
}

#[test]
fn error_code_names_match_serde() {
    for code in ErrorCode::ALL {
        let json = serde_json::to_string(code).unwrap();
        assert_eq!(json, format!("\"{}\"", code.as_str()));
        let back: ErrorCode = serde_json::from_str(&json).unwrap();
        assert_eq!(back, *code);
    }
}

#[test]
fn time_controls() {
    let tc: TimeControl = "5+3".parse().unwrap();
    assert_eq!(tc, TimeControl::new(300, 3));
    assert_eq!(tc.to_string(), "5+3");
    assert_eq!(tc.speed(), Speed::Blitz);
    let tc: TimeControl = "0.5+0".parse().unwrap();
    assert_eq!(tc.initial_ms(), 30_000);
    assert_eq!(tc.to_string(), "0.5+0");
    assert_eq!(tc.speed(), Speed::Bullet);
    assert_eq!(
        "90+30".parse::<TimeControl>().unwrap().speed(),
        Speed::Classical
    );
    assert_eq!(
        "15+10".parse::<TimeControl>().unwrap().speed(),
        Speed::Rapid
    );
    for bad in [
        "", "5", "+3", "a+b", "0+0", "-1+0", "NaN+0", "inf+0", "5+-1", "1000+0",
    ] {
        assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
    }
}

/// Every ```json block of docs/protocol.md whose first line after the fence is a client
/// or server message must decode, and encode back to the same JSON value.
#[test]
fn documented_examples_decode() {
    let doc = include_str!("../../../docs/protocol.md");
    let mut client = 0;
    let mut server = 0;
    let mut rest = doc;
    while let Some(start) = rest.find("```json") {
        let after = &rest[start + "```json".len()..];
        let (info, body) = after.split_once('\n').unwrap();
        let end = body.find("```").unwrap();
        let json = &body[..end];
        rest = &body[end + 3..];
        let value: serde_json::Value =
            serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
        match info.trim() {
            "client" => {
                let msg = ClientMessage::decode(json).unwrap_or_else(|e| panic!("{e}: {json}"));
                assert_eq!(serde_json::to_value(&msg).unwrap(), value, "{json}");
                client += 1;
            }
            "server" => {
                let msg: ServerMessage =
                    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
                assert_eq!(serde_json::to_value(&msg).unwrap(), value, "{json}");
                server += 1;
            }
            _ => {}
        }
    }
    assert!(
        client >= ClientMessage::TYPES.len(),
        "only {client} client examples"
    );
    assert!(server >= 15, "only {server} server examples");
}

/// A player's draw offer permission: absent, `null` (allowed) and a refusal each come
/// back as they went.
#[test]
fn draw_offer_refusal_keeps_null_apart_from_absent() {
    for text in [
        r#"{"type":"move_ack","game_id":"g","move_id":1,"version":2}"#,
        r#"{"type":"move_ack","game_id":"g","move_id":1,"version":2,"draw_offer_refusal":null}"#,
        r#"{"type":"move_ack","game_id":"g","move_id":1,"version":2,"draw_offer_refusal":{"kind":"too_early","required":20}}"#,
    ] {
        let msg: ServerMessage = serde_json::from_str(text).expect(text);
        let back: serde_json::Value = serde_json::from_str(&msg.to_json()).unwrap();
        let sent: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(back, sent, "{text}");
    }
}
