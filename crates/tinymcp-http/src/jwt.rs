//! JWT access tokens (RFC 9068; compact JWS, RFC 7515): the signature checked with a key of the
//! issuer's set (RS256, ES256, EdDSA; never `none` or an HMAC, and each key only for its own
//! algorithm), then `iss`, `aud`, `exp` and `nbf`. Pure: keys and time come from the caller.
//! The signature arithmetic is RustCrypto's (`rsa`, `p256`, `ed25519-dalek`).

use super::auth::Grant;
use rsa::signature::Verifier;
use rsa::traits::PublicKeyParts;
use serde_json::{Map, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tinymcp::transport::kit::from_url_safe;

/// The longest token read, in bytes (a request head holds at most 16 KiB anyway).
pub(super) const MAX_TOKEN_LEN: usize = 12 * 1024;
/// The smallest RSA modulus accepted, in bits.
const MIN_RSA_BITS: usize = 2048;
/// The most keys read from one key set.
const MAX_KEYS: usize = 32;

/// The signature algorithms read. A token naming any other (`none`, `HS256`, ...) is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Alg {
    Rs256,
    Es256,
    EdDsa,
}

impl Alg {
    fn from_name(name: &str) -> Option<Alg> {
        match name {
            "RS256" => Some(Alg::Rs256),
            "ES256" => Some(Alg::Es256),
            // RFC 9864 names the Ed25519 instance of EdDSA `Ed25519`.
            "EdDSA" | "Ed25519" => Some(Alg::EdDsa),
            _ => None,
        }
    }
}

enum PublicKey {
    Rsa(Box<rsa::pkcs1v15::VerifyingKey<rsa::sha2::Sha256>>),
    P256(Box<p256::ecdsa::VerifyingKey>),
    Ed25519(Box<ed25519_dalek::VerifyingKey>),
}

struct Key {
    id: Option<String>,
    alg: Alg,
    key: PublicKey,
}

impl Key {
    fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        match &self.key {
            PublicKey::Rsa(key) => {
                rsa::pkcs1v15::Signature::try_from(signature).is_ok_and(|s| key.verify(message, &s).is_ok())
            }
            PublicKey::P256(key) => {
                p256::ecdsa::Signature::from_slice(signature).is_ok_and(|s| key.verify(message, &s).is_ok())
            }
            PublicKey::Ed25519(key) => {
                ed25519_dalek::Signature::from_slice(signature).is_ok_and(|s| key.verify_strict(message, &s).is_ok())
            }
        }
    }
}

/// An issuer's signing keys, read from its JSON Web Key Set (RFC 7517). Keys of other types or
/// uses (encryption, RSA under 2048 bits, other curves) are left out.
#[derive(Default)]
pub struct KeySet {
    keys: Vec<Key>,
}

impl std::fmt::Debug for KeySet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.keys.iter().map(|k| (k.id.as_deref(), k.alg))).finish()
    }
}

impl KeySet {
    /// Reads a JWKS document (`{"keys": [...]}`); an error only when it is not one.
    pub fn from_json(text: &str) -> Result<KeySet, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("the key set is not JSON: {e}"))?;
        let Some(list) = value.get("keys").and_then(Value::as_array) else {
            return Err("the key set has no \"keys\" array".into());
        };
        let mut keys = Vec::new();
        for jwk in list.iter().filter_map(Value::as_object) {
            if keys.len() == MAX_KEYS {
                log::warn!("the key set has more than {MAX_KEYS} keys: the rest are ignored");
                break;
            }
            match read_key(jwk) {
                Ok(key) => keys.push(key),
                Err(why) => log::debug!("key {:?} left out: {why}", jwk.get("kid")),
            }
        }
        Ok(KeySet { keys })
    }

    /// How many usable keys it holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it holds no usable key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

fn member<'a>(jwk: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    jwk.get(name).and_then(Value::as_str)
}

fn bytes(jwk: &Map<String, Value>, name: &str) -> Result<Vec<u8>, String> {
    member(jwk, name).and_then(from_url_safe).ok_or_else(|| format!("no base64url {name:?}"))
}

