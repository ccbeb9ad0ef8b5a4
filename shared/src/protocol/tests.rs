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

/// `decode` reads a frame straight into the enum before it checks the `type` against
/// `TYPES`: both must name the same messages, or a type left out of `TYPES` would be
/// read.
#[test]
fn every_variant_is_a_type_name() {
    let err = serde_json::from_str::<ClientMessage>(r#"{"type":"no_such_type"}"#).unwrap_err();
    let text = err.to_string();
    let expected = text
        .split("expected one of ")
        .nth(1)
        .unwrap_or_else(|| panic!("serde's error lists no variants: {text}"));
    let mut variants: Vec<&str> = expected
        .split(", ")
        .map(|v| v.split('`').nth(1).unwrap_or(v))
        .collect();
    let mut types = ClientMessage::TYPES.to_vec();
    variants.sort_unstable();
    types.sort_unstable();
    assert_eq!(variants, types);
}

/// A frame read straight and one whose error is classified give what the slower path
/// gave: a duplicated field keeps the last value, a `type` of another case is unknown.
#[test]
fn decode_falls_back_for_what_the_fast_path_refuses() {
    assert_eq!(
        ClientMessage::decode(r#"{"type":"resign","game_id":"a","game_id":"b"}"#).unwrap(),
        ClientMessage::Resign {
            game_id: GameId("b".into())
        }
    );
    assert_eq!(
        ClientMessage::decode(r#"{"type":"Resign","game_id":"a"}"#)
            .unwrap_err()
            .code(),
        ErrorCode::UnknownType
    );
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

/// The text of a `game_event` written from borrowed parts, and the mover's copy made by
/// appending the legal moves and the draw offer permission to it, are the texts the
/// whole message serialises to: for both kinds of event that put a side on the move,
/// with and without a permission, a refusal, and for an event without mover fields.
#[test]
fn game_event_texts_match_the_message() {
    let events = [
        r#"{"kind":"move","by":"white","played":{"move":"c3-d4","from":"c3","to":"d4","path":["c3","d4"],"captures":[]},"fen":"B:Wd4:Bb6","clock":{"white_ms":303000,"black_ms":300000,"running":"black"}}"#,
        r#"{"kind":"taken_back","plies":1,"fen":"W:Wc3:Bb6","clock":{"white_ms":303000,"black_ms":297000,"running":"white"}}"#,
        r#"{"kind":"draw_offered","by":"black"}"#,
    ];
    let offers = [
        None,
        Some(None),
        Some(Some(crate::law::OfferRefusal::TooManyPieces { max: 6 })),
    ];
    let game_id = GameId("k3Xp9aQe".into());
    for text in events {
        let event: GameEvent = serde_json::from_str(text).unwrap();
        let plain = ServerMessage::GameEvent {
            game_id: game_id.clone(),
            version: 7,
            event: event.clone(),
        };
        let json = ServerMessage::game_event_json(&game_id, 7, &event);
        assert_eq!(json, plain.to_json());
        if !event.puts_on_move() {
            continue;
        }
        for offer in offers {
            let legal = vec!["b6-a5".to_string(), "b6-c5".to_string()];
            let mut full = plain.clone();
            let ServerMessage::GameEvent { event, .. } = &mut full else {
                unreachable!()
            };
            let (slot, permission) = event.mover_fields().unwrap();
            *slot = legal.clone();
            *permission = offer;
            assert_eq!(
                ServerMessage::with_mover_fields(&json, &legal, offer).unwrap(),
                full.to_json()
            );
        }
    }
    assert_eq!(ServerMessage::with_mover_fields("{}", &[], None), None);
}

/// A `game_start` made once for no one, with a player's legal moves and draw offer
/// permission appended, is the text the message serialises to with them set: the
/// state's optional fields that come before them (arena, tournament, the micro-match
/// break) set too.
#[test]
fn game_start_texts_match_the_message() {
    let text = r#"{"game_id":"Pq7nRt4d","version":0,"variant":"russian","time_control":"3+2","speed":"blitz","rated":true,"white":{"id":"alice","name":"Alice","guest":false},"black":{"id":"dave","name":"Dave","guest":false},"initial_fen":"W:Wc3:Bb6","fen":"W:Wc3:Bb6","moves":[],"turn":"white","clock":{"white_ms":180000,"black_ms":180000,"running":null},"connected":[true,false],"spectators":2,"berserk":["black"],"arena":"Qm4xT7ra","tournament":"t7Qm2x","created_ms":1767225600000,"break_until_ms":1767225900000}"#;
    let state: GameState = serde_json::from_str(text).unwrap();
    let shared = ServerMessage::GameStart {
        game: state.clone(),
    }
    .to_json();
    let offers = [
        None,
        Some(None),
        Some(Some(crate::law::OfferRefusal::TooManyPieces { max: 6 })),
    ];
    for legal in [vec![], vec!["c3-d4".to_string(), "c3-b4".to_string()]] {
        for offer in offers {
            let mut own = state.clone();
            own.legal_moves = legal.clone();
            own.draw_offer_refusal = offer;
            assert_eq!(
                ServerMessage::with_mover_fields(&shared, &legal, offer).unwrap(),
                ServerMessage::GameStart { game: own }.to_json()
            );
        }
    }
}
