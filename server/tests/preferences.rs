//! `GET`/`PUT /api/account/preferences` through a live server on both databases:
//! defaults first, a partial change kept whole, bad input refused with its code and
//! nothing changed, two changes at once both kept, guests kept out of writing, and the stored
//! preferences read back after the server restarts on the same database.

mod common;

use common::{backends, config, guest, register, request, start};
use serde_json::{Value, json};

async fn prefs(addr: std::net::SocketAddr, token: &str) -> Value {
    let (status, body) = request(addr, "GET", "/api/account/preferences", Some(token), "").await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preferences_are_validated_stored_and_survive_a_restart() {
    for (backend, url) in backends().await {
        let mut c = config();
        c.database.url = url.clone();
        let server = start(c).await;
        let addr = server.addr;
        let (session, _) = register(addr, "Settler", "correct horse").await;
        let defaults = prefs(addr, &session).await;
        assert_eq!(defaults["language"], "en", "{backend}");
        assert_eq!(defaults["board"], "brown", "{backend}");
        assert_eq!(defaults["confirm_resign"], true, "{backend}");

        let change =
            json!({ "language": "uk", "board": "green", "coordinates": false }).to_string();
        let (status, body) = request(
            addr,
            "PUT",
            "/api/account/preferences",
            Some(&session),
            &change,
        )
        .await;
        assert_eq!(status, 200, "{backend}: {body}");
        let changed = prefs(addr, &session).await;
        assert_eq!(changed["language"], "uk");
        assert_eq!(changed["board"], "green");
        assert_eq!(changed["coordinates"], false);
        assert_eq!(changed["sound"], true, "fields not sent keep their value");

        // Two changes of different settings at the same moment both stay.
        let board = json!({ "board": "blue" }).to_string();
        let pieces = json!({ "pieces": "classic" }).to_string();
        let (a, b) = tokio::join!(
            request(
                addr,
                "PUT",
                "/api/account/preferences",
                Some(&session),
                &board
            ),
            request(
                addr,
                "PUT",
                "/api/account/preferences",
                Some(&session),
                &pieces
            ),
        );
        assert_eq!((a.0, b.0), (200, 200), "{backend}: {a:?} {b:?}");
        let both = prefs(addr, &session).await;
        assert_eq!(
            (&both["board"], &both["pieces"]),
            (&json!("blue"), &json!("classic"))
        );
        let back = json!({ "board": "green", "pieces": "flat" }).to_string();
        let (status, _) = request(
            addr,
            "PUT",
            "/api/account/preferences",
            Some(&session),
            &back,
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(prefs(addr, &session).await, changed, "{backend}");

        // Each refusal names its code and leaves everything as it was, including the
        // valid fields sent beside the bad one.
        for (bad, code) in [
            (
                json!({ "language": "de", "sound": false }),
                "invalid_preferences",
            ),
            (json!({ "board": "<script>" }), "invalid_preferences"),
            (json!({ "pieces": "" }), "invalid_preferences"),
            (json!({ "sound": "yes" }), "invalid_message"),
            (
                json!({ "language": "ru", "theme": "dark" }),
                "invalid_message",
            ),
            (json!(["language", "ru"]), "invalid_message"),
        ] {
            let (status, body) = request(
                addr,
                "PUT",
                "/api/account/preferences",
                Some(&session),
                &bad.to_string(),
            )
            .await;
            assert_eq!(status, 400, "{backend}: {bad} -> {body}");
            let v: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(v["code"], code, "{backend}: {bad} -> {body}");
            assert_eq!(
                prefs(addr, &session).await,
                changed,
                "{backend}: {bad} changed nothing"
            );
        }
        let (status, _) = request(
            addr,
            "PUT",
            "/api/account/preferences",
            Some(&session),
            "{not json",
        )
        .await;
        assert_eq!(status, 400);
        let big = format!("{{\"language\": \"{}\"}}", "x".repeat(5000));
        let (status, _) = request(
            addr,
            "PUT",
            "/api/account/preferences",
            Some(&session),
            &big,
        )
        .await;
        assert_eq!(status, 400);
        assert_eq!(prefs(addr, &session).await, changed);

        // Nobody without an account: no token, a guest.
        let (status, _) = request(addr, "GET", "/api/account/preferences", None, "").await;
        assert_eq!(status, 401);
        let (guest_token, _) = guest(addr, "Visitor").await;
        let (status, body) = request(
            addr,
            "PUT",
            "/api/account/preferences",
            Some(&guest_token),
            &json!({ "language": "ru" }).to_string(),
        )
        .await;
        assert_eq!(status, 403, "{body}");

        // Another server on the same database reads what was stored.
        server.server.shutdown();
        server.server.wait().await.unwrap();
        let mut c = config();
        c.database.url = url;
        let again = start(c).await;
        assert_eq!(prefs(again.addr, &session).await, changed, "{backend}");
        again.server.shutdown();
        again.server.wait().await.unwrap();
    }
}
