//! Public-key tokens (EdDSA and RS256) through the real upgrade: a token signed by the
//! configured key pair is accepted; one signed by another key, one that names another
//! algorithm (HS256 keyed with the public key: the algorithm-confusion attack) or none
//! is refused with 401. The key pairs in tests/data are test fixtures made with openssl.
//! A key file slow to read holds up only the start of its own node.

mod common;

use common::{TestServer, connect_raw};
use damka::auth::Claims;
use jsonwebtoken::{Algorithm, EncodingKey, Header};

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn claims(sub: &str) -> Claims {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    Claims {
        sub: sub.into(),
        name: Some("Key Holder".into()),
        exp: now + 600,
        iat: now,
        iss: "damka".into(),
        aud: "damka".into(),
        guest: false,
    }
}

fn sign(alg: Algorithm, key: &EncodingKey, sub: &str) -> String {
    jsonwebtoken::encode(&Header::new(alg), &claims(sub), key).unwrap()
}

async fn server(alg: &str, public: &str) -> TestServer {
    let mut config = common::config();
    config.auth.algorithm = alg.into();
    config.auth.secret = String::new();
    config.auth.public_key_file = data(public);
    config.auth.guest_enabled = false;
    common::start(config).await
}

async fn verdicts(srv: &TestServer, good: String, others: Vec<(&str, String)>) {
    let mut ws = connect_raw(srv.addr, &good)
        .await
        .expect("the configured key is accepted");
    drop(ws.close(None).await);
    for (what, token) in others {
        assert_eq!(
            connect_raw(srv.addr, &token).await.err(),
            Some(401),
            "{what}"
        );
    }
}

fn unsigned(sub: &str) -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let header = b64.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let body = b64.encode(serde_json::to_vec(&claims(sub)).unwrap());
    format!("{header}.{body}.")
}

#[tokio::test]
async fn eddsa_tokens_from_the_configured_key_only() {
    let srv = server("EdDSA", "ed25519_test_public.pem").await;
    let own = EncodingKey::from_ed_pem(&std::fs::read(data("ed25519_test_private.pem")).unwrap())
        .unwrap();
    let other =
        EncodingKey::from_ed_pem(&std::fs::read(data("ed25519_other_private.pem")).unwrap())
            .unwrap();
    let confusion =
        EncodingKey::from_secret(&std::fs::read(data("ed25519_test_public.pem")).unwrap());
    verdicts(
        &srv,
        sign(Algorithm::EdDSA, &own, "u:ed"),
        vec![
            ("another key", sign(Algorithm::EdDSA, &other, "u:ed")),
            (
                "HS256 keyed with the public key",
                sign(Algorithm::HS256, &confusion, "u:ed"),
            ),
            ("alg none", unsigned("u:ed")),
        ],
    )
    .await;
    // With no private key the server cannot mint guest tokens.
    let (status, _) = common::http(srv.addr, "POST", "/api/auth/guest", r#"{"name":"Gus"}"#).await;
    assert_ne!(status, 200);
}

#[tokio::test]
async fn rs256_tokens_from_the_configured_key_only() {
    let srv = server("RS256", "rsa_test_public.pem").await;
    let own =
        EncodingKey::from_rsa_pem(&std::fs::read(data("rsa_test_private.pem")).unwrap()).unwrap();
    let ed = EncodingKey::from_ed_pem(&std::fs::read(data("ed25519_test_private.pem")).unwrap())
        .unwrap();
    let confusion = EncodingKey::from_secret(&std::fs::read(data("rsa_test_public.pem")).unwrap());
    verdicts(
        &srv,
        sign(Algorithm::RS256, &own, "u:rs"),
        vec![
            (
                "EdDSA instead of RS256",
                sign(Algorithm::EdDSA, &ed, "u:rs"),
            ),
            (
                "HS256 keyed with the public key",
                sign(Algorithm::HS256, &confusion, "u:rs"),
            ),
            ("alg none", unsigned("u:rs")),
        ],
    )
    .await;
}

/// The key files are read off the async threads: a node whose public key file is slow
/// to give its text (a FIFO nobody has written yet) holds up only its own start. Both
/// nodes run on this test's runtime of one thread, so a read made on it would stop the
/// running node's answers until the file gave its text.
#[tokio::test(flavor = "current_thread")]
async fn a_slow_key_file_holds_up_only_its_own_node() {
    let running = common::start(common::config()).await;
    let dir = common::scratch::scratch_dir("key-fifo");
    let fifo = dir.join("public.pem");
    let pem = std::fs::read(data("ed25519_test_public.pem")).unwrap();
    let prober = common::slow_file(&fifo, running.addr, pem);
    let mut config = common::config();
    config.auth.algorithm = "EdDSA".into();
    config.auth.secret = String::new();
    config.auth.public_key_file = fifo.to_string_lossy().into_owned();
    config.auth.guest_enabled = false;
    let slow = common::start(config).await;
    let health = prober.join().expect("the prober ends");
    assert_eq!(
        health,
        Some(200),
        "the running node answered while the other read its key"
    );
    let key = EncodingKey::from_ed_pem(&std::fs::read(data("ed25519_test_private.pem")).unwrap())
        .unwrap();
    verdicts(&slow, sign(Algorithm::EdDSA, &key, "slow-key"), Vec::new()).await;
}