fn read_key(jwk: &Map<String, Value>) -> Result<Key, String> {
    if member(jwk, "use").is_some_and(|u| u != "sig") {
        return Err("not a signing key".into());
    }
    let (alg, key) = match (member(jwk, "kty"), member(jwk, "crv")) {
        (Some("RSA"), _) => {
            let (n, e) = (bytes(jwk, "n")?, bytes(jwk, "e")?);
            let n = rsa::BoxedUint::from_be_slice_vartime(&n);
            let e = rsa::BoxedUint::from_be_slice_vartime(&e);
            let key = rsa::PublicKey::new(n, e).map_err(|e| format!("not an RSA key: {e}"))?;
            if key.size() * 8 < MIN_RSA_BITS {
                return Err(format!("an RSA key under {MIN_RSA_BITS} bits"));
            }
            (Alg::Rs256, PublicKey::Rsa(Box::new(rsa::pkcs1v15::VerifyingKey::new(key))))
        }
        (Some("EC"), Some("P-256")) => {
            let (x, y) = (bytes(jwk, "x")?, bytes(jwk, "y")?);
            if x.len() != 32 || y.len() != 32 {
                return Err("P-256 coordinates are 32 bytes".into());
            }
            let point = [&[4u8][..], &x, &y].concat();
            let key = p256::ecdsa::VerifyingKey::from_sec1_bytes(&point).map_err(|_| "not a P-256 point")?;
            (Alg::Es256, PublicKey::P256(Box::new(key)))
        }
        (Some("OKP"), Some("Ed25519")) => {
            let x: [u8; 32] = bytes(jwk, "x")?.try_into().map_err(|_| "an Ed25519 key is 32 bytes")?;
            let key = ed25519_dalek::VerifyingKey::from_bytes(&x).map_err(|_| "not an Ed25519 key")?;
            (Alg::EdDsa, PublicKey::Ed25519(Box::new(key)))
        }
        (kty, crv) => return Err(format!("unsupported key type {kty:?} (curve {crv:?})")),
    };
    // A key that names its algorithm is used for that one only.
    if let Some(named) = member(jwk, "alg") {
        if Alg::from_name(named) != Some(alg) {
            return Err(format!("algorithm {named:?} is not read"));
        }
    }
    Ok(Key { id: member(jwk, "kid").map(str::to_owned), alg, key })
}

/// What a token must say besides carrying a good signature.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Expect {
    /// `iss`: the issuer, exactly as its metadata names itself.
    pub issuer: String,
    /// An entry of `aud`: this server's canonical URL (RFC 8707).
    pub audience: String,
    /// How far `exp` and `nbf` may be off, for clocks that differ a little.
    pub leeway: Duration,
}

impl Expect {
    /// Tokens from `issuer` for `audience`, with a minute of leeway.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Expect {
        Expect { issuer: issuer.into(), audience: audience.into(), leeway: Duration::from_secs(60) }
    }

    /// The same, for another audience (another server on the same listener).
    pub(super) fn for_audience(&self, audience: &str) -> Expect {
        Expect { audience: audience.to_owned(), ..self.clone() }
    }
}

/// Why a token was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Rejection {
    /// Signed with a key the set lacks (its `kid`, if it named one): the issuer may have rotated
    /// its keys, so fetching them again may help.
    UnknownKey(Option<String>),
    /// Anything else: malformed, a refused algorithm, a bad signature, a wrong claim.
    Invalid(String),
}

fn invalid(why: impl Into<String>) -> Rejection {
    Rejection::Invalid(why.into())
}

fn json_part(part: &str, what: &str) -> Result<Map<String, Value>, Rejection> {
    let bytes = from_url_safe(part).ok_or_else(|| invalid(format!("the {what} is not base64url")))?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(invalid(format!("the {what} is not a JSON object"))),
    }
}

/// Whether `token` has the shape of a signed JWT: three base64url parts, the first a JSON
/// object naming an `alg`. Anything else is an opaque token.
pub(super) fn is_jwt(token: &str) -> bool {
    token.len() <= MAX_TOKEN_LEN
        && token.split('.').count() == 3
        && token
            .split('.')
            .next()
            .and_then(|head| json_part(head, "header").ok())
            .is_some_and(|h| h.contains_key("alg"))
}

