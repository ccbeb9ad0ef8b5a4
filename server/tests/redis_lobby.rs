//! The Redis lobby and presence against the real Redis on 127.0.0.1:6379, each test
//! under its own key prefix.

use std::collections::HashSet;
use std::sync::Arc;

use damka::cluster::redis::Redis;
use damka::config::RedisConfig;
use damka::lobby::redis::RedisLobby;
use damka::lobby::{Lobby, LobbyError, PoolEntry, Proposal, Window};
use damka::metrics::Metrics;
use damka::presence::Presence;
use damka::presence::redis::RedisPresence;
use shared::protocol::{ColorChoice, GameId, TimeControl, UserId, UserInfo};
use shared::rules::Variant;

/// A unique prefix, and a connection under it.
async fn redis(test: &str) -> Redis {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let config = RedisConfig {
        url: "redis://127.0.0.1:6379".into(),
        cluster: false,
        prefix: format!("test:{test}:{}:{nanos}:", std::process::id()),
        timeout_ms: 2000,
    };
    Redis::connect(&config, Arc::new(Metrics::default()))
        .await
        .expect("redis on 127.0.0.1:6379")
}

/// Deletes every key under the connection's prefix.
async fn cleanup(r: &Redis) {
    let keys: Vec<String> = r
        .query(redis::cmd("KEYS").arg(format!("{}*", r.prefix())))
        .await
        .unwrap();
    if !keys.is_empty() {
        let _: i64 = r.query(redis::cmd("DEL").arg(keys)).await.unwrap();
    }
}

const WINDOW: Window = Window {
    base: 100,
    growth_per_sec: 50,
    max: 500,
    default_rating: 1500,
};

fn lobby(r: &Redis) -> RedisLobby {
    RedisLobby::new(
        r.clone(),
        [
            (Variant::Russian, TimeControl::new(180, 2)),
            (Variant::Chess, TimeControl::new(60, 0)),
        ],
        WINDOW,
        2,
    )
}

fn user(id: &str, rating: u32) -> UserInfo {
    UserInfo {
        id: id.into(),
        name: id.into(),
        guest: false,
        rating: Some(rating),
    }
}

fn entry(id: &str, rating: u32, since_ms: u64) -> PoolEntry {
    PoolEntry {
        user: user(id, rating),
        variant: Variant::Russian,
        time_control: TimeControl::new(180, 2),
        since_ms,
    }
}

fn proposal() -> Proposal {
    Proposal {
        variant: Variant::Russian,
        time_control: TimeControl::new(180, 2),
        rated: false,
        color: ColorChoice::Random,
        fen: None,
    }
}

#[tokio::test]
async fn seeks_are_taken_once_even_concurrently() {
    let r = redis("seeks").await;
    let l = Arc::new(lobby(&r));
    let a = user("a", 1500);
    let s = l.add_seek(&a, proposal()).await.unwrap();
    l.add_seek(&a, proposal()).await.unwrap();
    assert!(matches!(
        l.add_seek(&a, proposal()).await,
        Err(LobbyError::TooMany)
    ));
    assert!(matches!(
        l.take_seek(&a.id, s.seek_id).await,
        Err(LobbyError::OwnSeek)
    ));
    assert!(matches!(
        l.cancel_seek(&"b".into(), s.seek_id).await,
        Err(LobbyError::SeekNotFound)
    ));
    // Twenty takers at once, through two "nodes": exactly one gets it.
    let other = Arc::new(lobby(&r));
    let takers = (0..20).map(|i| {
        let l = if i % 2 == 0 { l.clone() } else { other.clone() };
        let id = s.seek_id;
        tokio::spawn(async move { l.take_seek(&UserId(format!("t{i}")), id).await })
    });
    let results = futures_util::future::join_all(takers).await;
    let won = results.iter().filter(|r| matches!(r, Ok(Ok(_)))).count();
    assert_eq!(won, 1);
    assert_eq!(l.seeks().await.unwrap().len(), 1);
    l.remove_user(&a.id).await.unwrap();
    assert!(l.seeks().await.unwrap().is_empty());
    // The freed slots can be used again.
    l.add_seek(&a, proposal()).await.unwrap();
    cleanup(&r).await;
}

#[tokio::test]
async fn challenges_and_user_removal() {
    let r = redis("challenges").await;
    let l = lobby(&r);
    let a = user("a", 1500);
    assert!(matches!(
        l.add_challenge(&a, &a.id, proposal()).await,
        Err(LobbyError::SelfChallenge)
    ));
    let c1 = l.add_challenge(&a, &"b".into(), proposal()).await.unwrap();
    let c2 = l.add_challenge(&a, &"c".into(), proposal()).await.unwrap();
    assert!(matches!(
        l.take_challenge(&"c".into(), c1.challenge_id).await,
        Err(LobbyError::ChallengeNotFound)
    ));
    assert_eq!(
        l.take_challenge(&"b".into(), c1.challenge_id)
            .await
            .unwrap(),
        c1
    );
    l.join_pool(entry("a", 1500, 1_000)).await.unwrap();
    l.add_seek(&a, proposal()).await.unwrap();
    let dropped = l.remove_user(&"c".into()).await.unwrap();
    assert_eq!(dropped, vec![c2]);
    assert!(l.remove_user(&a.id).await.unwrap().is_empty());
    assert!(l.seeks().await.unwrap().is_empty());
    assert!(!l.leave_pools(&a.id).await.unwrap());
    cleanup(&r).await;
}

