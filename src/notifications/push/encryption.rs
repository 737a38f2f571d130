//! Message encryption for Web Push (RFC 8291, with the `aes128gcm` content coding of RFC 8188):
//! a fresh P-256 key pair per message, ECDH with the browser's key, HKDF with its auth secret,
//! one AES-128-GCM record.

use aes_gcm::aead::Aead;
use aes_gcm::{Aes128Gcm, KeyInit, Nonce};
use hkdf::Hkdf;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::{PublicKey, SecretKey};
use sha2::Sha256;

/// The record size written in the header: one record holds the whole message.
const RECORD_SIZE: u32 = 4096;

/// The longest plaintext: a push service takes 4096 octets of body (RFC 8030 §7.2), less the
/// header (86), the tag (16) and the padding delimiter (1).
pub const MOST_PLAINTEXT: usize = 4096 - 86 - 16 - 1;

/// Why a message could not be encrypted to a subscription.
#[derive(Debug, thiserror::Error)]
pub enum EncryptionError {
    /// The browser's key is not a P-256 point.
    #[error("the subscription's p256dh is not a P-256 public key")]
    BadKey,
    /// The auth secret is not 16 octets.
    #[error("the subscription's auth secret is not 16 octets")]
    BadAuth,
    /// The message is longer than a push service takes.
    #[error("the message is longer than {MOST_PLAINTEXT} octets")]
    TooLong,
}

/// Checks a subscription's keys: `p256dh` an uncompressed P-256 point, `auth` 16 octets.
pub fn check_keys(p256dh: &[u8], auth: &[u8]) -> Result<(), EncryptionError> {
    if p256dh.len() != 65 || PublicKey::from_sec1_bytes(p256dh).is_err() {
        return Err(EncryptionError::BadKey);
    }
    if auth.len() != 16 {
        return Err(EncryptionError::BadAuth);
    }
    Ok(())
}