/// Checks `token` against `keys` and `expect` at `now`; what it grants on success.
pub fn verify(token: &str, keys: &KeySet, expect: &Expect, now: SystemTime) -> Result<Grant, Rejection> {
    if token.len() > MAX_TOKEN_LEN {
        return Err(invalid("the token is too long"));
    }
    let mut parts = token.split('.');
    let (Some(head), Some(body), Some(signature), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(invalid("not a signed JWT (header.payload.signature)"));
    };
    let header = json_part(head, "header")?;
    let named = header.get("alg").and_then(Value::as_str).unwrap_or("");
    let alg = Alg::from_name(named).ok_or_else(|| invalid(format!("algorithm {named:?} is not accepted")))?;
    // RFC 9068 §4 asks for `typ: at+jwt`, but many issuers write `JWT` or nothing; the audience
    // check keeps an ID token out (its `aud` is a client). A type naming another kind of JWT
    // (a DPoP proof, a logout token, ...) is refused.
    match header.get("typ").and_then(Value::as_str).map(str::to_ascii_lowercase).as_deref() {
        None | Some("jwt" | "at+jwt" | "application/at+jwt") => {}
        Some(other) => return Err(invalid(format!("a JWT of type {other:?} is no access token"))),
    }
    if header.get("typ").is_some_and(|t| !t.is_string()) {
        return Err(invalid("typ is not a string"));
    }
    // RFC 7515 §4.1.11: extensions the recipient does not understand make the token invalid.
    if header.contains_key("crit") {
        return Err(invalid("critical header extensions are not understood"));
    }
    let kid = match header.get("kid") {
        None => None,
        Some(Value::String(kid)) => Some(kid.as_str()),
        Some(_) => return Err(invalid("kid is not a string")),
    };
    let signature = from_url_safe(signature).ok_or_else(|| invalid("the signature is not base64url"))?;
    let mut candidates =
        keys.keys.iter().filter(|k| k.alg == alg && (kid.is_none() || k.id.as_deref() == kid)).peekable();
    if candidates.peek().is_none() {
        return Err(Rejection::UnknownKey(kid.map(str::to_owned)));
    }
    let signed = &token.as_bytes()[..head.len() + 1 + body.len()];
    if !candidates.any(|k| k.verifies(signed, &signature)) {
        return Err(invalid("the signature does not verify"));
    }
    let claims = json_part(body, "payload")?;
    check_claims(&claims, expect, now, Claims::Jwt)?;
    Ok(Grant::new(scopes(&claims)).with_subject(claims.get("sub").and_then(Value::as_str)))
}

/// Where claims come from, which decides the ones that must be there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Claims {
    /// A JWT's payload: `iss` and `exp` are required (RFC 9068 §2.2).
    Jwt,
    /// An introspection answer (RFC 7662 §2.2): `iss` and `exp` are optional, but checked when
    /// present; `aud` is required all the same (RFC 8707: this server must be the audience).
    Introspected,
}

/// Checks `iss`, `aud`, `exp` and `nbf` of a token's claims against `expect` at `now`.
pub(super) fn check_claims(
    claims: &Map<String, Value>,
    expect: &Expect,
    now: SystemTime,
    from: Claims,
) -> Result<(), Rejection> {
    let issuer = claims.get("iss");
    let optional = from == Claims::Introspected;
    if !(optional && issuer.is_none()) && issuer.and_then(Value::as_str) != Some(expect.issuer.as_str()) {
        return Err(invalid("the token is from another issuer"));
    }
    let for_us = match claims.get("aud") {
        Some(Value::String(aud)) => *aud == expect.audience,
        Some(Value::Array(list)) => list.iter().any(|a| a.as_str() == Some(expect.audience.as_str())),
        _ => false,
    };
    if !for_us {
        return Err(invalid("the token is for another audience"));
    }
    let now = now.duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
    let leeway = expect.leeway.as_secs_f64();
    match claims.get("exp").and_then(Value::as_f64) {
        Some(exp) if now < exp + leeway => {}
        Some(_) => return Err(invalid("the token has expired")),
        None if optional && claims.get("exp").is_none() => {}
        None => return Err(invalid("the token has no exp")),
    }
    match claims.get("nbf") {
        None => {}
        Some(nbf) if nbf.as_f64().is_some_and(|nbf| nbf <= now + leeway) => {}
        Some(_) => return Err(invalid("the token is not valid yet")),
    }
    Ok(())
}

