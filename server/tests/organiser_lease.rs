//! The organiser lease (`cluster::organiser`) against the real Redis on 127.0.0.1:6379:
//! one holder at a time, renewal, takeover with a higher fence after the holder stops
//! renewing, the old holder told it lost the lease, release.

mod common;

use std::time::Duration;

use common::redis_env::shared_redis;
use damka::cluster::organiser::OrganiserLeases;

#[tokio::test]
async fn one_holder_at_a_time_and_a_fenced_takeover_when_it_stops_renewing() {
    let r = shared_redis("organiser-lease").await;
    let a = OrganiserLeases::new(r.clone(), "tournament", "node-a", 300);
    let b = OrganiserLeases::new(r.clone(), "tournament", "node-b", 300);
    let held = a.acquire("t1").await.unwrap().expect("free lease taken");
    assert!(held.token.ends_with(":node-a"));
    // Another node cannot take it while it is held, and other ids are independent.
    assert_eq!(b.acquire("t1").await.unwrap(), None);
    let other = b.acquire("t2").await.unwrap().expect("another id");
    // Renewing keeps it past its first lifetime.
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(120)).await;
        assert!(a.renew("t1", &held).await.unwrap());
    }
    assert_eq!(b.acquire("t1").await.unwrap(), None);
    // The holder stops renewing (it died): the lease lapses and B takes it with a
    // higher fence.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let taken = b
        .acquire("t1")
        .await
        .unwrap()
        .expect("expired lease taken over");
    assert!(taken.fence > held.fence, "{taken:?} after {held:?}");
    assert!(taken.token.ends_with(":node-b"));
    // The old holder learns it lost the lease, and its release changes nothing.
    assert!(!a.renew("t1", &held).await.unwrap());
    a.release("t1", &held).await.unwrap();
    assert!(b.renew("t1", &taken).await.unwrap());
    assert_eq!(a.acquire("t1").await.unwrap(), None);
    // A release by the holder frees it at once.
    b.release("t1", &taken).await.unwrap();
    let again = a
        .acquire("t1")
        .await
        .unwrap()
        .expect("released lease taken");
    assert!(again.fence > taken.fence);
    b.release("t2", &other).await.unwrap();
}
