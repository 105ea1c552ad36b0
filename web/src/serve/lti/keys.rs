//! The tool's own RSA key: made on first use, kept in the store (PKCS#1 DER), published at
//! `/lti/jwks` by its key id, and used to sign what bugrank sends a platform (the client
//! assertion of the services' access tokens, deep linking's answer).

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
use rsa::traits::PublicKeyParts;
use serde::Serialize;

use crate::serve::auth::random_token;
use crate::serve::db::{Db, DbResult};

/// The modulus of the keys bugrank makes: 2048 bits, what LTI's security framework asks
/// of RS256 keys at least and what Canvas and Moodle make their own.
pub const KEY_BITS: usize = 2048;

/// A private key of the tool and its key id.
#[derive(Clone)]
pub struct ToolKey {
    pub kid: String,
    /// PKCS#1 DER.
    der: Vec<u8>,
}

impl std::fmt::Debug for ToolKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ToolKey({})", self.kid)
    }
}

impl ToolKey {
    /// A new key with a random key id.
    pub fn generate() -> ToolKey {
        let mut rng = getrandom::SysRng;
        let key = rsa::PrivateKey::new(&mut rng, KEY_BITS).expect("an RSA key of 2048 bits is made");
        let der = key.to_pkcs1_der().expect("a new key encodes").as_bytes().to_vec();
        ToolKey { kid: random_token()[..16].to_owned(), der }
    }

    /// The key the tool signs with: the newest in `db`, made and kept there first when
    /// there is none.
    pub fn current(db: &Db) -> DbResult<ToolKey> {
        if let Some((kid, der)) = db.lti_keys()?.into_iter().next() {
            return Ok(ToolKey { kid, der });
        }
        let made = ToolKey::generate();
        db.add_lti_key(&made.kid, &made.der)?;
        // Two processes starting at once may each have made one: sign with the newest kept.
        let (kid, der) = db.lti_keys()?.into_iter().next().expect("a key was just kept");
        Ok(ToolKey { kid, der })
    }

    /// Every key of `db`, for the JWKS: platforms may check a signature of an older key.
    pub fn all(db: &Db) -> DbResult<Vec<ToolKey>> {
        Ok(db.lti_keys()?.into_iter().map(|(kid, der)| ToolKey { kid, der }).collect())
    }

    /// The public half as a JWK (RFC 7517): `kty`, `alg`, `use`, `kid`, `n`, `e`.
    pub fn jwk(&self) -> Jwk {
        let key = rsa::PrivateKey::from_pkcs1_der(&self.der).expect("a kept key decodes");
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        Jwk { kty: "RSA", alg: "RS256", key_use: "sig", kid: self.kid.clone(), n: b64(&key.n_bytes()), e: b64(&key.e_bytes()) }
    }

    /// `claims` signed with this key (RS256, its `kid` in the header).
    pub fn sign(&self, claims: &impl Serialize) -> String {
        let header = Header { kid: Some(self.kid.clone()), ..Header::new(Algorithm::RS256) };
        jsonwebtoken::encode(&header, claims, &EncodingKey::from_rsa_der(&self.der)).expect("claims serialize and the key signs")
    }
}

/// A public key as the JWKS publishes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Jwk {
    pub kty: &'static str,
    pub alg: &'static str,
    #[serde(rename = "use")]
    pub key_use: &'static str,
    pub kid: String,
    pub n: String,
    pub e: String,
}

/// The JWKS document of `keys`: `{"keys": [...]}`.
pub fn jwks(keys: &[ToolKey]) -> serde_json::Value {
    serde_json::json!({ "keys": keys.iter().map(ToolKey::jwk).collect::<Vec<_>>() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_key_signs_its_published_jwk_verifies() {
        let key = ToolKey::generate();
        let token = key.sign(&serde_json::json!({ "iss": "bugrank", "exp": 4_000_000_000u64 }));
        let set: jsonwebtoken::jwk::JwkSet = serde_json::from_value(jwks(std::slice::from_ref(&key))).unwrap();
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.kid.as_deref(), Some(key.kid.as_str()));
        let jwk = set.find(&key.kid).expect("the JWKS holds the key by its id");
        let mut validation = jsonwebtoken::Validation::new(Algorithm::RS256);
        validation.set_issuer(&["bugrank"]);
        let decoded = jsonwebtoken::decode::<serde_json::Value>(&token, &jsonwebtoken::DecodingKey::from_jwk(jwk).unwrap(), &validation).unwrap();
        assert_eq!(decoded.claims["iss"], "bugrank");
        // Another key's JWK does not.
        let other = ToolKey::generate();
        let other_jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(serde_json::to_value(other.jwk()).unwrap()).unwrap();
        assert!(jsonwebtoken::decode::<serde_json::Value>(&token, &jsonwebtoken::DecodingKey::from_jwk(&other_jwk).unwrap(), &validation).is_err());
    }
}
