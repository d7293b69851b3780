//! The bridge from the store's blocking calls to the async clients (the AWS SDK, reqwest): one small
//! runtime per backend, entered from a plain thread even when the caller already runs inside tokio.

use std::future::Future;

/// A backend's runtime.
#[derive(Debug)]
pub struct Runtime {
    runtime: tokio::runtime::Runtime,
}

impl Runtime {
    pub fn new() -> std::io::Result<Runtime> {
        Ok(Runtime {
            runtime: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()?,
        })
    }

    /// Runs `future` to completion. Inside another runtime (a refresh's), `block_on` would panic, so
    /// the wait happens on a scoped thread of its own.
    pub fn block_on<F>(&self, future: F) -> F::Output
    where
        F: Future + Send,
        F::Output: Send,
    {
        if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::scope(|scope| {
                scope
                    .spawn(|| self.runtime.block_on(future))
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        } else {
            self.runtime.block_on(future)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_on_a_future_from_inside_another_runtime() {
        let backend = Runtime::new().unwrap();
        let outer = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let answer = outer.block_on(async { backend.block_on(async { 6 * 7 }) });
        assert_eq!(answer, 42);
    }
}
