//! Wrong (an edit to the given simulator): a ready step joins the queue of its
//! connection's first core, not of the core that ran its latest step. A stolen task then
//! goes home after every step, and its home core takes it back when it is idle: more
//! migrations than the model (and tokio, whose woken task joins the queue of the worker
//! that woke it) would make. The small run worked by hand expects one migration and its
//! trace shows where each step ran.
//! expect-fail: a_small_run_worked_by_hand, every_steal_of_a_run_follows_the_rule, skewed_run_work_stealing_exactly, skewed_runs_on_64_cores_exactly, skewed_runs_on_8_cores_exactly
//! replaces: queue_for
fn queue_for<'q>(conn: &Conn, queues: &'q mut [RunQueue]) -> &'q mut RunQueue {
    let cores = queues.len();
    &mut queues[conn.id % cores]
}
