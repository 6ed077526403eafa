//! Lab 13: a scope of your own.
//!
//! A small local scope, built on `FuturesUnordered`, in which a running job may spawn
//! more jobs: the case moro-local 0.4 panics on. `spawn` only pushes the job into the
//! scope's inbox; the scope's own poll moves jobs from the inbox into the running set
//! and polls them. The scope is given, except for that poll: write `run_jobs`.
//! Task and hints: README.md next to this file.

use std::cell::RefCell;
use std::future::poll_fn;
use std::pin::pin;
use std::task::{Context, Poll};

use futures::future::LocalBoxFuture;
use futures::stream::{FuturesUnordered, StreamExt};

// ANCHOR: scope (the book quotes the code from here to the ANCHOR_END line)
/// A job in the inbox, not started yet: given the scope, it makes the job's future.
type Job<'env> = Box<dyn for<'s> FnOnce(&'s Scope<'env>) -> LocalBoxFuture<'s, ()> + 'env>;

/// The jobs that have started and not finished yet.
type Running<'s> = FuturesUnordered<LocalBoxFuture<'s, ()>>;

/// The scope: the body and every job get a `&Scope` to spawn more jobs.
pub struct Scope<'env> {
    inbox: RefCell<Vec<Job<'env>>>,
}

impl<'env> Scope<'env> {
    /// Adds a job to the scope. It starts at the scope's next look at its inbox.
    pub fn spawn(&self, job: impl AsyncFnOnce(&Scope<'env>) + 'env) {
        let job: Job<'env> = Box::new(move |scope| Box::pin(job(scope)));
        self.inbox.borrow_mut().push(job);
    }
}
// ANCHOR_END: scope

// ANCHOR: run_jobs (the book quotes the code from here to the ANCHOR_END line)
impl<'env> Scope<'env> {
    /// Polls the jobs: `Ready` once every job has finished, including the jobs that
    /// were spawned while this ran; `Pending` while some job still waits.
    fn run_jobs<'s>(&'s self, running: &mut Running<'s>, cx: &mut Context<'_>) -> Poll<()> {
        // Your code: the jobs waiting in `self.inbox` must run, and the answer must hold
        // for every job, including one that a job spawns while you poll it. The task
        // and the tools are in README.md; `cargo labs hint 13` when you are stuck.
        todo!("run_jobs")
    }
}
// ANCHOR_END: run_jobs

// ANCHOR: scope_fn (the book quotes the code from here to the ANCHOR_END line)
/// Runs `body` with a scope, and returns the body's value once the body and every job
/// spawned in the scope have finished. Jobs may borrow anything that outlives the call.
pub async fn scope<'env, R>(body: impl AsyncFnOnce(&Scope<'env>) -> R) -> R {
    let scope = Scope {
        inbox: RefCell::new(Vec::new()),
    };
    let mut body = pin!(body(&scope));
    let mut value = None;
    let mut running = Running::new();
    poll_fn(|cx| {
        if value.is_none()
            && let Poll::Ready(v) = body.as_mut().poll(cx)
        {
            value = Some(v);
        }
        if scope.run_jobs(&mut running, cx).is_pending() {
            return Poll::Pending;
        }
        // Every job has ended: the scope ends with the body, if the body has ended.
        match value.take() {
            Some(v) => Poll::Ready(v),
            None => Poll::Pending,
        }
    })
    .await
}
// ANCHOR_END: scope_fn
