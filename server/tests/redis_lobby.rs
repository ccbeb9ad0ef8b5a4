//! The Redis lobby and presence against the real Redis on 127.0.0.1:6379, each test
//! under its own key prefix.

mod common;
mod redis_scenarios;

use redis_scenarios::{entry, lobby, proposal, user};

use common::redis_env::shared_redis;
use damka::cluster::redis::Redis;
use damka::lobby::{Lobby, LobbyError, PoolEntry};
use shared::protocol::TimeControl;

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

#[tokio::test]
async fn seeks_are_taken_once_even_concurrently() {
    let r = shared_redis("seeks").await;
    redis_scenarios::seeks_are_taken_once(&r).await;
    cleanup(&r).await;
}

#[tokio::test]
async fn challenges_and_user_removal() {
    let r = shared_redis("challenges").await;
    let l = lobby(&r);
    let a = user("a", 1500);
    assert!(matches!(
        l.add_challenge(&a, &a.id, proposal()).await,
        Err(LobbyError::SelfChallenge)
    ));
    let c1 = l.add_challenge(&a, &"b".into(), proposal()).await.unwrap();
    let c2 = l.add_challenge(&a, &"c".into(), proposal()).await.unwrap();
    // Each side lists its open challenges, oldest first; nobody else sees them.
    let both = vec![c1.clone(), c2.clone()];
    assert_eq!(l.challenges_of(&a.id).await.unwrap(), both);
    assert_eq!(
        l.challenges_of(&"c".into()).await.unwrap(),
        vec![c2.clone()]
    );
    assert!(l.challenges_of(&"d".into()).await.unwrap().is_empty());
    assert!(c1.game_id.is_some() && c1.game_id != c2.game_id);
    assert!(c1.final_color.is_some());
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
    assert_eq!(l.challenges_of(&"b".into()).await.unwrap(), vec![]);
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
    let r = shared_redis("window").await;
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
            rated: false,
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
    let r = shared_redis("concurrent").await;
    redis_scenarios::pool_pairs_each_player_once(&r).await;
    cleanup(&r).await;
}

#[tokio::test]
async fn presence_across_nodes_and_dead_nodes() {
    let r = shared_redis("presence").await;
    redis_scenarios::presence_across_nodes(&r).await;
    cleanup(&r).await;
}
