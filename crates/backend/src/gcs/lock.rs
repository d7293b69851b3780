//! Terraform's gcs lock: the object `<prefix><name>.tflock` created only if absent
//! (`ifGenerationMatch=0`), its body the lock info JSON; a 412 means someone holds it, and the
//! holder's lock ID is the object's generation (what `terraform force-unlock` takes). Releasing
//! reads it back, checks that it is still this lock (its ID, and the generation created), and
//! deletes it with `ifGenerationMatch=<generation>`, so a lock taken since is never removed.

use std::sync::PoisonError;

use statectl_state::state::store::lock_info::{LockInfo, MAX_LOCK_INFO};
use statectl_state::state::store::{LockRefused, StoreError};

use super::client::error_message;
use super::{Backend, with_query};

/// A lock object as read back: its lock info and generation.
struct Held {
    info: Option<LockInfo>,
    generation: i64,
}

impl Backend {
    pub(super) async fn lock(&self, info: &LockInfo) -> Result<(), LockRefused> {
        let object = &self.settings.lock_object;
        let query = [
            ("uploadType", "multipart"),
            ("name", object.as_str()),
            ("ifGenerationMatch", "0"),
        ];
        // The lock object is written without the state's keys, as Terraform writes it.
        let answer = self
            .upload("taking the lock", &query, info.to_json().as_bytes(), None)
            .await
            .map_err(LockRefused::Failed)?;
        match answer.status {
            200 => {
                let generation = generation(&answer.body).ok_or_else(|| {
                    LockRefused::Failed(StoreError::new(format!(
                        "{}: the lock object was created, but the answer has no generation: {}",
                        self.location,
                        error_message(&answer.body)
                    )))
                })?;
                self.remember(&info.id, generation);
                Ok(())
            }
            412 => match self.held().await {
                // A retried create whose first attempt was taken but unanswered meets its own lock.
                Ok(Some(Held {
                    info: Some(holder),
                    generation,
                })) if holder.id == info.id => {
                    self.remember(&info.id, generation);
                    Ok(())
                }
                Ok(Some(Held {
                    info: Some(mut holder),
                    generation,
                })) => {
                    holder.id = generation.to_string();
                    Err(LockRefused::Held(Some(Box::new(holder))))
                }
                // Released meanwhile, or unreadable: waiting may still help.
                Ok(_) | Err(_) => Err(LockRefused::Held(None)),
            },
            _ => Err(LockRefused::Failed(
                self.refused(&answer, "take the lock", object, "storage.objects.create")
                    .await,
            )),
        }
    }

    pub(super) async fn unlock(&self, id: &str) -> Result<(), StoreError> {
        let object = &self.settings.lock_object;
        let created = self
            .generations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .copied();
        let Some(held) = self.held().await? else {
            // Nothing left to release: someone removed it (force-unlock).
            tracing::warn!(
                "{}: the lock object {object} was already gone",
                self.location
            );
            self.forget(id);
            return Ok(());
        };
        let ours = held.info.as_ref().is_some_and(|info| info.id == id)
            && created.is_none_or(|created| created == held.generation);
        if !ours {
            let holder = held.info.map_or_else(
                || "a lock whose info cannot be read".to_owned(),
                |mut info| {
                    info.id = held.generation.to_string();
                    info.to_string()
                },
            );
            return Err(StoreError::new(format!(
                "{}: the lock object is now held by {holder}, not by lock {}; it was left in place",
                self.location, id
            )));
        }
        let generation = held.generation.to_string();
        let url = with_query(
            &self.object_url(object),
            &[("ifGenerationMatch", generation.as_str())],
        );
        let answer = self
            .call("releasing the lock", true, |client| client.delete(&url))
            .await?;
        match answer.status {
            200 | 204 | 404 => {
                self.forget(id);
                Ok(())
            }
            _ => Err(self
                .refused(
                    &answer,
                    &format!("release the lock (Terraform's lock ID {generation})"),
                    object,
                    "storage.objects.delete",
                )
                .await),
        }
    }

    /// The lock object as it is now; `None` when there is none.
    async fn held(&self) -> Result<Option<Held>, StoreError> {
        let object = &self.settings.lock_object;
        let doing = "reading the lock";
        let url = self.object_url(object);
        let metadata = self.call(doing, true, |client| client.get(&url)).await?;
        match metadata.status {
            200 => {}
            404 => return Ok(None),
            _ => {
                return Err(self
                    .refused(&metadata, "read the lock", object, "storage.objects.get")
                    .await);
            }
        }
        let Some(generation) = generation(&metadata.body) else {
            return Err(StoreError::new(format!(
                "{}: the lock object's metadata has no generation",
                self.location
            )));
        };
        if size(&metadata.body).is_some_and(|size| size > MAX_LOCK_INFO as u64) {
            // Not a lock info statectl reads (they are a few hundred bytes): held, by someone
            // it cannot name, without downloading what may be hundreds of megabytes.
            return Ok(Some(Held {
                info: None,
                generation,
            }));
        }
        let generation_text = generation.to_string();
        let media_url = with_query(
            &url,
            &[("alt", "media"), ("generation", generation_text.as_str())],
        );
        let media = self
            .call(doing, true, |client| client.get(&media_url))
            .await?;
        match media.status {
            200 => Ok(Some(Held {
                info: LockInfo::parse(&media.body),
                generation,
            })),
            404 => Ok(None),
            _ => Err(self
                .refused(&media, "read the lock", object, "storage.objects.get")
                .await),
        }
    }

    fn remember(&self, id: &str, generation: i64) {
        self.generations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_owned(), generation);
    }

    fn forget(&self, id: &str) {
        self.generations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
    }
}

/// The `generation` of an object resource (a string of digits in the JSON API).
/// The object's size in bytes, from its metadata (the JSON API gives it as a string).
fn size(body: &[u8]) -> Option<u64> {
    whole_number(body, "size")
}

fn generation(body: &[u8]) -> Option<i64> {
    whole_number(body, "generation")
}

/// A whole-number `field` of an object resource, given as a string or a JSON number.
fn whole_number<T: std::str::FromStr>(body: &[u8], field: &str) -> Option<T> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    match &value[field] {
        serde_json::Value::String(text) => text.parse().ok(),
        serde_json::Value::Number(number) => number.to_string().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generation_is_read_as_the_json_api_spells_it() {
        assert_eq!(
            generation(br#"{"generation": "1795575805889254"}"#),
            Some(1_795_575_805_889_254)
        );
        assert_eq!(generation(br#"{"generation": 7}"#), Some(7));
        assert_eq!(generation(br#"{"name": "x"}"#), None);
    }
}
