//! `Debug` for the types that hold a secret or a client: the one way they show themselves, naming
//! only the fields it is safe to print and marking the rest as left out.

/// `shown_in_debug!(Type: field, other.method(), ...)` implements `Debug` for `Type` (one
/// lifetime allowed: `Type<'_>`) as a struct of the fields named, each as it is or through one
/// method without arguments (`endpoint.as_str()`, `keys.len()`), then `..`.
macro_rules! shown_in_debug {
    ($type:ident $(<$lifetime:lifetime>)? : $($field:ident $(. $method:ident ())?),* $(,)?) => {
        impl std::fmt::Debug for $type $(<$lifetime>)? {
            fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter
                    .debug_struct(stringify!($type))
                    $(.field(stringify!($field), &self.$field $(.$method())?))*
                    .finish_non_exhaustive()
            }
        }
    };
}

pub(crate) use shown_in_debug;
