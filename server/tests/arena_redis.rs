//! The arena state scripts (`arena/redis.rs`) against the real Redis on 127.0.0.1:6379,
//! under their own key prefix: an arena is stored once; a wave never pairs a busy or
//! paused player, and a wave written twice (retried after a late answer) starts its
//! games all the same; every organiser write with a stale lease token is refused and
//! changes nothing; a game is scored once however often it is reported; the
//! leaderboard is the board's order; watchers besides the players are capped; a closed
//! arena takes nobody; a dropped arena leaves nothing behind.

mod common;

use common::redis_env::shared_redis;
use damka::arena::redis::{ArenaStore, Fenced, LEASE_KIND, PairWrite, ScoreWrite};
use damka::arena::{ArenaError, ArenaSpec, JoinRequest};
use damka::cluster::lease::Lease;
use damka::cluster::organiser::OrganiserLeases;
use damka::cluster::redis::{Redis, wall_ms};
use shared::arena::{ArenaInfo, ArenaResult, ArenaStatus, GameFor, Membership};
use shared::protocol::{GameId, UserId, UserInfo};
use shared::rules::Variant;
use shared::rules::draughts::DraughtsVariant;

async fn keys(r: &Redis) -> Vec<String> {
    r.query(redis::cmd("KEYS").arg(format!("{}*", r.prefix())))
        .await
        .unwrap()
}

fn join(user: &str, rating: u32) -> JoinRequest {
    JoinRequest {
        user: UserInfo {
            id: UserId(user.into()),
            name: user.into(),
            guest: false,
            rating: Some(rating),
            bot: false,
        },
        rated_games: 0,
        password: None,
    }
}

fn u(s: &str) -> UserId {
    UserId(s.into())
}

