//! Unguessable values from the operating system's CSPRNG: match secrets, signing keys, refresh
//! tokens and invite codes all come from here.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// `N` random bytes. Panics only if the OS has no random source, where nothing can be secret.
pub fn bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the OS random source is available");
    bytes
}

/// `N` random bytes as base64url without padding: safe in URLs, headers and JSON.
pub fn token<const N: usize>() -> String {
    URL_SAFE_NO_PAD.encode(bytes::<N>())
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_url_safe_and_differ() {
        let (one, other) = (super::token::<9>(), super::token::<9>());
        assert_eq!(one.len(), 12);
        assert_ne!(one, other);
        assert!(
            one.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
    }
}
