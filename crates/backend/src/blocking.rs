//! The store's blocking [`RemoteState`](statectl_state::state::store::RemoteState) for the
//! backends whose operations are async (s3, gcs, azure): each call runs its backend's operation to
//! completion on the state's runtime. The three differ in their types and in the field that names
//! the state object, not in this code.

/// `blocking_remote_state!(State, object: field, runtime: path { more })` implements
/// `RemoteState` for `State`, whose `backend` has `location`, `settings.lock_path()`,
/// `settings.<field>` (the state object's name) and the async `get()`, `lock(&LockInfo)`,
/// `put(&[u8], lock_id)` and `unlock(lock_id)`; `self.<path>` is the runtime they run on. `State`
/// implements `StateVersions` too. `more` holds the trait's other methods where a backend
/// overrides them.
macro_rules! blocking_remote_state {
    ($state:ident, object: $object:ident, runtime: $($runtime:ident).+ { $($more:tt)* }) => {
        impl statectl_state::state::store::RemoteState for $state {
            fn location(&self) -> String {
                self.backend.location.clone()
            }

            /// The state object's last segment: `terraform.tfstate` for
            /// `env:/dev/app/terraform.tfstate`.
            fn backup_name(&self) -> String {
                let name = &self.backend.settings.$object;
                name.rsplit('/').next().unwrap_or(name).to_owned()
            }

            fn lock_path(&self) -> String {
                self.backend.settings.lock_path()
            }

            fn get(
                &self,
            ) -> Result<Option<Vec<u8>>, statectl_state::state::store::StoreError> {
                self.$($runtime).+.block_on(self.backend.get())
            }

            fn lock(
                &self,
                info: &statectl_state::state::store::lock_info::LockInfo,
            ) -> Result<(), statectl_state::state::store::LockRefused> {
                self.$($runtime).+.block_on(self.backend.lock(info))
            }

            fn put(
                &self,
                bytes: &[u8],
                lock: &statectl_state::state::store::lock_info::LockInfo,
            ) -> Result<(), statectl_state::state::store::StoreError> {
                self.$($runtime).+.block_on(self.backend.put(bytes, &lock.id))
            }

            fn unlock(
                &self,
                lock: &statectl_state::state::store::lock_info::LockInfo,
            ) -> Result<(), statectl_state::state::store::StoreError> {
                self.$($runtime).+.block_on(self.backend.unlock(&lock.id))
            }

            fn versions(
                &self,
            ) -> Option<&dyn statectl_state::state::store::versions::StateVersions> {
                Some(self)
            }

            $($more)*
        }
    };
}

pub(crate) use blocking_remote_state;