#[tokio::test]
async fn pool_window_widens_with_waiting() {
    let r = redis("window").await;
    let l = lobby(&r);
    let t0 = 1_000_000u64;
    assert_eq!(l.join_pool(entry("a", 1500, t0)).await.unwrap(), None);
    assert_eq!(l.join_pool(entry("b", 1800, t0)).await.unwrap(), None);
    let p = l.join_pool(entry("c", 1560, t0)).await.unwrap().unwrap();
    assert_eq!(
        (p.first.user.id.0.as_str(), p.second.user.id.0.as_str()),
        ("a", "c")
    );
    assert_eq!(
        l.join_pool(entry("d", 1500, t0 + 2000)).await.unwrap(),
        None
    );
    // 300 apart: both windows must reach 300, i.e. d must wait 4 s (b has waited longer).
    assert!(l.pair_pools(t0 + 5000).await.unwrap().is_empty());
    let p = l.pair_pools(t0 + 6000).await.unwrap();
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].first.user.id.0, "b");
    assert!(matches!(
        l.join_pool(PoolEntry {
            time_control: TimeControl::new(300, 0),
            ..entry("e", 1500, t0)
        })
        .await,
        Err(LobbyError::UnknownPool)
    ));
    cleanup(&r).await;
}

/// Three "nodes" (lobbies on one prefix) take 300 pool entries at once, then pair on
/// timers at once: nobody is paired twice, and nobody compatible is left waiting.
#[tokio::test]
async fn concurrent_pool_pairing_pairs_each_player_once() {
    let r = redis("concurrent").await;
    let nodes: Vec<Arc<RedisLobby>> = (0..3).map(|_| Arc::new(lobby(&r))).collect();
    let t0 = 1_000_000u64;
    let joins = (0..300u32).map(|i| {
        let l = nodes[i as usize % 3].clone();
        let rating = 1000 + (i * 37) % 1200;
        tokio::spawn(async move { l.join_pool(entry(&format!("p{i}"), rating, t0)).await })
    });
    let mut pairings = Vec::new();
    for r in futures_util::future::join_all(joins).await {
        pairings.extend(r.unwrap().unwrap());
    }
    // Every node's timer fires at once, late enough for the widest window.
    let ticks = nodes.iter().map(|l| {
        let l = l.clone();
        tokio::spawn(async move { l.pair_pools(t0 + 60_000).await })
    });
    for r in futures_util::future::join_all(ticks).await {
        pairings.extend(r.unwrap().unwrap());
    }
    let mut seen = HashSet::new();
    for p in &pairings {
        for e in [&p.first, &p.second] {
            assert!(seen.insert(e.user.id.clone()), "{} paired twice", e.user.id);
        }
        let diff = p
            .first
            .user
            .rating
            .unwrap()
            .abs_diff(p.second.user.rating.unwrap());
        assert!(diff <= WINDOW.max, "{diff}");
    }
    // Whoever is left has nobody within the widest window.
    let left: Vec<u32> = (0..300u32)
        .filter(|i| !seen.contains(&UserId(format!("p{i}"))))
        .map(|i| 1000 + (i * 37) % 1200)
        .collect();
    for (i, a) in left.iter().enumerate() {
        for b in &left[i + 1..] {
            assert!(a.abs_diff(*b) > WINDOW.max, "{a} and {b} both left waiting");
        }
    }
    assert!(left.len() <= 1, "{left:?}");
    cleanup(&r).await;
}

#[tokio::test]
async fn presence_across_nodes_and_dead_nodes() {
    let r = redis("presence").await;
    let a = RedisPresence::new(r.clone(), "node-a", 400);
    let b = RedisPresence::new(r.clone(), "node-b", 400);
    a.heartbeat().await.unwrap();
    b.heartbeat().await.unwrap();
    let u = user("u", 1500);
    let v = user("v", 1500);
    assert_eq!(a.connect(&u).await.unwrap(), 1);
    assert_eq!(b.connect(&u).await.unwrap(), 2);
    assert_eq!(b.connect(&v).await.unwrap(), 1);
    assert_eq!(a.online_count().await.unwrap(), 2);
    let g = GameId::from("g1");
    a.set_playing(&u.id, &g, Variant::Russian, true)
        .await
        .unwrap();
    a.set_playing(&v.id, &g, Variant::Russian, true)
        .await
        .unwrap();
    assert_eq!(b.playing_counts().await.unwrap()[&Variant::Russian], 2);
    let s = b.statuses(&[u.id.clone(), "nobody".into()]).await.unwrap();
    assert!(s[0].online && s[0].playing == vec![g.clone()]);
    assert!(!s[1].online && s[1].playing.is_empty());
    assert_eq!(a.user(&u.id).await.unwrap(), Some(u.clone()));
    // u closes its connection on a: still online through b.
    assert_eq!(a.disconnect(&u.id).await.unwrap(), 1);
    assert!(a.is_online(&u.id).await.unwrap());
    // b dies (no more heartbeats): within the TTL its users are offline for every
    // reader, and a's next heartbeat forgets them.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(!a.is_online(&v.id).await.unwrap());
    let mut gone = a.heartbeat().await.unwrap();
    gone.sort();
    assert_eq!(gone, vec![u.id.clone(), v.id.clone()]);
    assert_eq!(a.online_count().await.unwrap(), 0);
    // Games outlive the connections.
    assert_eq!(a.games_of(&u.id).await.unwrap(), vec![g.clone()]);
    a.set_playing(&u.id, &g, Variant::Russian, false)
        .await
        .unwrap();
    assert!(a.games_of(&u.id).await.unwrap().is_empty());
    assert_eq!(a.playing_counts().await.unwrap()[&Variant::Russian], 1);
    cleanup(&r).await;
}
