//! Wrong: a shard's loop polls its queue instead of awaiting it: `try_recv`, and when the
//! queue is empty, `yield_now` and try again. It answers everything, but an idle shard
//! never sleeps: its thread burns a core, and its task (the app's too) is polled again and
//! again for nothing. Every test that runs the store starts by waiting until every shard's
//! thread sleeps, counting each app's polls meanwhile: this store never gets there.
//! expect-fail: a_call_for_a_key_this_shard_owns_is_served_on_the_spot, a_full_queue_refuses_calls_at_once, a_shard_serves_its_queue_first_come_first_served, a_shard_that_panics_fails_its_callers_and_run_says_so, an_idle_shard_sleeps_until_a_request_comes, each_key_sees_one_order_under_concurrent_clients, every_key_is_served_by_its_owner_and_seen_by_every_shard, len_asks_every_shard_before_it_awaits_an_answer, len_counts_every_shard_while_writes_go_on, len_counts_its_own_shard_without_a_message, len_fails_at_once_when_a_queue_is_full, run_drains_every_queue_and_joins_every_thread, run_reports_the_lowest_numbered_shard_that_panicked
//! replaces: serve

/// A shard's loop: serves whatever is in the queue, and checks again right away.
async fn serve(mut queue: Inbox, partition: &RefCell<impl Partition>) {
    use tokio::sync::mpsc::error::TryRecvError;
    loop {
        match queue.try_recv() {
            Ok(request) => request.serve(partition),
            Err(TryRecvError::Empty) => tokio::task::yield_now().await,
            Err(TryRecvError::Disconnected) => break,
        }
    }
}