/// The granted scopes: `scope` (RFC 9068, space-separated), or `scp` as some issuers write it.
fn scopes(claims: &Map<String, Value>) -> Vec<String> {
    match claims.get("scope").filter(|s| s.is_string()).or_else(|| claims.get("scp")) {
        Some(Value::String(list)) => list.split_whitespace().map(str::to_owned).collect(),
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use rsa::signature::{SignatureEncoding, Signer};
    use serde_json::json;
    use std::sync::OnceLock;
    use tinymcp::transport::kit::base64;
    use tinymcp::transport::kit::to_url_safe;

    pub(crate) const ISSUER: &str = "https://auth.example.com";
    pub(crate) const AUDIENCE: &str = "https://mcp.example.com/mcp";

    pub(crate) fn b64(bytes: &[u8]) -> String {
        to_url_safe(&base64::encode(bytes))
    }

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_800_000_000)
    }

    /// One RSA key for every test: generating one takes a while in a debug build.
    fn rsa_key() -> &'static rsa::PrivateKey {
        static KEY: OnceLock<rsa::PrivateKey> = OnceLock::new();
        KEY.get_or_init(|| {
            use rsa::Generate;
            rsa::PrivateKey::generate()
        })
    }

    fn p256_key(seed: u8) -> p256::ecdsa::SigningKey {
        p256::ecdsa::SigningKey::from_slice(&[seed; 32]).unwrap()
    }

    pub(crate) fn ed_key(seed: u8) -> ed25519_dalek::SigningKey {
        ed25519_dalek::SigningKey::from_bytes(&[seed; 32])
    }

    fn jwks() -> String {
        let rsa = rsa_key().as_ref();
        let ec = p256_key(7).verifying_key().to_sec1_point(false);
        let ec = ec.as_bytes();
        json!({"keys": [
            {"kty": "RSA", "kid": "r1", "use": "sig", "alg": "RS256",
             "n": b64(&rsa.n().to_be_bytes_trimmed_vartime()), "e": b64(&rsa.e().to_be_bytes_trimmed_vartime())},
            {"kty": "EC", "crv": "P-256", "kid": "e1", "x": b64(&ec[1..33]), "y": b64(&ec[33..65])},
            {"kty": "OKP", "crv": "Ed25519", "kid": "d1", "x": b64(ed_key(9).verifying_key().as_bytes())},
            {"kty": "RSA", "kid": "enc", "use": "enc", "n": "AQAB", "e": "AQAB"},
            {"kty": "oct", "kid": "h1", "k": "c2VjcmV0"}
        ]})
        .to_string()
    }

    fn keys() -> KeySet {
        KeySet::from_json(&jwks()).unwrap()
    }

    pub(crate) fn claims() -> Value {
        json!({"iss": ISSUER, "aud": AUDIENCE, "exp": 1_800_000_600, "nbf": 1_799_999_000, "sub": "u1",
               "scope": "mcp:use profile"})
    }

    /// A token with this header and payload, signed by `sign` over `header.payload`.
    pub(crate) fn token(header: Value, claims: &Value, sign: impl Fn(&[u8]) -> Vec<u8>) -> String {
        let signed = format!("{}.{}", b64(header.to_string().as_bytes()), b64(claims.to_string().as_bytes()));
        let signature = sign(signed.as_bytes());
        format!("{signed}.{}", b64(&signature))
    }

    fn rs256(claims: &Value) -> String {
        let signer = rsa::pkcs1v15::SigningKey::<rsa::sha2::Sha256>::new(rsa_key().clone());
        token(json!({"alg": "RS256", "kid": "r1", "typ": "at+jwt"}), claims, |m| signer.sign(m).to_vec())
    }

    fn es256(seed: u8, claims: &Value) -> String {
        let signer = p256_key(seed);
        token(json!({"alg": "ES256", "kid": "e1"}), claims, |m| {
            let signature: p256::ecdsa::Signature = signer.sign(m);
            signature.to_bytes().to_vec()
        })
    }

    fn eddsa(claims: &Value) -> String {
        token(json!({"alg": "EdDSA", "kid": "d1"}), claims, |m| ed_key(9).sign(m).to_bytes().to_vec())
    }

    fn check(token: &str) -> Result<Grant, Rejection> {
        verify(token, &keys(), &Expect::new(ISSUER, AUDIENCE), now())
    }

    fn refused(token: &str) -> String {
        match check(token) {
            Err(Rejection::Invalid(why)) => why,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn the_key_set_keeps_only_signing_keys_it_can_use() {
        assert_eq!(keys().len(), 3, "{:?}", keys());
        assert!(KeySet::from_json("{}").is_err() && KeySet::from_json("nope").is_err());
    }

    #[test]
    fn tokens_of_each_algorithm_verify_and_grant_their_scopes() {
        // To the token's subject, which a handler reads as `RequestCx::subject`.
        let granted = Grant::new(["mcp:use", "profile"]).with_subject(Some("u1"));
        assert_eq!(check(&rs256(&claims())), Ok(granted.clone()));
        assert_eq!(check(&es256(7, &claims())), Ok(granted.clone()));
        assert_eq!(check(&eddsa(&claims())), Ok(granted));
        let mut scp = claims();
        scp["scope"] = Value::Null;
        scp["scp"] = json!(["a", "b"]);
        assert_eq!(check(&eddsa(&scp)), Ok(Grant::new(["a", "b"]).with_subject(Some("u1"))));
        scp.as_object_mut().unwrap().remove("sub");
        assert_eq!(check(&eddsa(&scp)), Ok(Grant::new(["a", "b"])));
    }

    #[test]
    fn another_audience_issuer_or_time_is_refused() {
        let with = |name: &str, value: Value| {
            let mut claims = claims();
            claims[name] = value;
            refused(&es256(7, &claims))
        };
        assert!(with("aud", json!("https://other.example.com/mcp")).contains("audience"));
        assert!(with("aud", json!(["https://other.example.com"])).contains("audience"));
        assert!(with("iss", json!("https://evil.example.com")).contains("issuer"));
        assert!(with("exp", json!(1_799_999_900)).contains("expired"), "past the minute of leeway");
        assert!(with("exp", Value::Null).contains("exp"));
        assert!(with("nbf", json!(1_800_000_100)).contains("not valid yet"));
        // Within the leeway either way.
        let mut near = claims();
        near["exp"] = json!(1_799_999_990);
        near["nbf"] = json!(1_800_000_030);
        near["aud"] = json!(["https://other.example.com", AUDIENCE]);
        assert!(check(&es256(7, &near)).is_ok());
    }

    #[test]
    fn another_key_or_a_changed_byte_does_not_verify() {
        assert!(refused(&es256(8, &claims())).contains("signature"), "signed by another P-256 key");
        let good = eddsa(&claims());
        let (signed, signature) = good.rsplit_once('.').unwrap();
        let mut tampered = claims();
        tampered["scope"] = json!("mcp:use admin");
        let forged =
            format!("{}.{}.{signature}", signed.split('.').next().unwrap(), b64(tampered.to_string().as_bytes()));
        assert!(refused(&forged).contains("signature"));
        // A key id the set lacks may mean the issuer rotated its keys.
        let unknown = token(json!({"alg": "ES256", "kid": "new"}), &claims(), |_| vec![0; 64]);
        assert_eq!(check(&unknown), Err(Rejection::UnknownKey(Some("new".into()))));
    }

    #[test]
    fn alg_none_hmac_and_algorithm_confusion_are_refused() {
        let unsigned = token(json!({"alg": "none"}), &claims(), |_| Vec::new());
        assert!(refused(&unsigned).contains("\"none\""));
        let unsigned = format!("{}.", unsigned.trim_end_matches('.'));
        assert!(check(&unsigned).is_err());
        // HMAC with the RSA key's public modulus as the secret: the classic confusion.
        let rsa = rsa_key().as_ref().n().to_be_bytes_trimmed_vartime();
        let confused = token(json!({"alg": "HS256", "kid": "r1"}), &claims(), |m| {
            use hmac::{KeyInit, Mac};
            let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&rsa).unwrap();
            mac.update(m);
            mac.finalize().into_bytes().to_vec()
        });
        assert!(refused(&confused).contains("HS256"));
        // An Ed25519 signature presented as ES256 under the EC key's id is not checked as EdDSA.
        let mislabelled =
            token(json!({"alg": "ES256", "kid": "d1"}), &claims(), |m| ed_key(9).sign(m).to_bytes().to_vec());
        assert_eq!(check(&mislabelled), Err(Rejection::UnknownKey(Some("d1".into()))));
        let critical = token(json!({"alg": "EdDSA", "kid": "d1", "crit": ["exp"]}), &claims(), |m| {
            ed_key(9).sign(m).to_bytes().to_vec()
        });
        assert!(refused(&critical).contains("critical"));
        let proof = token(json!({"alg": "EdDSA", "kid": "d1", "typ": "dpop+jwt"}), &claims(), |m| {
            ed_key(9).sign(m).to_bytes().to_vec()
        });
        assert!(refused(&proof).contains("no access token"));
        let plain = token(json!({"alg": "EdDSA", "kid": "d1", "typ": "JWT"}), &claims(), |m| {
            ed_key(9).sign(m).to_bytes().to_vec()
        });
        assert!(check(&plain).is_ok());
    }

    #[test]
    fn malformed_tokens_are_refused_without_panic() {
        for bad in ["", ".", "..", "a.b.c", "a.b.c.d.e", "e30.e30.", "e30.e30.e30", &"A".repeat(MAX_TOKEN_LEN + 1)] {
            assert!(matches!(check(bad), Err(Rejection::Invalid(_))), "{bad:?}");
        }
    }
}
