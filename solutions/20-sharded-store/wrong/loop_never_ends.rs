//! Wrong: a shard's loop never ends: it goes round again when `recv` says `None`. While
//! the apps run, nothing shows; once every handle is gone, `recv` answers `None` at once,
//! every time, and the loop spins on a closed queue, so `run` never returns. Every test
//! that runs the store fails once, after its last app, the store's threads have burned
//! a tenth of a second of CPU.
//! expect-fail: a_call_for_a_key_this_shard_owns_is_served_on_the_spot, a_full_queue_refuses_calls_at_once, a_shard_serves_its_queue_first_come_first_served, a_shard_that_panics_fails_its_callers_and_run_says_so, an_idle_shard_sleeps_until_a_request_comes, each_key_sees_one_order_under_concurrent_clients, every_key_is_served_by_its_owner_and_seen_by_every_shard, len_asks_every_shard_before_it_awaits_an_answer, len_counts_every_shard_while_writes_go_on, len_counts_its_own_shard_without_a_message, len_fails_at_once_when_a_queue_is_full, run_drains_every_queue_and_joins_every_thread, run_reports_the_lowest_numbered_shard_that_panicked
//! replaces: serve

/// A shard's loop: serves its queue, for ever.
async fn serve(mut queue: Inbox, partition: &RefCell<impl Partition>) {
    loop {
        if let Some(request) = queue.recv().await {
            request.serve(partition);
        }
    }
}
