//! Wrong (an edit to the given simulator): `RunQueue` no longer counts its looks, "counting
//! is bookkeeping". `looks()` is always 0, so no budget can ever be exceeded and the guard
//! against a spinning pick never fires: a pick may re-read every queue a thousand times
//! and no test would see it. A pick that takes a step must have looked at least once, so
//! `a_thief_does_not_spin` finds the count at 0 after a steal and says so.
//! expect-fail: a_thief_does_not_spin
//! replaces: run_queue
/// One core's queue of ready steps, oldest first. It works like a `VecDeque<Ready>`,
/// and counts each call made on it during one call of `pick` (every method but `looks`
/// is one look), so the tests can tell a thief that reads each queue once from one
/// that keeps re-reading them. The count starts from 0 at every call of `pick`: it
/// tells nothing about earlier calls, so a run and a test look alike to `pick`. A pick
/// that looks at one queue more than `SPINNING` times in a single call is stopped with
/// a panic: it is spinning, and would never return. A queue cannot be cloned (a copy
/// would be read without a look), and printing one (`{:?}`, `dbg!`) is a look too.
#[derive(Default)]
pub struct RunQueue {
    steps: VecDeque<Ready>,
    /// Looks since the simulator last called `pick` (or since the queue was built).
    looks: Cell<u64>,
}

/// More looks at one queue than any search needs in one call of `pick`.
const SPINNING: u64 = 100;

impl RunQueue {
    /// The oldest step, left in the queue.
    pub fn front(&self) -> Option<&Ready> {
        self.look();
        self.steps.front()
    }

    /// The newest step, left in the queue.
    pub fn back(&self) -> Option<&Ready> {
        self.look();
        self.steps.back()
    }

    /// Takes the oldest step out.
    pub fn pop_front(&mut self) -> Option<Ready> {
        self.look();
        self.steps.pop_front()
    }

    /// Takes the newest step out.
    pub fn pop_back(&mut self) -> Option<Ready> {
        self.look();
        self.steps.pop_back()
    }

    /// Puts a step at the back, as the newest.
    pub fn push_back(&mut self, step: Ready) {
        self.look();
        self.steps.push_back(step);
    }

    /// How many steps wait here.
    pub fn len(&self) -> usize {
        self.look();
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.look();
        self.steps.is_empty()
    }

    /// The steps, oldest first: one look, however many of them you read.
    pub fn iter(&self) -> impl Iterator<Item = &Ready> {
        self.look();
        self.steps.iter()
    }

    /// How many looks this queue has counted in the current call of `pick` (asking is
    /// not a look): 0 when a call begins.
    pub fn looks(&self) -> u64 {
        self.looks.get()
    }

    fn look(&self) {
        // Counting is bookkeeping, not behaviour: nothing counted, nothing to stop.
        assert!(
            self.looks.get() <= SPINNING,
            "pick looked at one queue {SPINNING} times in a single call: it is spinning. \
                 Nothing changes while pick runs (no other core runs during the call), so \
                 look at each queue once or twice, and return None when there is nothing \
                 to take: the simulator asks again after the next event"
        );
    }
}

impl fmt::Debug for RunQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.look();
        f.debug_list().entries(&self.steps).finish()
    }
}

impl FromIterator<Ready> for RunQueue {
    fn from_iter<I: IntoIterator<Item = Ready>>(steps: I) -> Self {
        RunQueue {
            steps: steps.into_iter().collect(),
            ..RunQueue::default()
        }
    }
}