#[tokio::test]
async fn arena_writes_are_fenced_and_never_doubled() {
    let r = shared_redis("arena-redis").await;
    let store = ArenaStore::new(r.clone(), 100, 2, 10);
    let leases = OrganiserLeases::new(r.clone(), LEASE_KIND, "n1", 10_000);
    let spec = ArenaSpec {
        info: ArenaInfo {
            id: "ar1".into(),
            name: "Test".into(),
            variant: Variant::Draughts(DraughtsVariant::Russian),
            ruleset: None,
            time_control: "3+2".parse().unwrap(),
            rated: false,
            starts_at_ms: wall_ms(),
            duration_ms: 600_000,
            berserk: false,
            min_games: 0,
            min_rating: None,
            max_rating: None,
            private: false,
            created_by: "org".into(),
            status: ArenaStatus::Upcoming,
            players: 0,
        },
        password: None,
    };
    assert!(store.create(&spec).await.unwrap());
    assert!(!store.create(&spec).await.unwrap(), "stored once");
    assert_eq!(store.ids().await.unwrap(), ["ar1"]);
    for (name, rating) in [("u1", 1500), ("u2", 1600), ("u3", 1400), ("u4", 1450)] {
        assert_eq!(
            store.join("ar1", join(name, rating)).await,
            Ok(Membership::Active)
        );
    }
    assert_eq!(
        store.join("nope", join("u1", 1500)).await,
        Err(ArenaError::NotFound)
    );
    let lease = leases.acquire("ar1").await.unwrap().unwrap();
    assert!(leases.acquire("ar1").await.unwrap().is_none(), "one holder");
    let state = store.load("ar1").await.unwrap();
    let rec = |s: &str| (u(s), state.players[&u(s)].clone());
    let (g1, g2, g3) = (
        GameId("g1".into()),
        GameId("g2".into()),
        GameId("g3".into()),
    );

    // A stale token writes nothing.
    let stale = Lease {
        fence: lease.fence - 1,
        token: format!("{}:old", lease.fence - 1),
    };
    let wave = [PairWrite {
        game: g1.clone(),
        white: rec("u1"),
        black: rec("u2"),
    }];
    assert_eq!(
        store.pair("ar1", &stale, 0, &wave).await.unwrap(),
        Fenced::Lost
    );
    assert!(store.load("ar1").await.unwrap().games.is_empty());

    // u3 pauses; in one wave u2 is paired once, u3 not at all.
    assert_eq!(
        store.leave("ar1", &u("u3"), true).await,
        Ok(Membership::Paused)
    );
    let wave = [
        PairWrite {
            game: g1.clone(),
            white: rec("u1"),
            black: rec("u2"),
        },
        PairWrite {
            game: g2.clone(),
            white: rec("u4"),
            black: rec("u2"),
        },
        PairWrite {
            game: g3.clone(),
            white: rec("u3"),
            black: rec("u4"),
        },
    ];
    assert_eq!(
        store.pair("ar1", &lease, 0, &wave).await.unwrap(),
        Fenced::Ok(vec![g1.clone()])
    );
    let state = store.load("ar1").await.unwrap();
    assert_eq!(state.busy.len(), 2);
    assert_eq!(state.games[&g1], (u("u1"), u("u2")));
    // The same wave written again (its first answer came too late, the organiser
    // retried): the pair it recorded is accepted again, so its game starts; nothing
    // changes.
    let ver = store.ver("ar1").await.unwrap();
    assert_eq!(
        store.pair("ar1", &lease, 0, &wave).await.unwrap(),
        Fenced::Ok(vec![g1.clone()])
    );
    assert_eq!(store.ver("ar1").await.unwrap(), ver, "nothing changed");
    let again = store.load("ar1").await.unwrap();
    assert_eq!((again.busy.len(), again.games.len()), (2, 1));
    // Withdrawing while playing pauses.
    assert_eq!(
        store.leave("ar1", &u("u1"), false).await,
        Ok(Membership::Paused)
    );
    assert_eq!(
        store.join("ar1", join("u1", 1500)).await,
        Ok(Membership::Active)
    );

    // u2 wins g1: scored once, however often reported; a stale token is refused.
    let mut winner = state.players[&u("u2")].clone();
    winner.sheet.add(GameFor {
        game_id: "g1".into(),
        opponent: "u1".into(),
        opponent_rating: 1500,
        result: ArenaResult::Win,
        berserk: false,
        own_moves: 20,
        plies: 40,
    });
    let mut loser = state.players[&u("u1")].clone();
    loser.sheet.add(GameFor {
        game_id: "g1".into(),
        opponent: "u2".into(),
        opponent_rating: 1600,
        result: ArenaResult::Loss,
        berserk: false,
        own_moves: 20,
        plies: 40,
    });
    let write = ScoreWrite {
        game: g1.clone(),
        sides: [(u("u1"), Some(loser)), (u("u2"), Some(winner))],
        late: None,
    };
    assert_eq!(
        store.score("ar1", &stale, &write).await.unwrap(),
        Fenced::Lost
    );
    assert_eq!(
        store.score("ar1", &lease, &write).await.unwrap(),
        Fenced::Ok(true)
    );
    assert_eq!(
        store.score("ar1", &lease, &write).await.unwrap(),
        Fenced::Ok(false)
    );
    let state = store.load("ar1").await.unwrap();
    assert!(state.games.is_empty() && state.busy.is_empty());
    assert_eq!(state.players[&u("u2")].sheet.score(), 2);
    assert_eq!(state.players[&u("u1")].sheet.entries.len(), 1);

    // The leaderboard: u2 (2 points) first; then by performance (u1: 1600 - 500;
    // nobody else played) and rating.
    let standings = store.standings("ar1", Some(&u("u1"))).await.unwrap();
    let order: Vec<&str> = standings.top.iter().map(|l| l.user.as_str()).collect();
    assert_eq!(order, ["u2", "u1", "u4", "u3"]);
    let me = standings.me.unwrap();
    assert_eq!(me.standing.rank, 2);
    assert_eq!(me.standing.performance, 1100);
    assert_eq!(me.sheet.len(), 1);
    assert_eq!(standings.players, 4);

    // Withdrawing before any game leaves; after one, pauses.
    assert_eq!(
        store.leave("ar1", &u("u4"), false).await,
        Ok(Membership::Withdrawn)
    );
    assert_eq!(
        store.leave("ar1", &u("u1"), false).await,
        Ok(Membership::Paused)
    );
    assert_eq!(
        store.leave("ar1", &u("u4"), false).await,
        Err(ArenaError::NotJoined)
    );

    // Watchers besides the players: two at most (the store's cap), whatever the node;
    // players always watch; one who leaves or joins as a player frees a place.
    for p in ["u1", "u2", "u3"] {
        assert!(store.watch("ar1", &u(p)).await.is_ok(), "{p} plays");
    }
    assert!(store.watch("ar1", &u("w1")).await.is_ok());
    assert!(store.watch("ar1", &u("w2")).await.is_ok());
    assert!(
        store.watch("ar1", &u("w1")).await.is_ok(),
        "again: no new place"
    );
    assert_eq!(
        store.watch("ar1", &u("w3")).await.map(|_| ()),
        Err(ArenaError::WatchersFull)
    );
    store.unwatch("ar1", &u("w1")).await;
    assert!(store.watch("ar1", &u("w3")).await.is_ok());
    assert_eq!(
        store.join("ar1", join("w2", 1500)).await,
        Ok(Membership::Active)
    );
    assert!(store.watch("ar1", &u("w4")).await.is_ok(), "w2 now plays");
    assert_eq!(
        store.watch("ar1", &u("w5")).await.map(|_| ()),
        Err(ArenaError::WatchersFull)
    );
    let watchers = store.watchers("ar1").await.unwrap();
    for w in ["w2", "w3", "w4"] {
        assert!(watchers.contains(&u(w)), "{w}: {watchers:?}");
    }
    assert!(!watchers.contains(&u("w1")) && !watchers.contains(&u("w5")));

    // Closed: nobody joins; dropped: nothing is left but the fencing counter.
    assert_eq!(store.close("ar1", &lease).await.unwrap(), Fenced::Ok(()));
    assert_eq!(
        store.join("ar1", join("u5", 1500)).await,
        Err(ArenaError::Closed)
    );
    assert_eq!(store.drop_arena("ar1", &stale).await.unwrap(), Fenced::Lost);
    assert_eq!(
        store.drop_arena("ar1", &lease).await.unwrap(),
        Fenced::Ok(())
    );
    leases.release("ar1", &lease).await.unwrap();
    assert!(store.ids().await.unwrap().is_empty());
    assert_eq!(
        keys(&r).await,
        [format!("{}{{o:arena:ar1}}:fence", r.prefix())]
    );
    assert!(matches!(
        store.watch("ar1", &u("u1")).await,
        Err(ArenaError::NotFound)
    ));
    assert_eq!(
        keys(&r).await.len(),
        1,
        "watching a dropped arena stores nothing"
    );
    let _: i64 = r
        .query(redis::cmd("DEL").arg(keys(&r).await))
        .await
        .unwrap();
}