/// The body of a push message carrying `plaintext` to the browser whose key is `p256dh`
/// (uncompressed point) and auth secret `auth`.
pub fn encrypt(plaintext: &[u8], p256dh: &[u8], auth: &[u8]) -> Result<Vec<u8>, EncryptionError> {
    check_keys(p256dh, auth)?;
    if plaintext.len() > MOST_PLAINTEXT {
        return Err(EncryptionError::TooLong);
    }
    let browser = PublicKey::from_sec1_bytes(p256dh).map_err(|_| EncryptionError::BadKey)?;
    let ours = ephemeral_key();
    let our_public = ours.public_key().to_encoded_point(false);
    let shared = p256::ecdh::diffie_hellman(ours.to_nonzero_scalar(), browser.as_affine());
    // RFC 8291 §3.3: the input keying material, from the shared secret and the auth secret.
    let mut info = b"WebPush: info\0".to_vec();
    info.extend_from_slice(p256dh);
    info.extend_from_slice(our_public.as_bytes());
    let mut ikm = [0u8; 32];
    Hkdf::<Sha256>::new(Some(auth), shared.raw_secret_bytes())
        .expand(&info, &mut ikm)
        .expect("32 octets is a valid HKDF length");
    // RFC 8188 §2.2-2.3: the content encryption key and nonce, from a random salt.
    let salt: [u8; 16] = crate::random::bytes();
    let keys = Hkdf::<Sha256>::new(Some(&salt), &ikm);
    let mut key = [0u8; 16];
    let mut nonce = [0u8; 12];
    keys.expand(b"Content-Encoding: aes128gcm\0", &mut key)
        .expect("16 octets is a valid HKDF length");
    keys.expand(b"Content-Encoding: nonce\0", &mut nonce)
        .expect("12 octets is a valid HKDF length");
    // One record, the last: the plaintext, then the delimiter 0x02 (no padding).
    let mut record = plaintext.to_vec();
    record.push(2);
    let sealed = Aes128Gcm::new_from_slice(&key)
        .expect("a 16-octet key")
        .encrypt(Nonce::from_slice(&nonce), record.as_slice())
        .expect("AES-GCM encrypts a record this short");
    let mut body = Vec::with_capacity(86 + sealed.len());
    body.extend_from_slice(&salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(our_public.as_bytes().len() as u8);
    body.extend_from_slice(our_public.as_bytes());
    body.extend_from_slice(&sealed);
    Ok(body)
}

/// A fresh P-256 secret key from the system's randomness.
fn ephemeral_key() -> SecretKey {
    loop {
        // A random 32 octets are a valid scalar but for a chance of about 2⁻³².
        if let Ok(key) = SecretKey::from_slice(&crate::random::bytes::<32>()) {
            return key;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decrypts as a browser would (RFC 8291 §3.4, from the other side): a second
    /// implementation of the derivation, written from the RFC's steps.
    fn decrypt(body: &[u8], browser: &SecretKey, auth: &[u8]) -> Vec<u8> {
        let salt = &body[..16];
        assert_eq!(u32::from_be_bytes(body[16..20].try_into().unwrap()), 4096);
        let id_length = body[20] as usize;
        let server_public = PublicKey::from_sec1_bytes(&body[21..21 + id_length]).unwrap();
        let shared =
            p256::ecdh::diffie_hellman(browser.to_nonzero_scalar(), server_public.as_affine());
        let browser_public = browser.public_key().to_encoded_point(false);
        let mut info = b"WebPush: info\0".to_vec();
        info.extend_from_slice(browser_public.as_bytes());
        info.extend_from_slice(&body[21..21 + id_length]);
        let mut ikm = [0u8; 32];
        Hkdf::<Sha256>::new(Some(auth), shared.raw_secret_bytes())
            .expand(&info, &mut ikm)
            .unwrap();
        let keys = Hkdf::<Sha256>::new(Some(salt), &ikm);
        let (mut key, mut nonce) = ([0u8; 16], [0u8; 12]);
        keys.expand(b"Content-Encoding: aes128gcm\0", &mut key)
            .unwrap();
        keys.expand(b"Content-Encoding: nonce\0", &mut nonce)
            .unwrap();
        let mut record = Aes128Gcm::new_from_slice(&key)
            .unwrap()
            .decrypt(Nonce::from_slice(&nonce), &body[21 + id_length..])
            .unwrap();
        assert_eq!(record.pop(), Some(2), "the last record's delimiter");
        record
    }

    #[test]
    fn a_message_decrypts_with_the_browsers_keys_only() {
        let browser = ephemeral_key();
        let public = browser.public_key().to_encoded_point(false);
        let auth: [u8; 16] = crate::random::bytes();
        let body = encrypt(b"{\"title\":\"Your turn\"}", public.as_bytes(), &auth).unwrap();
        assert_eq!(
            decrypt(&body, &browser, &auth),
            b"{\"title\":\"Your turn\"}"
        );
        let again = encrypt(b"{\"title\":\"Your turn\"}", public.as_bytes(), &auth).unwrap();
        assert_ne!(body, again, "a fresh key and salt every time");
    }

    #[test]
    fn bad_keys_and_long_messages_are_refused() {
        let browser = ephemeral_key();
        let public = browser.public_key().to_encoded_point(false);
        assert!(matches!(
            encrypt(b"x", &[4; 65], &[0; 16]),
            Err(EncryptionError::BadKey)
        ));
        assert!(matches!(
            encrypt(b"x", public.as_bytes(), &[0; 15]),
            Err(EncryptionError::BadAuth)
        ));
        let long = vec![b'x'; MOST_PLAINTEXT + 1];
        assert!(matches!(
            encrypt(&long, public.as_bytes(), &[0; 16]),
            Err(EncryptionError::TooLong)
        ));
        assert!(
            encrypt(&long[1..], public.as_bytes(), &[0; 16])
                .unwrap()
                .len()
                <= 4096
        );
    }
}
