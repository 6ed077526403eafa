//! Solution to lab 13: a scope of your own.

use std::cell::RefCell;
use std::future::poll_fn;
use std::pin::pin;
use std::task::{Context, Poll};

use futures::future::LocalBoxFuture;
use futures::stream::{FuturesUnordered, StreamExt};

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

impl<'env> Scope<'env> {
    // ANCHOR: solution
    /// Polls the jobs: `Ready` once every job has finished, including the jobs that
    /// were spawned while this ran; `Pending` while some job still waits.
    fn run_jobs<'s>(&'s self, running: &mut Running<'s>, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            // Start the jobs spawned since the last look. The inbox is borrowed for
            // this one statement: no job runs while the borrow is held.
            let new_jobs = self.inbox.take();
            for job in new_jobs {
                running.push(job(self));
            }
            let polled = running.poll_next_unpin(cx);
            if self.inbox.borrow().is_empty() {
                match polled {
                    Poll::Ready(Some(())) => {} // one job ended: poll the others again
                    Poll::Ready(None) => return Poll::Ready(()), // none left anywhere
                    Poll::Pending => return Poll::Pending, // every job waits for a wake-up
                }
            }
            // Otherwise a job spawned more jobs while it was polled: go round and
            // start them now. Nothing would wake the scope for them later.
        }
    }
    // ANCHOR_END: solution
}

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
