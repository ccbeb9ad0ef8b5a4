//! Lobby scenarios run against a single Redis (redis_lobby.rs) and a Redis Cluster
//! (redis_cluster.rs) alike.
#![allow(dead_code)]

use std::collections::HashSet;
use std::sync::Arc;

use damka::cluster::redis::Redis;
use damka::lobby::redis::RedisLobby;
use damka::lobby::{Lobby, LobbyError, PoolEntry, Proposal, Window};
use damka::presence::Presence;
use damka::presence::redis::RedisPresence;
use shared::protocol::{ColorChoice, GameId, TimeControl, UserId, UserInfo};
use shared::rules::Variant;
use shared::rules::draughts::DraughtsVariant;

pub const WINDOW: Window = Window {
    base: 100,
    growth_per_sec: 50,
    max: 500,
    default_rating: 1500,
};

pub fn lobby(r: &Redis) -> RedisLobby {
    RedisLobby::new(
        r.clone(),
        [
            (
                Variant::Draughts(DraughtsVariant::Russian),
                TimeControl::new(180, 2),
            ),
            (Variant::Chess, TimeControl::new(60, 0)),
        ],
        WINDOW,
        2,
    )
}

pub fn user(id: &str, rating: u32) -> UserInfo {
    UserInfo {
        id: id.into(),
        name: id.into(),
        guest: false,
        rating: Some(rating),
        bot: false,
    }
}

pub fn entry(id: &str, rating: u32, since_ms: u64) -> PoolEntry {
    PoolEntry {
        rated: false,
        user: user(id, rating),
        variant: Variant::Draughts(DraughtsVariant::Russian),
        time_control: TimeControl::new(180, 2),
        since_ms,
    }
}

pub fn proposal() -> Proposal {
    Proposal {
        variant: Variant::Draughts(DraughtsVariant::Russian),
        time_control: TimeControl::new(180, 2),
        rated: false,
        color: ColorChoice::Random,
        fen: None,
        ruleset: None,
        rating_range: None,
    }
}

/// A seek is taken by exactly one of twenty takers racing through two lobbies.
pub async fn seeks_are_taken_once(r: &Redis) {
    let l = Arc::new(lobby(r));
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
    let other = Arc::new(lobby(r));
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
}

/// 300 players join one pool through three lobbies and all three pair at once: nobody
/// twice, nobody compatible left.
pub async fn pool_pairs_each_player_once(r: &Redis) {
    let nodes: Vec<Arc<RedisLobby>> = (0..3).map(|_| Arc::new(lobby(r))).collect();
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
    // Greedy pairing may leave a few players whose ratings are too far apart for each
    // other (the loop above); never a compatible pair.
    assert!(left.len() < 10, "{left:?}");
}

/// Presence through two nodes: connection counts, games, statuses, and a node that
/// stops its heartbeats losing its users.
pub async fn presence_across_nodes(r: &Redis) {
    let a = RedisPresence::new(r.clone(), "node-a", 400);
    let b = RedisPresence::new(r.clone(), "node-b", 400);
    assert!(
        a.heartbeat().await.unwrap().forgotten,
        "a new node is not yet known"
    );
    assert!(!a.heartbeat().await.unwrap().forgotten);
    b.heartbeat().await.unwrap();
    let u = user("u", 1500);
    let v = user("v", 1500);
    assert_eq!(a.connect(&u).await.unwrap(), 1);
    assert_eq!(b.connect(&u).await.unwrap(), 2);
    assert_eq!(b.connect(&v).await.unwrap(), 1);
    assert_eq!(a.online_count().await.unwrap(), 2);
    let g = GameId::from("g1");
    let pool = (
        Variant::Draughts(DraughtsVariant::Russian),
        TimeControl::new(180, 2),
    );
    a.set_playing(&[u.id.clone(), v.id.clone()], &g, pool, true)
        .await
        .unwrap();
    assert_eq!(b.playing_counts().await.unwrap()[&pool], 2);
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
    let mut gone = a.heartbeat().await.unwrap().offline;
    gone.sort();
    assert_eq!(gone, vec![u.id.clone(), v.id.clone()]);
    assert_eq!(a.online_count().await.unwrap(), 0);
    // Games outlive the connections.
    assert_eq!(a.games_of(&u.id).await.unwrap(), vec![g.clone()]);
    a.set_playing(std::slice::from_ref(&u.id), &g, pool, false)
        .await
        .unwrap();
    assert!(a.games_of(&u.id).await.unwrap().is_empty());
    assert_eq!(a.playing_counts().await.unwrap()[&pool], 1);
    // b was only slow: its next heartbeat says it was forgotten, and registering its
    // open connections again brings its users back, counted once each.
    let beat = b.heartbeat().await.unwrap();
    assert!(beat.forgotten && beat.offline.is_empty(), "{beat:?}");
    let open = [(u.clone(), 1), (v.clone(), 1)];
    b.restore(&open).await.unwrap();
    b.restore(&open).await.unwrap();
    assert_eq!(a.online_count().await.unwrap(), 2);
    assert!(a.is_online(&v.id).await.unwrap());
    assert_eq!(b.disconnect(&v.id).await.unwrap(), 0);
    assert_eq!(a.online_count().await.unwrap(), 1);
    assert!(!b.heartbeat().await.unwrap().forgotten);
}
