//! The solution's extra, for chapter 20's server: `run_with` and its `Client`, a handle
//! for threads that are not shards. Not part of the lab.

use std::collections::HashMap;
use std::time::Duration;

use sharded_store::{Config, Partition, StoreError, run_with, shard_for};

/// A map that remembers which shard it is, to check that calls reach their owner.
struct Owned {
    shard: usize,
    shards: usize,
    map: HashMap<String, String>,
}

impl Partition for Owned {
    fn get(&self, key: &str) -> Option<String> {
        assert_eq!(
            shard_for(key, self.shards),
            self.shard,
            "{key:?} reached shard {}",
            self.shard
        );
        self.map.get(key).cloned()
    }
    fn put(&mut self, key: String, value: String) -> Option<String> {
        assert_eq!(
            shard_for(&key, self.shards),
            self.shard,
            "{key:?} reached shard {}",
            self.shard
        );
        self.map.insert(key, value)
    }
    fn len(&self) -> usize {
        self.map.len()
    }
}

#[test]
fn a_client_outside_the_shards_reaches_every_owner_and_keeps_the_store_up() {
    lab_support::within(Duration::from_secs(10), "run_with did not return", || {
        let config = Config {
            shards: 3,
            queue: 64,
        };
        let make = |shard| Owned {
            shard,
            shards: 3,
            map: HashMap::new(),
        };
        // The apps end at once: the client alone keeps the shards serving.
        let (apps, answers) = run_with(
            &config,
            make,
            |store| async move { store.shard() },
            |client| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                runtime.block_on(async {
                    let mut answers = Vec::new();
                    for i in 0..100 {
                        answers.push(client.put(&format!("k{i}"), &format!("v{i}")).await);
                    }
                    for i in 0..100 {
                        answers.push(client.get(&format!("k{i}")).await);
                    }
                    answers
                })
            },
        )
        .expect("run_with failed");
        assert_eq!(apps, [0, 1, 2]);
        let (puts, gets) = answers.split_at(100);
        assert!(puts.iter().all(|a| *a == Ok(None)), "{puts:?}");
        for (i, got) in gets.iter().enumerate() {
            assert_eq!(got, &Ok(Some(format!("v{i}"))));
        }
    });
}

#[test]
fn a_client_sees_a_panicking_shard_as_down() {
    lab_support::within(Duration::from_secs(10), "run_with did not return", || {
        struct Fragile;
        impl Partition for Fragile {
            fn get(&self, _: &str) -> Option<String> {
                None
            }
            fn put(&mut self, _: String, _: String) -> Option<String> {
                panic!("this partition panics on purpose")
            }
            fn len(&self) -> usize {
                0
            }
        }
        let config = Config {
            shards: 1,
            queue: 4,
        };
        let result = run_with(
            &config,
            |_| Fragile,
            |_| async {},
            |client| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                runtime.block_on(async { (client.put("k", "v").await, client.get("k").await) })
            },
        );
        assert_eq!(result.err(), Some(StoreError::Panicked(0)));
    });
}