/// Games that ended together are scored in one call: each scored once (a game scored
/// already is left alone and says so), every sheet and the board updated, the change
/// counter bumped once; a stale token scores nothing.
#[tokio::test]
async fn games_ended_together_are_scored_in_one_call() {
    let r = shared_redis("arena-score-many").await;
    let store = ArenaStore::new(r.clone(), 100, 2, 10);
    let leases = OrganiserLeases::new(r.clone(), LEASE_KIND, "n1", 10_000);
    let spec = ArenaSpec {
        info: ArenaInfo {
            id: "ar2".into(),
            name: "Test".into(),
            variant: Variant::Draughts(DraughtsVariant::Russian),
            ruleset: None,
            time_control: "3+2".parse().unwrap(),
            rated: false,
            starts_at_ms: wall_ms(),
            duration_ms: 600_000,
            berserk: false,
            min_games: 0,
            min_rating: None,
            max_rating: None,
            private: false,
            created_by: "org".into(),
            status: ArenaStatus::Upcoming,
            players: 0,
        },
        password: None,
    };
    assert!(store.create(&spec).await.unwrap());
    for (name, rating) in [("u1", 1500), ("u2", 1600), ("u3", 1400), ("u4", 1450)] {
        assert_eq!(
            store.join("ar2", join(name, rating)).await,
            Ok(Membership::Active)
        );
    }
    let lease = leases.acquire("ar2").await.unwrap().unwrap();
    let state = store.load("ar2").await.unwrap();
    let rec = |s: &str| (u(s), state.players[&u(s)].clone());
    let (g1, g2) = (GameId("g1".into()), GameId("g2".into()));
    let wave = [
        PairWrite {
            game: g1.clone(),
            white: rec("u1"),
            black: rec("u2"),
        },
        PairWrite {
            game: g2.clone(),
            white: rec("u3"),
            black: rec("u4"),
        },
    ];
    // The organiser's writes tell the change counter around them: its state, read at
    // `state.ver`, is still current after the wave.
    let Fenced::Ok((step, games)) = store.pair_counted("ar2", &lease, 0, &wave).await.unwrap()
    else {
        panic!("fenced");
    };
    assert_eq!(games, [g1.clone(), g2.clone()]);
    assert_eq!((step.before, step.after), (state.ver, state.ver + 1));
    let known = step.after;
    // Another node's change moves the counter past what the organiser knows.
    assert_eq!(
        store.join("ar2", join("u5", 1500)).await,
        Ok(Membership::Active)
    );
    let won = |user: &str, game: &str, opp: &str, result: ArenaResult| {
        let mut rec = state.players[&u(user)].clone();
        rec.sheet.add(GameFor {
            game_id: game.into(),
            opponent: opp.into(),
            opponent_rating: 1500,
            result,
            berserk: false,
            own_moves: 20,
            plies: 40,
        });
        (u(user), Some(rec))
    };
    let w1 = ScoreWrite {
        game: g1.clone(),
        sides: [
            won("u1", "g1", "u2", ArenaResult::Win),
            won("u2", "g1", "u1", ArenaResult::Loss),
        ],
        late: None,
    };
    let w2 = ScoreWrite {
        game: g2.clone(),
        sides: [won("u3", "g2", "u4", ArenaResult::Loss), (u("u4"), None)],
        late: Some(u("u4")),
    };
    // g1 is reported alone first, then both together: g1 is left alone the second time.
    let Fenced::Ok((step, scored)) = store
        .score_counted("ar2", &lease, std::slice::from_ref(&w1))
        .await
        .unwrap()
    else {
        panic!("fenced");
    };
    assert_eq!(scored, [true]);
    assert_eq!(
        (step.before, step.after),
        (known + 1, known + 2),
        "the join is seen: the organiser must read the state again"
    );
    let stale = Lease {
        fence: lease.fence - 1,
        token: format!("{}:old", lease.fence - 1),
    };
    let both = [w1, w2];
    assert_eq!(
        store.score_many("ar2", &stale, &both).await.unwrap(),
        Fenced::Lost
    );
    let ver = store.ver("ar2").await.unwrap();
    assert_eq!(
        store.score_many("ar2", &lease, &both).await.unwrap(),
        Fenced::Ok(vec![false, true])
    );
    assert_eq!(store.ver("ar2").await.unwrap(), ver + 1, "bumped once");
    let Fenced::Ok((step, scored)) = store.score_counted("ar2", &lease, &both).await.unwrap()
    else {
        panic!("fenced");
    };
    assert_eq!(scored, [false, false]);
    assert_eq!(
        (step.before, step.after),
        (ver + 1, ver + 1),
        "nothing changed"
    );
    let after = store.load("ar2").await.unwrap();
    assert!(after.games.is_empty() && after.busy.is_empty());
    assert_eq!(after.players[&u("u1")].sheet.entries.len(), 1, "g1 once");
    assert_eq!(after.players[&u("u3")].sheet.entries.len(), 1);
    assert!(after.players[&u("u4")].sheet.entries.is_empty());
    assert_eq!(after.members[&u("u4")], Membership::Paused, "late: paused");
    let standings = store.standings("ar2", None).await.unwrap();
    assert_eq!(standings.top[0].user, "u1");
    assert_eq!(
        store.score_many("ar2", &lease, &[]).await.unwrap(),
        Fenced::Ok(vec![])
    );
    assert_eq!(
        store.drop_arena("ar2", &lease).await.unwrap(),
        Fenced::Ok(())
    );
    leases.release("ar2", &lease).await.unwrap();
    let _: i64 = r
        .query(redis::cmd("DEL").arg(keys(&r).await))
        .await
        .unwrap();
}
